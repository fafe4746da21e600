// What the instance pass is given: its options, the reconciler's caches and
// clients, and where Events go. Shared by the driver (../instance.ts) and its
// steps.

import type { ChangeMetrics } from '../metrics.ts'
import type { Logger } from 'pino'
import type { KubeObject } from '../../api/meta.ts'
import type { Template } from '../../api/template.ts'
import type { TemplateInstance } from '../../api/templateinstance.ts'
import { DEFAULT_FIGHT_OPTIONS } from '../../apply/fight.ts'
import type { IgnoreCache } from '../../drift/ignore-cache.ts'
import type { KubeClient } from '../../kube/client.ts'
import type { ObjectClient } from '../../kube/objects.ts'
import type { ComponentTable } from '../../api/writers.ts'
import type { RenderPipeline } from '../pipeline.ts'
import type { WatchRegistry } from '../registry.ts'

export interface EventSink {
  normal(obj: KubeObject, reason: string, message: string): void
  warning(obj: KubeObject, reason: string, message: string): void
}

export interface ReconcileResult {
  requeueAfterMs?: number
}

export interface InstanceReconcilerOptions {
  /** Quick re-drifts of one object in a row (see conflictWindowMs) from which a fight is reported as DriftConflict. */
  conflictThreshold: number
  /** A re-drift within this long after our correction is quick; a correction that holds this long ends a fight. */
  conflictWindowMs: number
  /** Wait before correcting an object that drifted again right after a correction; doubles per quick re-drift. */
  correctionBackoffMs: number
  /** Cap of that wait: under a fight the rendered state is applied again at least this often. */
  correctionBackoffMaxMs: number
  /** A wait ends once no one has written the object for this long (the other writer stopped). */
  correctionQuietMs: number
  templateNotFoundRequeueMs: number
  /** A render naming a kind the API server does not serve is looked at again after this long, also without a discovery event. */
  kindNotFoundRequeueMs: number
}

export const DEFAULT_INSTANCE_OPTIONS: InstanceReconcilerOptions = {
  conflictThreshold: DEFAULT_FIGHT_OPTIONS.threshold,
  conflictWindowMs: DEFAULT_FIGHT_OPTIONS.windowMs,
  correctionBackoffMs: DEFAULT_FIGHT_OPTIONS.backoffMs,
  correctionBackoffMaxMs: DEFAULT_FIGHT_OPTIONS.backoffMaxMs,
  correctionQuietMs: DEFAULT_FIGHT_OPTIONS.quietMs,
  templateNotFoundRequeueMs: 30_000,
  kindNotFoundRequeueMs: 30_000,
}

export interface InstanceDeps {
  client: KubeClient
  objects: ObjectClient
  getTemplate(namespace: string, name: string): Template | undefined
  getInstance(namespace: string, name: string): TemplateInstance | undefined
  getNamespaceLabels(name: string): Record<string, string> | undefined
  /** Shared drift watches, keyed by tracked kind. */
  drift: WatchRegistry
  /** Shared parameter-source watches, keyed by collectionKey() (sourceWatchKeys). */
  sources: WatchRegistry
  /** Watches of single objects an instance is in an ownership conflict with, keyed by objectKey(). */
  conflicts: WatchRegistry
  pipeline: RenderPipeline
  /** Compiled ignoreFields per Template (forget() on Template delete). */
  ignore: IgnoreCache
  events: EventSink
  log: Logger
  now(): Date
  /** The cluster's components: what they add to a rendered object is theirs (docs/writers.md). */
  components: ComponentTable
  options?: Partial<InstanceReconcilerOptions>
  /** Counts what each pass did (corrections, fights, failed requests). */
  metrics?: ChangeMetrics
  /** Replacements of the pass's steps, for tests of the driver's order. */
  steps?: Partial<InstanceSteps>
}

/** The steps the driver calls, in their order (../instance.ts). */
export interface InstanceSteps {
  resolveTemplate: typeof import('./resolve-template.ts').resolveTemplate
  syncFrozen: typeof import('./freeze.ts').syncFrozen
  renderObjects: typeof import('./render.ts').renderObjects
  recordKinds: typeof import('./kinds.ts').recordKinds
  syncObjects: typeof import('./objects.ts').syncObjects
  refreshOutputs: typeof import('./outputs.ts').refreshOutputs
  setSynced: typeof import('./synced.ts').setSynced
}
