// From rendered files to objects, as Helm's SortManifests and the install
// action do it: files in name order, each split into documents (Helm 3's
// and Helm 4's separators differ), documents with a helm.sh/hook
// annotation set apart as hooks (an unknown hook event drops the document),
// the rest stable-sorted by kind in install order. Each document is then
// decoded with Kubernetes' YAML rules (src/encoding/yaml.ts).

import { parseYamlStream, YamlDocumentError } from '../../encoding/yaml.ts'
import { HelmRenderError } from './errors.ts'
import type { HelmMajor } from './types.ts'

const INSTALL_ORDER_V3: readonly string[] = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
]
// Helm 4 installs webhook configurations last among the known kinds; Helm 3 sorts them as unknown kinds.
const INSTALL_ORDER_V4: readonly string[] = [...INSTALL_ORDER_V3, 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']

const HOOK_EVENTS = new Set([
  'pre-install',
  'post-install',
  'pre-delete',
  'post-delete',
  'pre-upgrade',
  'post-upgrade',
  'pre-rollback',
  'post-rollback',
  'test',
  'test-success',
])

export interface Document {
  readonly template: string
  /** The document's text as Helm keeps it after splitting. */
  readonly text: string
  readonly value: Record<string, unknown> | null
  readonly kind: string
}

export interface SortedManifests {
  readonly manifests: Document[]
  readonly hooks: { template: string; reason: string }[]
}

const V3_SEP = /(?:^|\s*\n)---\s*/
const V4_SEP = /^---[ \t]*/m

function splitDocuments(helm: HelmMajor, text: string): string[] {
  if (helm === 'v3') {
    return text
      .trim()
      .split(V3_SEP)
      .filter((d) => d !== '')
      .map((d) => d.trim())
  }
  return text
    .trimStart()
    .split(V4_SEP)
    .filter((d) => d.trim() !== '')
    .map((d) => d.trimStart())
}

function decode(template: string, doc: string): Record<string, unknown> | null {
  let docs: ReturnType<typeof parseYamlStream>
  try {
    docs = parseYamlStream(doc)
  } catch (e) {
    if (e instanceof YamlDocumentError) {
      throw new HelmRenderError(
        'ManifestInvalid',
        `YAML parse error on ${template}: ${e.message.replace(/^rendered document \d+: /, '')}`,
        {
          template,
          cause: e,
        },
      )
    }
    throw e
  }
  const first = docs[0]
  if (first === undefined) return null
  const v = first.value
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new HelmRenderError(
      'ManifestInvalid',
      `YAML parse error on ${template}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type releaseutil.SimpleHead`,
      { template },
    )
  }
  return v as Record<string, unknown>
}

function annotations(v: Record<string, unknown>): Record<string, unknown> | undefined {
  const md = v.metadata
  if (typeof md !== 'object' || md === null || Array.isArray(md)) return undefined
  const a = (md as Record<string, unknown>).annotations
  return typeof a === 'object' && a !== null && !Array.isArray(a) ? (a as Record<string, unknown>) : undefined
}

/** SortManifests over the rendered files (partials and whitespace-only outputs already left out by the caller or here). */
export function sortManifests(helm: HelmMajor, files: ReadonlyMap<string, string>): SortedManifests {
  const names = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const manifests: Document[] = []
  const hooks: { template: string; reason: string; kind: string }[] = []
  for (const name of names) {
    const base = name.slice(name.lastIndexOf('/') + 1)
    const content = files.get(name) ?? ''
    if (base.startsWith('_') || content.trim() === '') continue
    for (const doc of splitDocuments(helm, content)) {
      const value = decode(name, doc)
      const kind = value !== null && typeof value.kind === 'string' ? value.kind : ''
      const hook = value === null ? undefined : annotations(value)?.['helm.sh/hook']
      if (hook === undefined) {
        manifests.push({ template: name, text: doc, value, kind })
        continue
      }
      const events = String(hook)
        .split(',')
        .map((e) => e.trim().toLowerCase())
      const unknown = events.find((e) => !HOOK_EVENTS.has(e))
      if (unknown !== undefined) {
        hooks.push({ template: name, kind, reason: `unknown hook ${JSON.stringify(hook)}: dropped, as Helm drops it` })
      } else if (events.includes('test') || events.includes('test-success')) {
        hooks.push({ template: name, kind, reason: `test hook (${String(hook)}): chart tests are not run` })
      } else {
        hooks.push({ template: name, kind, reason: `hook (${String(hook)}): hooks are not applied, the release lifecycle is not managed` })
      }
    }
  }
  const order = helm === 'v3' ? INSTALL_ORDER_V3 : INSTALL_ORDER_V4
  return {
    manifests: byKind(order, manifests),
    hooks: byKind(order, hooks).map(({ template, reason }) => ({ template, reason })),
  }
}

/** Helm's stable sort by kind: known kinds in install order, then unknown kinds alphabetically. */
function byKind<T extends { readonly kind: string }>(order: readonly string[], list: readonly T[]): T[] {
  const rank = new Map(order.map((k, i) => [k, i]))
  const indexed = list.map((m, i) => ({ m, i }))
  indexed.sort((a, b) => {
    const ra = rank.get(a.m.kind)
    const rb = rank.get(b.m.kind)
    if (ra === undefined && rb === undefined) {
      if (a.m.kind !== b.m.kind) return a.m.kind < b.m.kind ? -1 : 1
      return a.i - b.i
    }
    if (ra === undefined) return 1
    if (rb === undefined) return -1
    return ra - rb || a.i - b.i
  })
  return indexed.map((x) => x.m)
}

/** A CRD file's documents, decoded (Helm writes crds/ files raw; the API server reads each document). */
export function crdDocuments(template: string, text: string): Record<string, unknown>[] {
  let docs: ReturnType<typeof parseYamlStream>
  try {
    docs = parseYamlStream(text)
  } catch (e) {
    if (e instanceof YamlDocumentError) {
      throw new HelmRenderError('ManifestInvalid', `${template}: ${e.message}`, { template, cause: e })
    }
    throw e
  }
  return docs.map((d) => {
    if (typeof d.value !== 'object' || d.value === null || Array.isArray(d.value)) {
      throw new HelmRenderError('ManifestInvalid', `${template}: document ${d.document} is not a mapping`, { template })
    }
    return d.value as Record<string, unknown>
  })
}
