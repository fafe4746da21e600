// Entry point of `template-sync reconciler`: settings, logger, API client,
// health/metrics listener, and leader election. Only the leader runs the
// Manager; a replica that loses its lease stops all work and exits so that a
// fresh process (with fresh caches) campaigns again.

import { parseArgs } from 'node:util'
import { hostname } from 'node:os'
import pino, { type Logger } from 'pino'
import { KubeClient } from '../kube/client.ts'
import { LeaderElector } from '../kube/lease.ts'
import { EventRecorder } from '../kube/events.ts'
import { Manager } from '../controller/manager.ts'
import type { KubeObject } from '../api/meta.ts'
import { DEFAULT_INSTANCE_OPTIONS, type EventSink } from '../controller/instance.ts'
import { buildHealthApp } from '../telemetry/health.ts'
import { logTo } from '../telemetry/log.ts'
import { createProcessRegistry } from '../telemetry/metrics.ts'
import { createRenderPipeline, createTemplateValidator } from './wiring.ts'
import { observeReconciler } from './metrics.ts'
import { createHelmSupport } from './helm.ts'
import { createRenderPool } from './render-pool.ts'
import { DEFAULT_RENDER_TIMEOUT_MS } from '../render/time-limit.ts'
import { COMPONENT_FLAGS, type ComponentTable, componentTableFrom } from '../api/writers.ts'

export interface ReconcilerConfig {
  kubeconfig: string | undefined
  healthHost: string
  healthPort: number
  leaseNamespace: string
  leaseName: string
  workers: number
  logLevel: string
  leaseDurationMs: number
  renewDeadlineMs: number
  retryPeriodMs: number
  /** Cap of the per-object correction backoff under a fight (src/apply/fight.ts). */
  correctionBackoffMaxMs: number
  /** host[:port] of OCI chart registries reached over plain HTTP instead of HTTPS. */
  helmPlainHttpRegistries: string[]
  /** The time limit of every render: Go templates, valuesTemplates, charts (docs/render-time-limit.md). */
  renderTimeoutMs: number
  /** The cluster's components, whose additions to rendered objects are theirs (docs/writers.md). */
  components: ComponentTable
}

export class ReconcilerConfigError extends Error {}

const FLAGS = {
  kubeconfig: { env: 'TEMPLATE_SYNC_KUBECONFIG', help: 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster)' },
  'health-address': { env: 'TEMPLATE_SYNC_HEALTH_ADDRESS', help: 'address of the plain-HTTP health and metrics listener' },
  'health-port': { env: 'TEMPLATE_SYNC_HEALTH_PORT', help: 'port of the health and metrics listener (default 8082)' },
  'leader-election-namespace': {
    env: 'TEMPLATE_SYNC_LEADER_ELECTION_NAMESPACE',
    help: 'namespace of the leader-election Lease (default: the pod namespace, else default)',
  },
  'leader-election-name': {
    env: 'TEMPLATE_SYNC_LEADER_ELECTION_NAME',
    help: 'name of the leader-election Lease (default template-sync-reconciler)',
  },
  'lease-duration-seconds': { env: 'TEMPLATE_SYNC_LEASE_DURATION_SECONDS', help: 'lease duration (default 15)' },
  workers: { env: 'TEMPLATE_SYNC_WORKERS', help: 'concurrent TemplateInstance reconciles (default 8)' },
  'correction-backoff-max-seconds': {
    env: 'TEMPLATE_SYNC_CORRECTION_BACKOFF_MAX_SECONDS',
    help: 'under a fight over a field, correct again at least this often (default 300)',
  },
  'render-timeout-seconds': {
    env: 'TEMPLATE_SYNC_RENDER_TIMEOUT_SECONDS',
    help: 'a render (Go template, valuesTemplate, chart) that runs longer is stopped: RenderTimeout (default 10)',
  },
  'helm-plain-http-registries': {
    env: 'TEMPLATE_SYNC_HELM_PLAIN_HTTP_REGISTRIES',
    help: 'comma-separated host[:port] of OCI chart registries spoken to over plain HTTP (default none)',
  },
  'log-level': { env: 'TEMPLATE_SYNC_LOG_LEVEL', help: 'fatal, error, warn, info, debug, trace or silent (default info)' },
  ...COMPONENT_FLAGS,
} as const

export function reconcilerUsage(): string {
  return [
    'usage: template-sync reconciler [flags]',
    '',
    ...Object.entries(FLAGS).map(([f, s]) => `  --${f.padEnd(26)} ${s.help} [$${s.env}]`),
    '',
  ].join('\n')
}

function int(v: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new ReconcilerConfigError(`${what} must be an integer in ${min}..${max}, got ${JSON.stringify(v)}`)
  return Number(v)
}

export function parseReconcilerConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ReconcilerConfig {
  let flags: Partial<Record<keyof typeof FLAGS, string>>
  try {
    const options = Object.fromEntries(Object.keys(FLAGS).map((k) => [k, { type: 'string' as const }]))
    flags = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Partial<
      Record<keyof typeof FLAGS, string>
    >
  } catch (e) {
    throw new ReconcilerConfigError(`${(e as Error).message}\n${reconcilerUsage()}`)
  }
  const get = (k: keyof typeof FLAGS): string | undefined => flags[k] ?? env[FLAGS[k].env]
  const leaseSeconds = int(get('lease-duration-seconds') ?? '15', '--lease-duration-seconds', 2, 3600)
  const logLevel = get('log-level') ?? 'info'
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    throw new ReconcilerConfigError(`--log-level: unknown level ${JSON.stringify(logLevel)}`)
  return {
    kubeconfig: get('kubeconfig'),
    healthHost: get('health-address') ?? '0.0.0.0',
    healthPort: int(get('health-port') ?? '8082', '--health-port', 0, 65535),
    leaseNamespace: get('leader-election-namespace') ?? env.POD_NAMESPACE ?? 'default',
    leaseName: get('leader-election-name') ?? 'template-sync-reconciler',
    workers: int(get('workers') ?? '8', '--workers', 1, 64),
    logLevel,
    leaseDurationMs: leaseSeconds * 1000,
    renewDeadlineMs: Math.max(1000, Math.floor(leaseSeconds * 1000 * (2 / 3))),
    retryPeriodMs: Math.max(500, Math.floor((leaseSeconds * 1000) / 7.5)),
    correctionBackoffMaxMs:
      int(
        get('correction-backoff-max-seconds') ?? String(DEFAULT_INSTANCE_OPTIONS.correctionBackoffMaxMs / 1000),
        '--correction-backoff-max-seconds',
        1,
        3600,
      ) * 1000,
    renderTimeoutMs:
      int(get('render-timeout-seconds') ?? String(DEFAULT_RENDER_TIMEOUT_MS / 1000), '--render-timeout-seconds', 1, 600) * 1000,
    helmPlainHttpRegistries: (get('helm-plain-http-registries') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== ''),
    components: componentTableFrom(get),
  }
}

export function eventSink(recorder: EventRecorder): EventSink {
  const involved = (o: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string; uid?: string } => ({
    apiVersion: o.apiVersion ?? '',
    kind: o.kind ?? '',
    name: o.metadata?.name ?? '',
    ...(o.metadata?.namespace ? { namespace: o.metadata.namespace } : {}),
    ...(o.metadata?.uid ? { uid: o.metadata.uid } : {}),
  })
  return {
    normal: (o, reason, message) => void recorder.record(involved(o), 'Normal', reason, message),
    warning: (o, reason, message) => void recorder.record(involved(o), 'Warning', reason, message),
  }
}

export interface RunReconcilerOptions {
  argv: readonly string[]
  env: Readonly<Record<string, string | undefined>>
  handleSignals?: boolean
  log?: Logger
  /** Stops the reconciler like SIGTERM does (tests that run it in-process). */
  signal?: AbortSignal
  /** Called once the health and metrics listener is up, with its http:// URL. */
  onListening?: (healthUrl: string) => void
}

/** Runs until a signal stops it or the lease is lost; resolves with the exit code. */
export async function runReconciler(options: RunReconcilerOptions): Promise<number> {
  let config: ReconcilerConfig
  try {
    config = parseReconcilerConfig(options.argv, options.env)
  } catch (e) {
    ;(options.log ?? pino()).fatal({ err: e }, 'invalid reconciler settings')
    return 2
  }
  const log =
    options.log ??
    pino({ level: config.logLevel, base: { component: 'template-sync-reconciler' }, timestamp: pino.stdTimeFunctions.isoTime })
  const client = config.kubeconfig
    ? KubeClient.fromFile(config.kubeconfig, 'template-sync-reconciler')
    : KubeClient.fromDefault('template-sync-reconciler')
  const registry = createProcessRegistry()
  const identity = `${options.env.POD_NAME ?? hostname()}-${Math.random().toString(36).slice(2, 8)}`
  const recorder = new EventRecorder({
    client,
    reportingInstance: identity,
    log: logTo(log),
  })
  // One chart fetcher (and cache) and one render pool for the life of the process, across leadership terms.
  // Renders are awaited by the instance workers and the Template worker: with a worker thread for each of
  // them beyond the pool's two, a slow render never holds up another.
  const helm = createHelmSupport({
    client,
    plainHttpRegistries: config.helmPlainHttpRegistries,
    timeoutMs: config.renderTimeoutMs,
    renderer: createRenderPool({ size: 2, maxWorkers: 2 + config.workers + 1 }),
  })
  let manager: Manager | undefined
  let leading = false
  let stopping = false

  const health = buildHealthApp({
    log: log.child({ listener: 'health' }),
    registry,
    readiness: () => {
      if (stopping) return { ready: false, reasons: ['shutting down'] }
      // A standby replica is healthy and ready to take over.
      if (!leading) return { ready: true, reasons: [] }
      return manager?.ready() ? { ready: true, reasons: [] } : { ready: false, reasons: ['caches not synced'] }
    },
  })
  const healthUrl = await health.listen({ host: config.healthHost, port: config.healthPort })
  options.onListening?.(healthUrl)

  let exitCode = 0
  const elector = new LeaderElector({
    client,
    namespace: config.leaseNamespace,
    name: config.leaseName,
    identity,
    leaseDurationMs: config.leaseDurationMs,
    renewDeadlineMs: config.renewDeadlineMs,
    retryPeriodMs: config.retryPeriodMs,
    log: logTo(log),
    callbacks: {
      onStartedLeading: async (signal) => {
        leading = true
        log.info({ identity, lease: `${config.leaseNamespace}/${config.leaseName}` }, 'became leader; starting reconcilers')
        manager = new Manager({
          client,
          pipeline: createRenderPipeline(client, helm),
          validator: createTemplateValidator(helm),
          events: eventSink(recorder),
          log,
          registry,
          workers: config.workers,
          instanceOptions: { correctionBackoffMaxMs: config.correctionBackoffMaxMs },
          components: config.components,
        })
        const m = manager
        signal.addEventListener('abort', () => void m.shutdown(), { once: true })
        await m.start()
        await new Promise<void>((resolve) =>
          signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
        )
        await m.shutdown()
      },
      onStoppedLeading: () => {
        leading = false
        if (!stopping) {
          log.error({ identity }, 'lost the leader lease; stopping all work and exiting')
          exitCode = 1
          stopping = true
        }
      },
      onNewLeader: (id) => log.info({ leader: id }, 'leader observed'),
    },
  })
  const unobserve = observeReconciler(registry, {
    leaseName: config.leaseName,
    elector,
    requests: client.counter,
    manager: () => (leading ? manager : undefined),
  })

  const done = new Promise<void>((resolve) => {
    const stop = (sig: string): void => {
      if (stopping && exitCode === 0) return
      stopping = true
      log.info({ signal: sig }, 'shutting down')
      void elector.stop().finally(resolve)
    }
    if (options.handleSignals ?? true) {
      process.once('SIGTERM', () => stop('SIGTERM'))
      process.once('SIGINT', () => stop('SIGINT'))
    }
    if (options.signal?.aborted) stop('abort')
    else options.signal?.addEventListener('abort', () => stop('abort'), { once: true })
    void elector.run().then(
      () => resolve(),
      (e: unknown) => {
        log.error({ err: e }, 'leader election failed')
        exitCode = 1
        resolve()
      },
    )
  })
  await done
  unobserve()
  await recorder.flush()
  await helm.close()
  await health.close()
  client.close()
  return exitCode
}
