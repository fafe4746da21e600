// Probes and metrics of a process (webhook or reconciler) on a separate
// plain-HTTP port, so that kubelet and Prometheus never depend on the serving
// certificate.
//   /healthz  the process answers (liveness stays shallow: no API server check)
//   /readyz   caches synced and not shutting down; 503 with the reasons otherwise
//   /metrics  Prometheus text format

import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { MetricsRegistry } from './metrics.ts'

export interface Readiness {
  readonly ready: boolean
  /** Why not ready, e.g. ["cache templates not synced"]; empty when ready. */
  readonly reasons: readonly string[]
}

export interface HealthAppOptions {
  readonly log: Logger
  readonly registry: MetricsRegistry
  readonly readiness: () => Readiness
}

export function buildHealthApp(opts: HealthAppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.log,
    logController: new LogController({ disableRequestLogging: true }),
    // Probes carry no body.
    bodyLimit: 1024,
    requestTimeout: 10_000,
  }) as unknown as FastifyInstance

  app.get('/healthz', async (_req, reply) => {
    reply.type('text/plain; charset=utf-8')
    return 'ok\n'
  })

  app.get('/readyz', async (_req, reply) => {
    const r = opts.readiness()
    reply.type('text/plain; charset=utf-8')
    if (r.ready) return 'ok\n'
    reply.code(503)
    return `not ready: ${r.reasons.join('; ')}\n`
  })

  app.get('/metrics', async (_req, reply) => {
    reply.type(opts.registry.contentType)
    return opts.registry.render()
  })

  return app
}
