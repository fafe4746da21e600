// Synthetic, realistically sized inputs for the webhook benchmark and tests:
// full Templates and TemplateInstances (passed through the same transforms as
// the real caches), Map-backed stores, and AdmissionReviews of a ~5 KB
// Deployment. The server never uses this module.

import { randomUUID } from 'node:crypto'
import type { AdmissionLookups } from '../admission/decision.ts'
import type { AdmissionRequest, AdmissionReview, Operation } from '../admission/types.ts'
import type { KubeObject } from '../api/meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  API_VERSION,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  type SyncMode,
} from '../api/names.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { ObjectStore } from '../kube/store.ts'
import { IgnoreCache } from './ignore-cache.ts'
import { createLookups, scaleTargetKey, type StoreReader } from './lookups.ts'
import { slimInstance, slimNamespace, slimScaleTarget, slimTemplate, type SlimNamespace } from './transforms.ts'

/** The Reflector's store without the list+watch around it. */
export class MapStore<T extends KubeObject> extends ObjectStore<T> implements StoreReader<T> {}

/** A Template as a platform team writes it: a Go-template body, parameters, sync settings. */
export function fullTemplate(namespace: string, name: string, mode: SyncMode, ignoreFields: readonly string[] = []): Template {
  return {
    apiVersion: API_VERSION,
    kind: 'Template',
    metadata: {
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: String(100_000 + Math.floor(Math.random() * 900_000)),
      generation: 3,
      creationTimestamp: '2026-01-14T09:21:07Z',
      labels: { 'app.kubernetes.io/part-of': 'platform', team: 'platform' },
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: API_VERSION, time: '2026-01-14T09:21:07Z' }],
    },
    spec: {
      gotemplate: [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: {{ .instance.name }}',
        '  labels: {app: {{ .instance.name }}, tier: {{ .params.tier | default "web" }}}',
        'spec:',
        '  replicas: {{ .params.replicas | default 2 }}',
        '  selector: {matchLabels: {app: {{ .instance.name }}}}',
        '  template:',
        '    metadata: {labels: {app: {{ .instance.name }}}}',
        '    spec:',
        '      containers:',
        '      - name: app',
        '        image: {{ .params.image }}',
        '        env:',
        '{{- range $k, $v := .params.env | fromJson }}',
        '        - {name: {{ $k }}, value: {{ $v | quote }}}',
        '{{- end }}',
        '---',
        'apiVersion: v1',
        'kind: Service',
        'metadata: {name: {{ .instance.name }}}',
        'spec: {selector: {app: {{ .instance.name }}}, ports: [{port: 80, targetPort: 8080}]}',
      ].join('\n'),
      parameters: [
        { name: 'image', required: true },
        { name: 'replicas', type: 'number', value: '2' },
        { name: 'tier', value: 'web' },
        { name: 'env', type: 'object', value: '{}' },
      ],
      sync: { mode, ignoreFields: [...ignoreFields] },
    },
    status: {
      observedGeneration: 3,
      phase: 'Valid',
      conditions: [
        {
          type: 'Valid',
          status: 'True',
          reason: 'Valid',
          message: 'the template renders',
          lastTransitionTime: '2026-01-14T09:21:08Z',
          observedGeneration: 3,
        },
      ],
    },
  }
}

/** A TemplateInstance with parameters and a status, as the API server serves it. */
export function fullInstance(namespace: string, name: string, template: { namespace: string; name: string }): TemplateInstance {
  return {
    apiVersion: API_VERSION,
    kind: 'TemplateInstance',
    metadata: {
      name,
      namespace,
      uid: randomUUID(),
      resourceVersion: String(100_000 + Math.floor(Math.random() * 900_000)),
      generation: 2,
      creationTimestamp: '2026-02-01T10:00:00Z',
      finalizers: ['templates.v2.stakater.com/template-instance'],
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: API_VERSION, time: '2026-02-01T10:00:00Z' }],
    },
    spec: {
      templateRef: { ...template },
      parameters: [
        { name: 'image', value: `registry.example.com/${name}:1.4.2` },
        { name: 'replicas', value: '3' },
        { name: 'env', value: '{"LOG_LEVEL":"info","REGION":"eu-west-1"}' },
      ],
    },
    status: {
      observedGeneration: 2,
      phase: 'Ready',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: '',
          lastTransitionTime: '2026-02-01T10:00:05Z',
          observedGeneration: 2,
        },
        {
          type: 'Synced',
          status: 'True',
          reason: 'SyncActive',
          message: 'drift watches and enforcement are active',
          lastTransitionTime: '2026-02-01T10:00:05Z',
        },
      ],
      renderedResources: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace, observedGeneration: 4 },
        { apiVersion: 'v1', kind: 'Service', name, namespace, observedGeneration: 1 },
      ],
      resolvedTemplateRef: { ...template, generation: 3 },
    },
  }
}

export interface SyntheticOwner {
  readonly namespace: string
  readonly instance: string
  readonly uid: string
}

export interface SyntheticCaches {
  readonly lookups: AdmissionLookups
  readonly templates: MapStore<Template>
  readonly instances: MapStore<TemplateInstance>
  readonly namespaces: MapStore<SlimNamespace>
  readonly deployments: MapStore<KubeObject>
  /** One owner per instance, in creation order. */
  readonly owners: readonly SyntheticOwner[]
}

export interface SyntheticCacheOptions {
  readonly templates: number
  readonly instances: number
  /** Sync mode of each template by index; default: every template strict, half of them ignore spec.replicas. */
  readonly modeOf?: (i: number) => { mode: SyncMode; ignoreFields: readonly string[] }
  /**
   * How objects enter the stores. The default serializes each one to JSON and
   * parses it back before the transform, the way a list response arrives.
   */
  readonly viaJson?: boolean
}

const defaultMode = (i: number): { mode: SyncMode; ignoreFields: readonly string[] } => ({
  mode: 'strict',
  ignoreFields: i % 2 === 0 ? ['spec.replicas', 'metadata.annotations'] : ['metadata.annotations'],
})

/** Caches filled through the real transforms: `instances` spread over `templates`, ten per namespace. */
export function syntheticCaches(opts: SyntheticCacheOptions): SyntheticCaches {
  const through = <T>(obj: unknown, slim: (raw: never) => T): T =>
    slim(((opts.viaJson ?? true) ? JSON.parse(JSON.stringify(obj)) : obj) as never)
  const templates = new MapStore<Template>()
  const instances = new MapStore<TemplateInstance>()
  const namespaces = new MapStore<SlimNamespace>()
  const deployments = new MapStore<KubeObject>()
  const refs: { namespace: string; name: string }[] = []
  for (let i = 0; i < opts.templates; i++) {
    const { mode, ignoreFields } = (opts.modeOf ?? defaultMode)(i)
    const t = fullTemplate('platform', `tpl-${i}`, mode, ignoreFields)
    templates.put(through(t, slimTemplate))
    refs.push({ namespace: 'platform', name: `tpl-${i}` })
  }
  const owners: SyntheticOwner[] = []
  for (let i = 0; i < opts.instances; i++) {
    const namespace = `team-${Math.floor(i / 10)}`
    if (i % 10 === 0)
      namespaces.put(
        through({ metadata: { name: namespace, uid: randomUUID(), resourceVersion: '1' }, status: { phase: 'Active' } }, slimNamespace),
      )
    const ref = refs[i % Math.max(1, refs.length)] ?? { namespace: 'platform', name: 'tpl-0' }
    const ti = fullInstance(namespace, `app-${i}`, ref)
    instances.put(through(ti, slimInstance))
    owners.push({ namespace, instance: `app-${i}`, uid: ti.metadata?.uid ?? '' })
  }
  const lookups = createLookups({
    templates,
    instances,
    namespaces,
    ignore: new IgnoreCache(),
    scaleTargets: new Map([[scaleTargetKey('apps', 'deployments'), deployments]]),
  })
  return { lookups, templates, instances, namespaces, deployments, owners }
}

// ---- managedFields as the API server writes them ----------------------------

/** Associative lists and their keys, as the built-in types declare them (x-kubernetes-list-map-keys). */
const LIST_KEYS: Readonly<Record<string, readonly string[]>> = {
  containers: ['name'],
  initContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  ports: ['containerPort', 'protocol'],
  conditions: ['type'],
}
/** Fields owned as a whole: atomic lists and atomic structs. */
const ATOMIC: ReadonlySet<string> = new Set(['args', 'command', 'selector'])

type FieldSet = { [field: string]: FieldSet }

/** The FieldsV1 set of a value: "f:" per field, "k:{...}" per keyed list item with "." for the item itself. */
function fieldsV1(value: unknown, name = ''): FieldSet {
  if (ATOMIC.has(name) || typeof value !== 'object' || value === null) return {}
  if (Array.isArray(value)) {
    const keys = LIST_KEYS[name]
    if (keys === undefined) return {}
    const out: FieldSet = {}
    for (const item of value as Record<string, unknown>[]) {
      const key = Object.fromEntries(keys.map((k) => [k, item[k]]))
      out[`k:${JSON.stringify(key)}`] = { '.': {}, ...fieldsV1(item) }
    }
    return out
  }
  const out: FieldSet = {}
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[`f:${k}`] = fieldsV1(v, k)
  return out
}

/**
 * metadata.managedFields of a rendered Deployment as a real API server keeps
 * them (measured on kube-apiserver v1.37.2: about half of the object's JSON):
 * template-sync's apply of labels, annotations and spec, the deployment
 * controller's status updates, and a `kubectl rollout restart`.
 */
function deploymentManagedFields(obj: KubeObject, time: string): unknown[] {
  const meta = obj.metadata ?? {}
  const applied = {
    'f:metadata': { 'f:annotations': fieldsV1(meta.annotations), 'f:labels': fieldsV1(meta.labels) },
    'f:spec': fieldsV1(obj.spec),
  }
  const entry = (manager: string, operation: string, fields: FieldSet, subresource?: string): unknown => ({
    manager,
    operation,
    apiVersion: 'apps/v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...(subresource ? { subresource } : {}),
  })
  return [
    entry('template-sync', 'Apply', applied),
    entry('kube-controller-manager', 'Update', { 'f:status': fieldsV1(obj.status) }, 'status'),
    entry('kubectl-rollout', 'Update', {
      'f:spec': { 'f:template': { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/restartedAt': {} } } } },
    }),
  ]
}

/**
 * A rendered Deployment owned by `owner`: about 5 KB of JSON, and as much
 * again of managedFields, like the ones a real API server sends.
 */
export function renderedDeployment(owner: SyntheticOwner, mode: SyncMode = 'strict'): KubeObject {
  const env = Array.from({ length: 52 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}-${'x'.repeat(i % 9)}` }))
  const sidecar = {
    name: 'proxy',
    image: 'registry.example.com/infra/proxy:2.3.1',
    imagePullPolicy: 'IfNotPresent',
    args: ['--listen=:15001', '--upstream=127.0.0.1:8080', '--log-format=json'],
    ports: [{ name: 'proxy', containerPort: 15001, protocol: 'TCP' }],
    resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
    volumeMounts: [{ name: 'proxy-config', mountPath: '/etc/proxy', readOnly: true }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  }
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: owner.instance,
      namespace: owner.namespace,
      uid: randomUUID(),
      resourceVersion: '184467',
      generation: 7,
      creationTimestamp: '2026-02-01T10:00:03Z',
      labels: {
        app: owner.instance,
        'app.kubernetes.io/name': owner.instance,
        [LABEL_INSTANCE]: owner.instance,
        [LABEL_INSTANCE_UID]: owner.uid,
        [LABEL_INSTANCE_NAME]: owner.instance,
        [LABEL_INSTANCE_NAMESPACE]: owner.namespace,
        [LABEL_SYNC_MODE]: mode,
      },
      annotations: { [ANNOTATION_INSTANCE_REF]: `${owner.namespace}/${owner.instance}`, 'deployment.kubernetes.io/revision': '7' },
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: owner.instance } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: owner.instance } },
        spec: {
          containers: [
            {
              name: 'app',
              image: `registry.example.com/${owner.instance}:1.4.2`,
              imagePullPolicy: 'IfNotPresent',
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env,
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
              readinessProbe: {
                httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' },
                periodSeconds: 10,
                timeoutSeconds: 1,
                successThreshold: 1,
                failureThreshold: 3,
              },
              volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }],
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
            sidecar,
          ],
          volumes: [
            { name: 'config', configMap: { name: `${owner.instance}-config`, defaultMode: 420 } },
            { name: 'proxy-config', configMap: { name: 'proxy-config', defaultMode: 420 } },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
    },
    status: {
      observedGeneration: 7,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2026-02-01T10:00:09Z',
          lastTransitionTime: '2026-02-01T10:00:09Z',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: '2026-02-01T10:00:09Z',
          lastTransitionTime: '2026-02-01T10:00:03Z',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${owner.instance}-7d9f8b6c5d" has successfully progressed.`,
        },
      ],
    },
  }
  ;(deployment.metadata as { managedFields?: unknown[] }).managedFields = deploymentManagedFields(deployment, '2026-02-01T10:00:03Z')
  return deployment
}

export interface ReviewInput {
  readonly operation: Operation
  readonly object?: KubeObject | null
  readonly oldObject?: KubeObject | null
  readonly username?: string
  readonly subResource?: string
  readonly resource?: { group: string; version: string; resource: string }
  readonly kind?: { group: string; version: string; kind: string }
  readonly uid?: string
  readonly dryRun?: boolean
}

/** An AdmissionReview as the API server sends it for a namespaced apps/v1 Deployment (by default). */
export function admissionReview(input: ReviewInput): AdmissionReview & { request: AdmissionRequest } {
  const meta = (input.oldObject ?? input.object)?.metadata ?? {}
  const request: AdmissionRequest = {
    uid: input.uid ?? randomUUID(),
    kind: input.kind ?? { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: input.resource ?? { group: 'apps', version: 'v1', resource: 'deployments' },
    ...(input.subResource ? { subResource: input.subResource } : {}),
    requestKind: input.kind ?? { group: 'apps', version: 'v1', kind: 'Deployment' },
    requestResource: input.resource ?? { group: 'apps', version: 'v1', resource: 'deployments' },
    ...(meta.name !== undefined ? { name: meta.name } : {}),
    ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
    operation: input.operation,
    userInfo: { username: input.username ?? 'jane@example.com', uid: 'u-1', groups: ['developers', 'system:authenticated'] },
    object: input.object ?? null,
    oldObject: input.oldObject ?? null,
    dryRun: input.dryRun ?? false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: input.operation === 'DELETE' ? 'DeleteOptions' : 'UpdateOptions' },
  }
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }
}

/** Also exported for tests that need a scale target in the synthetic caches. */
export function addScaleTarget(caches: SyntheticCaches, deployment: KubeObject): void {
  caches.deployments.put(slimScaleTarget(JSON.parse(JSON.stringify(deployment)) as never))
}
