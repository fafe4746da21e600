// The webhook process wiring: caches, the TLS admission app, the health app
// and the certificate watcher, started and stopped in order. Signals are not
// handled here (main.ts owns them); `shutdown()` is the graceful sequence.

import type { Server as TlsServer } from 'node:tls'
import { getHeapStatistics } from 'node:v8'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { AdmissionConfig } from '../admission/decision.ts'
import type { KubeClient } from '../kube/client.ts'
import { buildWebhookApp, DEFAULT_BODY_LIMIT, SMALL_BODY_BYTES } from './app.ts'
import { WebhookCaches, type ScaleTargetResource, type WebhookCachesOptions } from './caches.ts'
import { CertWatcher } from './cert-watcher.ts'
import { loadKeyPair, type KeyPair, type KeyPairFiles } from './keypair.ts'
import type { ClientAuth } from './client-auth.ts'
import { MemoryBudget } from './memory-budget.ts'
import { createWebhookMetrics, observeCaches, type WebhookMetrics } from './metrics.ts'
import { parseAllowance, sizeFor } from './sizing.ts'
import { buildHealthApp, type Readiness } from '../telemetry/health.ts'
import { createProcessRegistry } from '../telemetry/metrics.ts'

export interface WebhookServerOptions {
  readonly client: KubeClient
  readonly log: Logger
  readonly config: AdmissionConfig
  /** Directory holding the serving pair (a mounted kubernetes.io/tls Secret). */
  readonly certDir: string
  readonly certFile?: string
  readonly keyFile?: string
  readonly host?: string
  /** 0 picks a free port. */
  readonly port?: number
  readonly healthHost?: string
  readonly healthPort?: number
  /** The webhook's metrics, in a registry shared with other components; otherwise in a new registry with the process metrics. */
  readonly metrics?: WebhookMetrics
  readonly scaleTargets?: readonly ScaleTargetResource[]
  readonly cacheTuning?: WebhookCachesOptions['tuning']
  /** Time between readiness turning false and the listener closing, so endpoints drop the pod first. */
  readonly drainMs?: number
  readonly certPollMs?: number
  readonly certDebounceMs?: number
  readonly bodyLimit?: number
  readonly requestTimeoutMs?: number
  readonly handshakeTimeoutMs?: number
  readonly firstRequestTimeoutMs?: number
  /** Require client certificates from this CA (and names) at the TLS layer. */
  readonly clientAuth?: ClientAuth
  /** Cache rendered Pods for evictions and bindings (default true). */
  readonly podCache?: boolean
  /** The container's memory limit; V8's heap limit is used when it is not given. */
  readonly memoryLimitBytes?: number
  /** Overrides the connection cap derived from the memory limit. */
  readonly maxConnections?: number
}

export interface WebhookServer {
  /** https://host:port of the admission listener. */
  readonly url: string
  readonly port: number
  /** http://host:port of the health listener. */
  readonly healthUrl: string
  readonly caches: WebhookCaches
  readonly metrics: WebhookMetrics
  readonly certs: CertWatcher
  readonly app: FastifyInstance
  readiness(): Readiness
  /** Resolves once every cache has synced. */
  synced(): Promise<void>
  /** Readiness false, wait drainMs, stop accepting, finish in-flight requests, stop caches. Idempotent. */
  shutdown(): Promise<void>
  /** Settles when a shutdown, started by anyone, has finished. */
  closed(): Promise<void>
}

function addressOf(app: FastifyInstance): { host: string; port: number } {
  const a = app.server.address()
  if (a === null || typeof a === 'string') throw new Error(`unexpected listener address ${String(a)}`)
  return { host: a.family === 'IPv6' ? `[${a.address}]` : a.address, port: a.port }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * Connections the kernel may queue before the webhook accepts them (it caps
 * this at net.core.somaxconn, 4096 by default). Node's 511 overflowed under a
 * flood of newcomers, and the kernel then drops a SYN, the API server's among
 * them, which waits a second for its retransmission (docs/webhook-limits.md).
 */
export const ACCEPT_BACKLOG = 4096

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const log = opts.log
  const files: KeyPairFiles = { dir: opts.certDir, certFile: opts.certFile ?? 'tls.crt', keyFile: opts.keyFile ?? 'tls.key' }
  // A missing or broken pair at start is fatal: there is no old pair to fall back to.
  const initial: KeyPair = loadKeyPair(files)
  const metrics = opts.metrics ?? createWebhookMetrics(createProcessRegistry())
  metrics.certNotAfter.set(initial.notAfter.getTime() / 1000)

  const caches = new WebhookCaches({
    client: opts.client,
    log: log.child({ component: 'webhook-caches' }),
    ...(opts.scaleTargets ? { scaleTargets: opts.scaleTargets } : {}),
    ...(opts.cacheTuning ? { tuning: opts.cacheTuning } : {}),
    ...(opts.podCache !== undefined ? { pods: opts.podCache } : {}),
    onIgnoreCompileError: (template, err) => {
      metrics.ignoreCompileErrors.inc()
      log.warn(
        {
          err,
          template: `${template.metadata?.namespace ?? ''}/${template.metadata?.name ?? ''}`,
          generation: template.metadata?.generation,
        },
        'Template sync.ignoreFields does not compile; no field is exempt for it',
      )
    },
  })
  const unobserve = observeCaches(metrics, caches.all())

  let shuttingDown = false
  const readiness = (): Readiness => {
    const reasons: string[] = []
    if (shuttingDown) reasons.push('shutting down')
    for (const name of caches.pending()) reasons.push(`cache ${name} not synced`)
    return { ready: reasons.length === 0, reasons }
  }
  const unregisterReady = metrics.registry.onCollect(() => metrics.ready.set(readiness().ready ? 1 : 0))

  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT
  const heapLimit = getHeapStatistics().heap_size_limit
  const memoryLimit = opts.memoryLimitBytes ?? heapLimit
  const sizing = sizeFor(memoryLimit, bodyLimit)
  const maxConnections = opts.maxConnections ?? sizing.maxConnections
  if (opts.memoryLimitBytes !== undefined && heapLimit > opts.memoryLimitBytes) {
    log.warn(
      { heapLimitBytes: heapLimit, memoryLimitBytes: opts.memoryLimitBytes },
      "V8's heap limit is above the container's memory limit: the kernel, not V8, will stop a runaway heap (set --max-old-space-size)",
    )
  }
  const budget = new MemoryBudget({ capacity: sizing.budgetBytes, smallBytes: SMALL_BODY_BYTES, reservedForSmall: sizing.reservedForSmall })
  metrics.bodyBudgetCapacity.set(budget.capacity)
  const unobserveBudget = metrics.registry.onCollect(() => metrics.bodyBudgetUsed.set(budget.used))
  const app = buildWebhookApp({
    lookups: caches.lookups,
    config: opts.config,
    log: log.child({ component: 'webhook' }),
    metrics,
    canServe: () => caches.hasSynced(),
    isDraining: () => shuttingDown,
    tls: { key: initial.key, cert: initial.cert },
    bodyLimit,
    budget,
    maxConnections,
    maxParseBytes: parseAllowance(heapLimit),
    ...(opts.clientAuth !== undefined ? { clientAuth: opts.clientAuth } : {}),
    ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    ...(opts.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: opts.handshakeTimeoutMs } : {}),
    ...(opts.firstRequestTimeoutMs !== undefined ? { firstRequestTimeoutMs: opts.firstRequestTimeoutMs } : {}),
  })
  const health = buildHealthApp({ log: log.child({ component: 'health' }), registry: metrics.registry, readiness })

  const certs = new CertWatcher(
    {
      files,
      log: log.child({ component: 'cert-watcher' }),
      onLoad: (pair) => {
        // New handshakes use the new pair; open keep-alive connections finish on the old one.
        // The client CA belongs to the secure context too: without it, no client certificate would verify.
        ;(app.server as unknown as TlsServer).setSecureContext({
          key: pair.key,
          cert: pair.cert,
          minVersion: 'TLSv1.2',
          ...(opts.clientAuth !== undefined ? { ca: opts.clientAuth.ca } : {}),
        })
        metrics.certReloads.inc({ result: 'loaded' })
        metrics.certNotAfter.set(pair.notAfter.getTime() / 1000)
      },
      onReject: () => metrics.certReloads.inc({ result: 'rejected' }),
      ...(opts.certPollMs !== undefined ? { pollMs: opts.certPollMs } : {}),
      ...(opts.certDebounceMs !== undefined ? { debounceMs: opts.certDebounceMs } : {}),
    },
    initial,
  )

  caches.start()
  // Aborted on stop, so that nobody waits forever for a sync that will not come.
  const stopped = new AbortController()
  const stopAll = async (): Promise<void> => {
    stopped.abort()
    certs.close()
    unobserve()
    unregisterReady()
    unobserveBudget()
    await Promise.allSettled([app.close(), health.close(), caches.stop()])
  }
  try {
    await app.listen({ host: opts.host ?? '0.0.0.0', port: opts.port ?? 9443, backlog: ACCEPT_BACKLOG })
    await health.listen({ host: opts.healthHost ?? opts.host ?? '0.0.0.0', port: opts.healthPort ?? 8081 })
    certs.start()
  } catch (err) {
    await stopAll()
    throw err
  }
  const main = addressOf(app)
  const probe = addressOf(health)
  log.info(
    {
      url: `https://${main.host}:${main.port}`,
      health: `http://${probe.host}:${probe.port}`,
      fingerprint: initial.fingerprint,
      notAfter: initial.notAfter.toISOString(),
      clientCertificates: opts.clientAuth === undefined ? 'not required' : 'required',
      bodyLimitBytes: bodyLimit,
      bodyBudgetBytes: sizing.budgetBytes,
      parseAllowanceBytes: parseAllowance(heapLimit),
      maxConnections,
      heapLimitBytes: heapLimit,
      ...(opts.memoryLimitBytes !== undefined ? { memoryLimitBytes: opts.memoryLimitBytes } : {}),
    },
    'webhook listening; waiting for caches to sync',
  )
  const syncedPromise = caches.waitForSync(stopped.signal)
  syncedPromise.then(
    () => log.info('webhook caches synced; ready'),
    () => {},
  )

  let shutdownPromise: Promise<void> | undefined
  let markClosed: (p: Promise<void>) => void = () => {}
  const closedPromise = new Promise<void>((resolve, reject) => {
    markClosed = (p) => p.then(resolve, reject)
  })
  const shutdown = (): Promise<void> => {
    if (shutdownPromise !== undefined) return shutdownPromise
    shutdownPromise = (async () => {
      shuttingDown = true
      const drainMs = opts.drainMs ?? 5_000
      log.info({ drainMs }, 'shutting down: readiness is false, draining before the listener closes')
      await sleep(drainMs)
      await stopAll()
      log.info('webhook stopped')
    })()
    markClosed(shutdownPromise)
    return shutdownPromise
  }

  return {
    url: `https://${main.host}:${main.port}`,
    port: main.port,
    healthUrl: `http://${probe.host}:${probe.port}`,
    caches,
    metrics,
    certs,
    app,
    readiness,
    synced: () => syncedPromise,
    shutdown,
    closed: () => closedPromise,
  }
}
