// The admission HTTP app: `POST /validate` over TLS. The body is parsed by a
// JSON-only parser and checked by the admission envelope code; no schema
// validator touches it (Fastify's Ajv defaults would coerce and strip fields
// of the objects being compared). Anything that is not a well-formed
// AdmissionReview gets a 4xx with a Status body, never a review, so it can
// never turn into an allow. Tests drive the app with inject; server.ts gives
// it a socket.

import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
} from 'fastify'
import type { Logger } from 'pino'
import { decide } from '../admission/decide.ts'
import type { AdmissionConfig, AdmissionLookups, Decision } from '../admission/decision.ts'
import { parseReview, toResponse } from '../admission/envelope.ts'
import type { AdmissionReview } from '../admission/types.ts'
import { logDecision, resultOf } from './decision-log.ts'
import { BodyError, MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts'
import type { WebhookMetrics } from './metrics.ts'

/**
 * Largest request body accepted, in bytes. See docs/webhook.md: an UPDATE
 * review carries the object twice, and the API server's JSON encoder turns
 * each of <, >, & and control characters into a six-byte escape, so a
 * ConfigMap at its 1 MiB data limit can arrive as far more than 2 MiB.
 */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

export interface WebhookTls {
  readonly key: string | Buffer
  readonly cert: string | Buffer
}

export interface WebhookAppOptions {
  readonly lookups: AdmissionLookups
  readonly config: AdmissionConfig
  readonly log: Logger
  readonly metrics: WebhookMetrics
  /**
   * False until the caches have synced. Requests are then answered 503, so
   * the API server applies the webhook's failurePolicy instead of a verdict
   * drawn from empty caches (where every owner would look missing).
   */
  readonly canServe: () => boolean
  /**
   * True while the process drains before closing. Answers then carry
   * `Connection: close`, so the API server opens its next connection through
   * the Service (to a pod that stays) instead of reusing this one.
   */
  readonly isDraining?: () => boolean
  /** Serve HTTPS with this pair; without it the app is plain HTTP (inject tests). */
  readonly tls?: WebhookTls
  readonly bodyLimit?: number
  readonly maxDepth?: number
  /** Whole-request deadline (slow senders). The API server's own timeout is at most 30 s. */
  readonly requestTimeoutMs?: number
  /** Idle keep-alive; longer than the 90 s idle timeout of Go HTTP clients, so the server never closes first. */
  readonly keepAliveTimeoutMs?: number
  /** Deadline for a TLS handshake to complete. */
  readonly handshakeTimeoutMs?: number
}

/** The Kubernetes Status object used for every error answer. */
export interface StatusBody {
  readonly apiVersion: 'v1'
  readonly kind: 'Status'
  readonly metadata: Record<string, never>
  readonly status: 'Failure'
  readonly code: number
  readonly reason: string
  readonly message: string
}

const REASON_BY_CODE: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  503: 'ServiceUnavailable',
}

/** Fastify's own error codes, as causes for metrics. */
const CAUSE_BY_FASTIFY_CODE: Readonly<Record<string, string>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BodyTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UnsupportedMediaType',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BadContentLength',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'EmptyBody',
  FST_ERR_CTP_INVALID_JSON_BODY: 'InvalidJSON',
}

function statusBody(code: number, message: string): StatusBody {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    code,
    reason: REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest'),
    message,
  }
}

interface RouteOptions {
  readonly deps: WebhookAppOptions
  readonly bodyLimit: number
  readonly maxDepth: number
}

const validateRoute: FastifyPluginAsync<RouteOptions> = async (app, { deps, bodyLimit, maxDepth }) => {
  const { lookups, config, metrics } = deps
  const reject = (reply: FastifyReply, code: number, cause: string, message: string): StatusBody => {
    metrics.rejected.inc({ code: String(code), cause })
    reply.code(code)
    return statusBody(code, message)
  }

  // Only JSON; any other media type is answered 415 by Fastify.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string, maxDepth))
    } catch (err) {
      done(err as Error, undefined)
    }
  })

  app.post('/validate', async (request, reply): Promise<AdmissionReview | StatusBody> => {
    const started = performance.now()
    const parsed = parseReview(request.body)
    if (!parsed.ok) {
      request.log.info({ cause: 'InvalidEnvelope', problem: parsed.error }, 'malformed admission review rejected')
      return reject(reply, 400, 'InvalidEnvelope', `not a valid admission.k8s.io/v1 AdmissionReview: ${parsed.error}`)
    }
    const req = parsed.review.request
    if (!deps.canServe()) {
      request.log.warn({ uid: req.uid }, 'admission request before the caches synced; answered 503')
      return reject(reply, 503, 'NotReady', 'the template-sync webhook caches have not synced yet')
    }
    let decision: Decision
    try {
      decision = decide(req, lookups, config)
    } catch (err) {
      request.log.error({ err, uid: req.uid }, 'admission decision failed')
      return reject(reply, 500, 'Internal', `template-sync could not decide request ${req.uid}; see the webhook logs`)
    }
    if (deps.isDraining?.() === true) reply.header('connection', 'close')
    const review = toResponse(req.uid, decision)
    const elapsedMs = performance.now() - started
    const result = resultOf(decision)
    metrics.decisions.inc({ result, reason: decision.reason, operation: req.operation })
    metrics.duration.observe(elapsedMs / 1000, { result })
    const length = Number(request.headers['content-length'])
    if (Number.isFinite(length)) metrics.bodyBytes.observe(length)
    logDecision(request.log, req, decision, elapsedMs)
    return review
  })
}

export function buildWebhookApp(deps: WebhookAppOptions): FastifyInstance {
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT
  const requestTimeout = deps.requestTimeoutMs ?? 30_000
  // Node checks request deadlines on a timer (30 s by default), so a slow
  // client could hold a socket for twice the deadline; these are set at
  // construction, which is the only time Node reads them.
  const socketTimeouts = {
    requestTimeout,
    headersTimeout: Math.min(10_000, requestTimeout),
    connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(requestTimeout / 4))),
  }
  const common = {
    loggerInstance: deps.log,
    // One line per decision is logged by the route; Fastify's per-request lines would double it.
    logController: new LogController({ disableRequestLogging: true }),
    // Every line the app writes names the review uid itself, so the per-request
    // child logger (a reqId binding) would be built and never read.
    childLoggerFactory: (logger: FastifyBaseLogger): FastifyBaseLogger => logger,
    bodyLimit,
    requestTimeout,
    keepAliveTimeout: deps.keepAliveTimeoutMs ?? 100_000,
    // During close, requests arriving on open connections get a prompt 503 instead of waiting on a closing socket.
    return503OnClosing: true,
    forceCloseConnections: 'idle' as const,
  }
  const app = (deps.tls
    ? Fastify({
        ...common,
        https: {
          ...socketTimeouts,
          key: deps.tls.key,
          cert: deps.tls.cert,
          minVersion: 'TLSv1.2',
          handshakeTimeout: deps.handshakeTimeoutMs ?? 10_000,
        },
      })
    : Fastify({ ...common, http: socketTimeouts })) as unknown as FastifyInstance

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const code = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500
    const cause = err instanceof BodyError ? err.problem : (CAUSE_BY_FASTIFY_CODE[err.code] ?? (code >= 500 ? 'Internal' : 'BadRequest'))
    deps.metrics.rejected.inc({ code: String(code), cause })
    let message = err.message
    if (cause === 'UnsupportedMediaType') {
      message = `content type ${JSON.stringify(String(request.headers['content-type'] ?? '').slice(0, 100))} is not supported; send application/json`
    } else if (cause === 'BodyTooLarge') {
      message = `the request body exceeds the limit of ${bodyLimit} bytes`
    } else if (code >= 500) {
      message = 'internal error in the template-sync webhook; see its logs'
    }
    if (code >= 500) request.log.error({ err }, 'request failed')
    else request.log.info({ cause, code, problem: message }, 'request rejected')
    reply.code(code)
    return statusBody(code, message)
  })
  app.setNotFoundHandler((request, reply) => {
    deps.metrics.rejected.inc({ code: '404', cause: 'NotFound' })
    reply.code(404)
    return statusBody(404, `no route ${request.method} ${request.url.slice(0, 100)}; admission reviews go to POST /validate`)
  })
  void app.register(validateRoute, { deps, bodyLimit, maxDepth: deps.maxDepth ?? MAX_JSON_DEPTH })
  return app
}
