// The webhook's informer caches: Templates, TemplateInstances and Namespaces
// in every namespace, plus the labelled targets of /scale requests and the
// labelled Pods (for evictions and bindings). Each is a Reflector (list+watch
// with relist, backoff and a stall watchdog) whose objects are cut down by
// transforms.ts. The admission path reads them through `lookups` and never
// calls the API server.
//
// The scale targets and Pods are watched as PartialObjectMetadata: only their
// metadata is read, and a full Deployment in every watch event of every write
// cost the webhook more CPU than judging the write.

import type { Logger } from 'pino'
import type { AdmissionLookups } from '../admission/decision.ts'
import type { KubeObject } from '../api/meta.ts'
import { GROUP, LABEL_INSTANCE, PLURAL_TEMPLATE, PLURAL_TEMPLATE_INSTANCE, VERSION } from '../api/names.ts'
import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import type { KubeClient } from '../kube/client.ts'
import { Reflector, type ReflectorOptions } from '../kube/reflector.ts'
import { IgnoreCache } from '../drift/ignore-cache.ts'
import { parseWatchLine } from './watch-line.ts'
import { createLookups, scaleTargetKey, type StoreReader } from './lookups.ts'
import { slimInstance, slimNamespace, slimPod, slimScaleTarget, slimTemplate, type SlimNamespace } from './transforms.ts'

export interface ScaleTargetResource {
  /** "" for the core group. */
  readonly group: string
  readonly version: string
  /** Plural resource name, e.g. "deployments". */
  readonly resource: string
}

/** The built-in kinds with a /scale subresource. Custom resources with one are not covered. */
export const DEFAULT_SCALE_TARGETS: readonly ScaleTargetResource[] = Object.freeze([
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'apps', version: 'v1', resource: 'statefulsets' },
  { group: 'apps', version: 'v1', resource: 'replicasets' },
  { group: '', version: 'v1', resource: 'replicationcontrollers' },
])

type Tuning = Pick<ReflectorOptions<KubeObject>, 'stallMs' | 'minBackoffMs' | 'maxBackoffMs' | 'pageSize' | 'watchTimeoutSeconds'>

export interface WebhookCachesOptions {
  readonly client: KubeClient
  readonly log: Logger
  /** Kinds whose /scale requests are judged; [] turns the scale caches off. */
  readonly scaleTargets?: readonly ScaleTargetResource[]
  /** Cache the rendered Pods for pods/eviction and pods/binding (default true; needs list/watch on pods). */
  readonly pods?: boolean
  /** Reflector timings (tests shorten them). */
  readonly tuning?: Tuning
  /** Called once per Template generation whose ignoreFields does not compile. */
  readonly onIgnoreCompileError?: (template: Template, error: unknown) => void
}

const collectionPath = (group: string, version: string, resource: string): string =>
  group === '' ? `/api/${version}/${resource}` : `/apis/${group}/${version}/${resource}`

export class WebhookCaches {
  readonly templates: Reflector<Template>
  readonly instances: Reflector<TemplateInstance>
  readonly namespaces: Reflector<SlimNamespace>
  /** By "<group>/<resource>". */
  readonly scaleTargets: ReadonlyMap<string, Reflector<KubeObject>>
  readonly pods: Reflector<KubeObject> | undefined
  readonly ignore: IgnoreCache
  readonly lookups: AdmissionLookups
  private readonly log: Logger

  constructor(opts: WebhookCachesOptions) {
    this.log = opts.log
    const base = (name: string): Pick<ReflectorOptions<KubeObject>, 'name' | 'onRecover'> & Tuning => ({
      ...opts.tuning,
      name,
      onRecover: (kind, detail) => this.log.warn({ cache: name, recovery: kind }, detail),
    })
    this.templates = new Reflector<Template>(opts.client, {
      ...base('templates'),
      path: collectionPath(GROUP, VERSION, PLURAL_TEMPLATE),
      transform: slimTemplate,
    })
    this.instances = new Reflector<TemplateInstance>(opts.client, {
      ...base('templateinstances'),
      path: collectionPath(GROUP, VERSION, PLURAL_TEMPLATE_INSTANCE),
      transform: slimInstance,
    })
    this.namespaces = new Reflector<SlimNamespace>(opts.client, {
      ...base('namespaces'),
      path: collectionPath('', 'v1', 'namespaces'),
      transform: slimNamespace,
    })
    const scale = new Map<string, Reflector<KubeObject>>()
    for (const r of opts.scaleTargets ?? DEFAULT_SCALE_TARGETS) {
      const key = scaleTargetKey(r.group, r.resource)
      scale.set(
        key,
        new Reflector<KubeObject>(opts.client, {
          ...base(`scale-targets:${key}`),
          path: collectionPath(r.group, r.version, r.resource),
          // Only rendered objects carry the instance label; the rest of the cluster is not cached.
          labelSelector: LABEL_INSTANCE,
          metadataOnly: true,
          parseWatchLine,
          transform: slimScaleTarget,
        }),
      )
    }
    this.scaleTargets = scale
    this.pods =
      (opts.pods ?? true)
        ? new Reflector<KubeObject>(opts.client, {
            ...base('pods'),
            path: collectionPath('', 'v1', 'pods'),
            labelSelector: LABEL_INSTANCE,
            metadataOnly: true,
            parseWatchLine,
            transform: slimPod,
          })
        : undefined
    this.ignore = new IgnoreCache(opts.onIgnoreCompileError ? { onCompileError: opts.onIgnoreCompileError } : {})
    // A deleted Template's compiled entry would otherwise stay until the process ends.
    this.templates.on('delete', (t) => this.ignore.forget(t.metadata?.uid))
    const scaleReaders = new Map<string, StoreReader<KubeObject>>(scale)
    this.lookups = createLookups({
      templates: this.templates,
      instances: this.instances,
      namespaces: this.namespaces,
      ignore: this.ignore,
      scaleTargets: scaleReaders,
      ...(this.pods !== undefined && { pods: this.pods }),
    })
  }

  /** Every reflector, for readiness and metrics. */
  all(): Reflector<KubeObject>[] {
    const all = [this.templates, this.instances, this.namespaces, ...this.scaleTargets.values()] as Reflector<KubeObject>[]
    if (this.pods !== undefined) all.push(this.pods)
    return all
  }

  start(): this {
    for (const r of this.all()) r.start()
    return this
  }

  hasSynced(): boolean {
    return this.all().every((r) => r.hasSynced())
  }

  /** Resolves once every cache has completed its first list. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all(this.all().map((r) => r.waitForSync(signal)))
  }

  /** Names of the caches that have not synced yet, for readiness messages. */
  pending(): string[] {
    return this.all()
      .filter((r) => !r.hasSynced())
      .map((r) => r.name)
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((r) => r.stop()))
  }
}
