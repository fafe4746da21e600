// `template-sync render`: what a TemplateInstance renders, as the YAML the
// reconciler would apply (ownership stamp included), without applying it.
//
//   render --template FILE --instance FILE [--set NAME=VALUE ...] [--kubeconfig PATH]
//   render NAMESPACE/NAME [--set NAME=VALUE ...] [--kubeconfig PATH]
//   render --chart PATH [-f FILE] [--set K=V] ...   (a chart alone, render-chart.ts)
//
// A Helm Template (spec.helm) renders its chart from the repository, or from
// --chart PATH offline (render-helm.ts).
//
// From files nothing is read from a cluster unless --kubeconfig is given:
// valueFrom parameters then fail with a message naming the parameter, and
// namespaced kinds are recognised from a built-in table instead of API
// discovery. With a cluster the reconciler's own pipeline does every step.
//
// Exit codes: 0 rendered, 1 the instance does not render (the reason and
// message of the condition the reconciler would set) or the inputs cannot be
// read, 2 usage errors.

import type { SyncMode } from '../api/names.ts'
import { GROUP, SYNC_MODES, VERSION } from '../api/names.ts'
import { syncModeOf, type Template } from '../api/template.ts'
import type { TemplateInstance, TemplateParameter } from '../api/templateinstance.ts'
import type { RenderOutcome } from '../controller/pipeline.ts'
import { KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import { RestMapper, UnknownKindError } from '../kube/discovery.ts'
import type { IdentifiedObject, KubeObject } from '../api/meta.ts'
import { describeSource, resolveParameters } from '../render/params.ts'
import { renderInstance } from '../render/render.ts'
import type { ParameterSources } from '../render/sources.ts'
import type { ParamValue } from '../render/types.ts'
import { checkTargetNamespace } from '../render/targetns.ts'
import { objectScopeProblem, type ScopedObject } from '../render/grants.ts'
import { Reason } from '../api/conditions.ts'
import { parseApiVersion } from '../api/identity.ts'
import { createRenderPipeline, gotemplateFailure } from '../reconciler/wiring.ts'
import { DEFAULT_RENDER_TIMEOUT_MS } from '../render/time-limit.ts'
import { discoveryScope, renderHelmTemplate, type ScopeSource } from '../reconciler/helm.ts'
import { type ChartRenderOptions, type ChartRenderResult, renderLocalChart } from './render-chart.ts'
import { type CapabilityFlags, cliHelmSupport, type HelmCliOptions, kubeVersionProblem, skippedNotes } from './render-helm.ts'
import {
  boolFlag,
  CommandError,
  connect,
  defaultIO,
  type CliIO,
  type Env,
  type InstanceName,
  listFlag,
  type ParsedArgs,
  parseFlags,
  parseInstanceName,
  stringFlag,
  UsageError,
  parseCommandArgs,
} from './args.ts'
import { dumpDocuments, loadManifest, maskSecret } from './yaml.ts'

export function renderUsage(): string {
  return `usage: template-sync render --template FILE --instance FILE [flags]
       template-sync render NAMESPACE/NAME [flags]
       template-sync render --chart PATH [chart flags]

Prints the objects a TemplateInstance renders, ownership-stamped, as YAML;
with --chart alone, the objects the chart renders, as helm template does.

  --template FILE      Template manifest (with --instance: render from files)
  --instance FILE      TemplateInstance manifest
  -n, --namespace NS   namespace of the instance file when it names none (default "default")
  --set NAME=VALUE     set a parameter, replacing the instance's entry (repeatable)
  --kubeconfig PATH    cluster to read from; from files, only valueFrom parameters
                       and kind discovery use it [$TEMPLATE_SYNC_KUBECONFIG in
                       NAMESPACE/NAME form, then $KUBECONFIG, ~/.kube/config]
  --show-secrets       print Secret data and stringData values (masked by default)
  --chart PATH         spec.helm: render this chart directory or .tgz instead of
                       fetching the Template's chart from its repository
  --plain-http         spec.helm: the Template's oci:// registry speaks plain HTTP
  --kube-version VER   spec.helm and --chart: .Capabilities.KubeVersion (default:
                       the cluster's with --kubeconfig, else Helm's v1.37.0)
  -a, --api-versions GV
                       spec.helm and --chart: added to .Capabilities.APIVersions,
                       as group/version or group/version/Kind (repeatable, or
                       comma-separated)

Chart flags (--chart PATH without --template/--instance or NAMESPACE/NAME),
with helm template's meaning:
  -f, --values FILE    values file (repeatable; later files win)
  --set K=V[,K=V]      values, typed as helm --set types them (repeatable)
  --set-string K=V     values kept as strings (repeatable)
  --set-file K=PATH    values read from files (repeatable)
  --release-name NAME  .Release.Name (default "release-name")
  -n, --namespace NS   .Release.Namespace (default "default")
  --helm-version v3|v4 the Helm major whose rules apply (default v3)
  --kubeconfig PATH    read .Capabilities from this cluster

Exit codes: 0 rendered; 1 not renderable or unreadable input; 2 usage error.
`
}

const FLAGS = {
  template: { type: 'string' },
  instance: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  set: { type: 'string', multiple: true },
  kubeconfig: { type: 'string' },
  'show-secrets': { type: 'boolean' },
  chart: { type: 'string' },
  'plain-http': { type: 'boolean' },
  'kube-version': { type: 'string' },
  'api-versions': { type: 'string', short: 'a', multiple: true },
  values: { type: 'string', short: 'f', multiple: true },
  'set-string': { type: 'string', multiple: true },
  'set-file': { type: 'string', multiple: true },
  'release-name': { type: 'string' },
  'helm-version': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

// Flags that only a chart rendered alone takes: a Template's values come from its valuesTemplate.
const CHART_ONLY_FLAGS = ['values', 'set-string', 'set-file', 'release-name', 'helm-version'] as const

export interface RenderOptions {
  readonly source:
    | { readonly kind: 'files'; readonly template: string; readonly instance: string; readonly namespace: string }
    | { readonly kind: 'cluster'; readonly instance: InstanceName }
    | ({ readonly kind: 'chart' } & ChartRenderOptions)
  /** Parameters replacing the instance's (a chart rendered alone takes --set as values instead). */
  readonly set: readonly { readonly name: string; readonly value: string }[]
  readonly kubeconfig?: string
  readonly showSecrets: boolean
  readonly helm: HelmCliOptions
}

/** Throws UsageError; 'help' for -h/--help. */
export function parseRenderArgs(argv: readonly string[]): RenderOptions | 'help' {
  const args = parseFlags(argv, FLAGS)
  if (boolFlag(args, 'help')) return 'help'
  const template = stringFlag(args, 'template')
  const instance = stringFlag(args, 'instance')
  const namespace = stringFlag(args, 'namespace')
  const kubeconfig = stringFlag(args, 'kubeconfig')
  const chart = stringFlag(args, 'chart')
  const capabilities = capabilityFlags(args)
  const helm: HelmCliOptions = { plainHttp: boolFlag(args, 'plain-http'), ...capabilities, ...(chart !== undefined ? { chart } : {}) }
  const showSecrets = boolFlag(args, 'show-secrets')
  if (args.positionals.length > 1) throw new UsageError(`expected at most one NAMESPACE/NAME, got ${args.positionals.length} arguments`)
  const positional = args.positionals[0]
  if (chart !== undefined && positional === undefined && template === undefined && instance === undefined) {
    if (helm.plainHttp) throw new UsageError("--plain-http applies to a Template's oci:// repository, not to --chart alone")
    const source = { kind: 'chart' as const, ...chartRenderOptions(args, chart, capabilities, namespace) }
    return { source, set: [], showSecrets, helm, ...(kubeconfig !== undefined ? { kubeconfig } : {}) }
  }
  const chartOnly = CHART_ONLY_FLAGS.filter((f) => args.values[f] !== undefined)
  if (chartOnly.length > 0) {
    throw new UsageError(
      `${chartOnly.map((f) => `--${f}`).join(', ')}: only with --chart alone (no --template/--instance or NAMESPACE/NAME); a Template's values come from its valuesTemplate`,
    )
  }
  const set = listFlag(args, 'set').map((s) => {
    const eq = s.indexOf('=')
    if (eq <= 0) throw new UsageError(`--set ${JSON.stringify(s)}: expected NAME=VALUE`)
    return { name: s.slice(0, eq), value: s.slice(eq + 1) }
  })
  const common = { set, showSecrets, helm, ...(kubeconfig !== undefined ? { kubeconfig } : {}) }
  if (positional !== undefined) {
    if (template !== undefined || instance !== undefined)
      throw new UsageError('give either NAMESPACE/NAME or --template and --instance, not both')
    if (namespace !== undefined) throw new UsageError('--namespace only applies to --instance files; NAMESPACE/NAME names the namespace')
    return { source: { kind: 'cluster', instance: parseInstanceName(positional) }, ...common }
  }
  if (template === undefined || instance === undefined) {
    throw new UsageError('give NAMESPACE/NAME, both --template and --instance, or --chart PATH alone')
  }
  return { source: { kind: 'files', template, instance, namespace: namespace ?? 'default' }, ...common }
}

/** --kube-version (checked as Helm parses it) and --api-versions (each value may hold several, comma-separated, as Helm's string slice). */
function capabilityFlags(args: ParsedArgs): CapabilityFlags {
  const kubeVersion = stringFlag(args, 'kube-version')
  const problem = kubeVersion === undefined ? undefined : kubeVersionProblem(kubeVersion)
  if (problem !== undefined) throw new UsageError(problem)
  const apiVersions = listFlag(args, 'api-versions').flatMap((v) => (v === '' ? [] : v.split(',')))
  return { apiVersions, ...(kubeVersion !== undefined ? { kubeVersion } : {}) }
}

function chartRenderOptions(
  args: ParsedArgs,
  path: string,
  capabilities: CapabilityFlags,
  namespace: string | undefined,
): ChartRenderOptions {
  const major = stringFlag(args, 'helm-version') ?? 'v3'
  if (major !== 'v3' && major !== 'v4') throw new UsageError(`--helm-version ${JSON.stringify(major)}: expected v3 or v4`)
  return {
    path,
    releaseName: stringFlag(args, 'release-name') ?? 'release-name',
    namespace: namespace ?? 'default',
    helm: major,
    capabilities,
    values: {
      valueFiles: listFlag(args, 'values'),
      set: listFlag(args, 'set'),
      setString: listFlag(args, 'set-string'),
      setFile: listFlag(args, 'set-file'),
    },
  }
}

export async function runRender(argv: readonly string[], env: Env, io?: Partial<CliIO>): Promise<number> {
  const { stdout, stderr } = defaultIO(io)
  const parsed = parseCommandArgs('render', argv, parseRenderArgs, renderUsage, { stdout, stderr })
  if ('exit' in parsed) return parsed.exit
  const opts = parsed.options
  let client: KubeClient | undefined
  try {
    if (opts.source.kind === 'chart') {
      // Only an explicit --kubeconfig reaches a cluster, for its capabilities.
      if (opts.kubeconfig !== undefined) client = connect(opts.kubeconfig, {})
      return writeResult(await renderLocalChart(opts.source, client), opts.showSecrets, { stdout, stderr })
    }
    let inputs: Inputs
    if (opts.source.kind === 'cluster') {
      client = connect(opts.kubeconfig, env)
      inputs = await readInstance(client, opts.source.instance)
    } else {
      // From files only an explicit --kubeconfig reaches a cluster: a local preview must not pick up a default context.
      if (opts.kubeconfig !== undefined) client = connect(opts.kubeconfig, {})
      inputs = readFiles(opts.source.template, opts.source.instance, opts.source.namespace)
      const wanted = inputs.instance.spec?.templateRef
      const got = `${inputs.template.metadata?.namespace ?? ''}/${inputs.template.metadata?.name ?? ''}`
      if (wanted !== undefined && `${wanted.namespace}/${wanted.name}` !== got) {
        stderr.write(
          `note: the instance's spec.templateRef names Template ${wanted.namespace}/${wanted.name}; rendering with ${got} from ${opts.source.template}\n`,
        )
      }
    }
    const result = await renderObjects(
      { template: inputs.template, instance: withParameters(inputs.instance, opts.set) },
      client,
      opts.helm,
    )
    return writeResult(result, opts.showSecrets, { stdout, stderr })
  } catch (err) {
    stderr.write(`template-sync render: ${(err as Error).message}\n`)
    return err instanceof CommandError ? err.exitCode : 1
  } finally {
    client?.close()
  }
}

/** Notes and the objects (Secrets masked unless showSecrets), or the failure; the exit code. */
function writeResult(result: RenderedObjects | ChartRenderResult, showSecrets: boolean, io: CliIO): number {
  for (const note of result.notes) io.stderr.write(`note: ${note}\n`)
  if (!result.ok) {
    io.stderr.write(`template-sync render: ${result.reason}: ${result.message}\n`)
    return 1
  }
  io.stdout.write(dumpDocuments(showSecrets ? result.objects : result.objects.map((o) => maskSecret(o))))
  return 0
}

export interface Inputs {
  readonly template: Template
  readonly instance: TemplateInstance
}

const apiBase = `/apis/${GROUP}/${VERSION}/namespaces`

/** A TemplateInstance and the Template its spec.templateRef names, from the API. Throws CommandError when either is missing. */
export async function readInstance(client: KubeClient, ref: InstanceName): Promise<Inputs> {
  const e = encodeURIComponent
  const instance = await client.getOrUndefined<TemplateInstance>(`${apiBase}/${e(ref.namespace)}/templateinstances/${e(ref.name)}`)
  if (instance === undefined) throw new CommandError(`TemplateInstance ${ref.namespace}/${ref.name} not found`, 1)
  const t = instance.spec?.templateRef
  if (t === undefined || !t.name || !t.namespace)
    throw new CommandError(`TemplateInstance ${ref.namespace}/${ref.name} has no spec.templateRef`, 1)
  const template = await client.getOrUndefined<Template>(`${apiBase}/${e(t.namespace)}/templates/${e(t.name)}`)
  if (template === undefined) {
    throw new CommandError(
      `Template ${t.namespace}/${t.name} (spec.templateRef of TemplateInstance ${ref.namespace}/${ref.name}) not found`,
      1,
    )
  }
  return { template, instance }
}

function readFiles(templatePath: string, instancePath: string, namespace: string): Inputs {
  const template = loadManifest(templatePath, 'Template') as unknown as Template
  const modeProblem = syncModeProblem(template)
  if (modeProblem !== undefined) throw new CommandError(`${templatePath}: ${modeProblem}`, 1)
  const instance = structuredClone(loadManifest(instancePath, 'TemplateInstance')) as unknown as TemplateInstance
  const meta = (instance.metadata ??= {})
  meta.namespace ||= namespace
  return { template, instance }
}

/**
 * What the API server says about spec.sync.mode of a Template read from a
 * file (kubectl's YAML 1.1 reading: an unquoted `off` is the boolean false),
 * with a hint for that case; undefined when the mode is valid or absent.
 */
export function syncModeProblem(template: Template): string | undefined {
  const sync: unknown = template.spec.sync
  const mode = typeof sync === 'object' && sync !== null ? (sync as Record<string, unknown>)['mode'] : undefined
  // null is pruned by the API server and defaulted to off, like an absent field.
  if (mode === undefined || mode === null || (typeof mode === 'string' && (SYNC_MODES as readonly string[]).includes(mode))) {
    return undefined
  }
  const supported = SYNC_MODES.map((m) => JSON.stringify(m)).join(', ')
  const problem = `spec.sync.mode: Unsupported value: ${JSON.stringify(mode)}: supported values: ${supported}`
  if (mode !== false) return problem
  return `${problem}\nhint: kubectl reads YAML 1.1, where an unquoted off is the boolean false; quote it: mode: "off"`
}

/** The instance with --set values in place of its own entries for those parameters. */
function withParameters(instance: TemplateInstance, set: RenderOptions['set']): TemplateInstance {
  if (set.length === 0) return instance
  const out = structuredClone(instance)
  const params: TemplateParameter[] = [...(out.spec.parameters ?? [])]
  for (const { name, value } of set) {
    const at = params.findIndex((p) => p.name === name)
    if (at >= 0) params[at] = { name, value }
    else params.push({ name, value })
  }
  out.spec = { ...out.spec, parameters: params }
  return out
}

export type RenderedObjects =
  | { readonly ok: true; readonly objects: IdentifiedObject[]; readonly mode: SyncMode; readonly notes: string[] }
  | { readonly ok: false; readonly reason: string; readonly message: string; readonly notes: string[] }

/**
 * Namespace policy, parameters, render and ownership stamp, in the
 * reconciler's order. With a client every step is the reconciler's own
 * (createRenderPipeline); without one, valueFrom parameters are refused and
 * kind scopes come from OFFLINE_SCOPES.
 */
export async function renderObjects(
  inputs: Inputs,
  client: KubeClient | undefined,
  helmOptions: HelmCliOptions = { plainHttp: false, apiVersions: [] },
): Promise<RenderedObjects> {
  const { template, instance } = inputs
  const notes: string[] = []
  const namespace = instance.metadata?.namespace ?? ''
  const mode = syncModeOf(template)
  const pipelineClient = client ?? offlineClient()
  const helm = cliHelmSupport(template, client, helmOptions, notes)
  const pipeline = createRenderPipeline(pipelineClient, helm)
  try {
    // Labels matter only to a selector; reading them may be forbidden to the caller.
    const hasSelector = template.spec.targetNamespaces?.selector !== undefined
    const labels = client === undefined || !hasSelector ? undefined : await namespaceLabels(client, namespace)
    const policy = checkTargetNamespace(template, namespace, labels === 'forbidden' ? undefined : labels)
    if (!policy.allowed) {
      const unchecked = hasSelector && (client === undefined || labels === 'forbidden')
      if (!unchecked) return { ok: false, reason: policy.reason, message: policy.message, notes }
      const why = client === undefined ? 'which are not read without --kubeconfig' : 'which this user may not read'
      notes.push(`spec.targetNamespaces.selector needs the labels of Namespace ${namespace}, ${why}; the policy was not checked`)
    }
    let rendered: RenderOutcome
    if (client === undefined) {
      const params = await offlineParameters(template, instance)
      if (!params.ok) return { ok: false, reason: params.reason, message: params.message, notes }
      rendered =
        template.spec.helm === undefined
          ? offlineRender(template, instance, params.values, notes)
          : await renderHelmTemplate(helm, template, instance, params.values, offlineScope(notes), (skipped) =>
              notes.push(...skippedNotes(skipped)),
            )
    } else {
      const params = await pipeline.resolveParameters(template, instance)
      if (!params.ok) return { ok: false, reason: params.reason, message: params.message, notes }
      rendered =
        template.spec.helm === undefined
          ? await pipeline.render(template, instance, params.values)
          : await renderHelmTemplate(
              helm,
              template,
              instance,
              params.values as Record<string, ParamValue>,
              discoveryScope(new RestMapper(client)),
              (skipped) => notes.push(...skippedNotes(skipped)),
            )
      if (rendered.ok) notes.push(...(await unknownKindNotes(client, rendered.objects)))
    }
    if (!rendered.ok) return { ok: false, reason: rendered.reason, message: rendered.message, notes }
    // The reconciler's tenancy check; offline, kinds of unknown scope are left to the notes above.
    const mapper = client === undefined ? undefined : new RestMapper(client)
    const scoped: ScopedObject[] = []
    for (const object of rendered.objects) {
      const namespaced =
        mapper === undefined
          ? offlineScopeOf(object.apiVersion, object.kind)
          : (await mapper.mapping(object.apiVersion, object.kind).catch(() => undefined))?.namespaced
      if (namespaced !== undefined || mapper !== undefined) scoped.push({ object, namespaced })
    }
    const problem = objectScopeProblem(template, namespace, scoped)
    if (problem !== undefined) return { ok: false, reason: Reason.ObjectForbidden, message: problem, notes }
    const owner = { name: instance.metadata?.name ?? '', namespace, uid: instance.metadata?.uid ?? '' }
    const templateRef = instance.spec.templateRef
    return { ok: true, objects: rendered.objects.map((o) => pipeline.stamp(o, owner, mode, templateRef)), mode, notes }
  } finally {
    if (client === undefined) pipelineClient.close()
  }
}

/** The Namespace's labels; undefined when it does not exist. */
async function namespaceLabels(client: KubeClient, namespace: string): Promise<Record<string, string> | undefined | 'forbidden'> {
  try {
    const ns = await client.getOrUndefined<KubeObject>(`/api/v1/namespaces/${encodeURIComponent(namespace)}`)
    return ns === undefined ? undefined : (ns.metadata?.labels ?? {})
  } catch (err) {
    if (err instanceof KubeApiError && err.code === 403) return 'forbidden'
    throw err
  }
}

async function unknownKindNotes(client: KubeClient, objects: readonly IdentifiedObject[]): Promise<string[]> {
  const mapper = new RestMapper(client)
  const notes: string[] = []
  const seen = new Set<string>()
  for (const o of objects) {
    const gvk = `${o.apiVersion} ${o.kind}`
    if (seen.has(gvk)) continue
    seen.add(gvk)
    try {
      await mapper.mapping(o.apiVersion, o.kind)
    } catch (err) {
      if (!(err instanceof UnknownKindError)) throw err
      notes.push(`${gvk} is not served by the cluster; metadata.namespace is left as the Template wrote it`)
    }
  }
  return notes
}

// --- Without a cluster -------------------------------------------------------

// createRenderPipeline wants a client, but its stamp (all we use offline)
// never sends a request. A client for an unresolvable host makes any request
// that slipped through fail instead of reaching some default cluster.
// Built without the client library, which would cost the command ~50 MiB to load.
function offlineClient(): KubeClient {
  return new KubeClient(
    { getCurrentCluster: () => ({ server: 'https://offline.invalid' }), applyToHTTPSOptions: async () => {} },
    'template-sync-cli',
  )
}

class OfflineSourceError extends Error {
  override readonly name = 'OfflineSourceError'
}

const offlineSources: ParameterSources = {
  namespaced: (apiVersion, kind) => {
    const scope = offlineScopeOf(apiVersion, kind)
    return scope === undefined ? Promise.reject(new OfflineSourceError('object field')) : Promise.resolve(scope)
  },
  secretValue: () => Promise.reject(new OfflineSourceError('Secret')),
  configMapValue: () => Promise.reject(new OfflineSourceError('ConfigMap')),
  objectField: () => Promise.reject(new OfflineSourceError('object field')),
}

type Parameters = { ok: true; values: Record<string, ParamValue> } | { ok: false; reason: string; message: string }

async function offlineParameters(template: Template, instance: TemplateInstance): Promise<Parameters> {
  try {
    const r = await resolveParameters({ template, instance, sources: offlineSources })
    return r.ok ? { ok: true, values: r.values } : { ok: false, reason: r.reason, message: r.message }
  } catch (err) {
    if (!(err instanceof OfflineSourceError)) throw err
    // Parameters resolve in declaration order and the first source read ends it: that parameter is the first with valueFrom.
    const entries = new Map((instance.spec.parameters ?? []).map((p) => [p.name, p]))
    const first = (template.spec.parameters ?? []).map((d) => entries.get(d.name)).find((p) => p?.valueFrom !== undefined)
    const name = first?.name ?? '?'
    const from = first?.valueFrom === undefined ? 'a valueFrom source' : describeSource(first.valueFrom, instance.metadata?.namespace ?? '')
    throw new CommandError(
      `parameter ${JSON.stringify(name)} reads ${from} (valueFrom), which needs a cluster: pass --kubeconfig, or set the value with --set ${name}=VALUE`,
      1,
    )
  }
}

function offlineScopeOf(apiVersion: string, kind: string): boolean | undefined {
  return OFFLINE_SCOPES.get(`${parseApiVersion(apiVersion).group}/${kind}`)
}

/** Kind scopes from OFFLINE_SCOPES; each kind outside it gets one note. */
function offlineScope(notes: string[]): ScopeSource {
  const unknown = new Set<string>()
  return {
    namespaced(apiVersion, kind) {
      const scope = offlineScopeOf(apiVersion, kind)
      const gvk = `${apiVersion} ${kind}`
      if (scope === undefined && !unknown.has(gvk)) {
        unknown.add(gvk)
        notes.push(
          `${gvk}: whether this kind is namespaced is not known without --kubeconfig; metadata.namespace is left as the chart wrote it`,
        )
      }
      return scope
    },
  }
}

function offlineRender(template: Template, instance: TemplateInstance, values: Record<string, ParamValue>, notes: string[]): RenderOutcome {
  const r = renderInstance({
    template,
    instance,
    values,
    isNamespaced: offlineScopeOf,
    deadline: performance.now() + DEFAULT_RENDER_TIMEOUT_MS,
  })
  if (!r.ok) return gotemplateFailure(template, DEFAULT_RENDER_TIMEOUT_MS, r)
  for (const gvk of r.unknownKinds) {
    notes.push(
      `${gvk}: whether this kind is namespaced is not known without --kubeconfig; metadata.namespace is left as the Template wrote it`,
    )
  }
  return { ok: true, objects: r.objects.map((o) => o.object as IdentifiedObject) }
}

/** Scope of common built-in kinds by "<group>/<kind>" (true: namespaced), for rendering without discovery. */
export const OFFLINE_SCOPES: ReadonlyMap<string, boolean> = new Map([
  ...[
    '/ConfigMap',
    '/Secret',
    '/Service',
    '/ServiceAccount',
    '/Pod',
    '/PersistentVolumeClaim',
    '/Endpoints',
    '/LimitRange',
    '/ResourceQuota',
    '/ReplicationController',
    '/Event',
    '/PodTemplate',
    'apps/Deployment',
    'apps/StatefulSet',
    'apps/DaemonSet',
    'apps/ReplicaSet',
    'apps/ControllerRevision',
    'batch/Job',
    'batch/CronJob',
    'networking.k8s.io/Ingress',
    'networking.k8s.io/NetworkPolicy',
    'rbac.authorization.k8s.io/Role',
    'rbac.authorization.k8s.io/RoleBinding',
    'policy/PodDisruptionBudget',
    'autoscaling/HorizontalPodAutoscaler',
    'coordination.k8s.io/Lease',
    'discovery.k8s.io/EndpointSlice',
    'events.k8s.io/Event',
    `${GROUP}/Template`,
    `${GROUP}/TemplateInstance`,
  ].map((k): [string, boolean] => [k, true]),
  ...[
    '/Namespace',
    '/Node',
    '/PersistentVolume',
    'rbac.authorization.k8s.io/ClusterRole',
    'rbac.authorization.k8s.io/ClusterRoleBinding',
    'storage.k8s.io/StorageClass',
    'storage.k8s.io/CSIDriver',
    'apiextensions.k8s.io/CustomResourceDefinition',
    'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io/MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
    'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
    'scheduling.k8s.io/PriorityClass',
    'networking.k8s.io/IngressClass',
    'node.k8s.io/RuntimeClass',
    'apiregistration.k8s.io/APIService',
    'certificates.k8s.io/CertificateSigningRequest',
  ].map((k): [string, boolean] => [k, false]),
])
