// The admission HTTP app: `POST /validate` over TLS. The body is parsed by a
// JSON-only parser and checked by the admission envelope code; no schema
// validator touches it (Fastify's Ajv defaults would coerce and strip fields
// of the objects being compared). Anything that is not a well-formed
// AdmissionReview gets a 4xx with a Status body, never a review, so it can
// never turn into an allow. Tests drive the app with inject; server.ts gives
// it a socket.

import type { Socket } from 'node:net'
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
import { BodyRefused, readBody } from './body-reader.ts'
import { clientAuthTlsOptions, type ClientAuth } from './client-auth.ts'
import { guardConnections, REVIEW_PATH } from './connections.ts'
import { logDecision, resultOf } from './decision-log.ts'
import { BodyError, MAX_JSON_DEPTH, MAX_JSON_VALUES, parseJsonBuffer } from './json-body.ts'
import { MemoryBudget } from './memory-budget.ts'
import type { WebhookMetrics } from './metrics.ts'
import { expectationRefusal, protocolRefusal, rawResponse, type ProtocolRefusal } from './protocol-errors.ts'

const MiB = 1024 * 1024

/**
 * Largest request body accepted, in bytes: the largest review the API server
 * can send (docs/webhook-limits.md has the arithmetic). A stored object is at
 * most 2 MiB, because kube-apiserver's etcd client sends at most 2 MiB per
 * request; the API server writes JSON with Go's encoder, which can make a
 * byte of a string six (`<` becomes `\u003c`); an UPDATE carries the object
 * twice; the envelope adds userInfo, which comes from at most 1 MiB of the
 * original request's headers, six times over at worst, and a little more.
 */
export const MAX_STORED_OBJECT_BYTES = 2 * MiB
export const JSON_ESCAPE_FACTOR = 6
export const MAX_USER_INFO_BYTES = JSON_ESCAPE_FACTOR * MiB
export const DEFAULT_BODY_LIMIT = 2 * JSON_ESCAPE_FACTOR * MAX_STORED_OBJECT_BYTES + MAX_USER_INFO_BYTES + 64 * 1024

/** Bodies up to this size are small: a slice of the memory budget is kept for them. */
export const SMALL_BODY_BYTES = MiB

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
  /** Require a client certificate from this CA (and one of these names) at the TLS layer. */
  readonly clientAuth?: ClientAuth
  readonly bodyLimit?: number
  readonly maxDepth?: number
  readonly maxValues?: number
  /** Most heap one parsed review may take, by the estimate of json-body.ts; more is answered 413. */
  readonly maxParseBytes?: number
  /** Bytes of bodies held at once while they arrive; a body that does not fit is answered 503. */
  readonly budget?: MemoryBudget
  /**
   * Open connections at most; more are dropped before the TLS handshake.
   * Near it, and past a peer's share of it, connections that have shown least
   * are closed to make room (connection-policy.ts).
   */
  readonly maxConnections?: number
  /** Whole-request deadline (slow senders). The API server's own timeout is at most 30 s. */
  readonly requestTimeoutMs?: number
  /**
   * Deadline for the headers of a request, counted from the connection's start
   * for its first request: a connection that says nothing is closed this soon.
   */
  readonly headersTimeoutMs?: number
  /** Idle keep-alive; longer than the 90 s idle timeout of Go HTTP clients, so the server never closes first. */
  readonly keepAliveTimeoutMs?: number
  /**
   * A new connection must complete the headers of its first request this soon
   * after the handshake, or it is closed. The API server writes its request at
   * once; a connection that says nothing only holds memory.
   */
  readonly firstRequestTimeoutMs?: number
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
  417: 'ExpectationFailed',
  431: 'RequestHeaderFieldsTooLarge',
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
  readonly maxValues: number
  readonly maxParseBytes: number | undefined
  readonly budget: MemoryBudget
}

function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d{1,15}$/.test(header)) return undefined
  return Number(header)
}

const validateRoute: FastifyPluginAsync<RouteOptions> = async (app, { deps, bodyLimit, maxDepth, maxValues, maxParseBytes, budget }) => {
  const { lookups, config, metrics } = deps
  const reject = (reply: FastifyReply, code: number, cause: string, message: string): StatusBody => {
    metrics.rejected.inc({ code: String(code), cause })
    reply.code(code)
    return statusBody(code, message)
  }

  // Only JSON; any other media type is answered 415 by Fastify. The body is
  // read by readBody (limit, memory budget, UTF-8) and parsed within bounds.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(payload, { declared: declaredLength(request.headers['content-length']), limit: bodyLimit, budget }).then(
      (body) => {
        let parsed: unknown
        try {
          parsed = parseJsonBuffer(body.bytes, { maxDepth, maxValues, ...(maxParseBytes !== undefined ? { maxParseBytes } : {}) })
        } catch (err) {
          done(err as Error, undefined)
          return
        } finally {
          body.release()
        }
        done(null, parsed)
      },
      (err: unknown) => done(err as Error, undefined),
    )
  })

  app.post(REVIEW_PATH, async (request, reply): Promise<AdmissionReview | StatusBody> => {
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
    metrics.decisions.inc({ result, reason: decision.reason, operation: req.operation, mode: decision.mode ?? 'none' })
    if (!decision.allowed) {
      const namespace = metrics.instanceNamespaces.of(namespaceOf(decision.owner) ?? req.namespace ?? '')
      metrics.denials.inc({ instance_namespace: namespace, reason: decision.reason })
    }
    metrics.duration.observe({ result }, elapsedMs / 1000)
    const length = Number(request.headers['content-length'])
    if (Number.isFinite(length)) metrics.bodyBytes.observe(length)
    logDecision(request.log, req, decision, elapsedMs)
    return review
  })
}

/** The namespace part of "<namespace>/<name>". */
function namespaceOf(ref: string | undefined): string | undefined {
  const slash = ref?.indexOf('/') ?? -1
  return ref !== undefined && slash > 0 ? ref.slice(0, slash) : undefined
}

/** The default budget: room for two of the largest bodies, with 8 MiB kept for small ones. */
export function defaultBudget(bodyLimit: number): MemoryBudget {
  const reservedForSmall = Math.min(8 * MiB, bodyLimit)
  return new MemoryBudget({ capacity: 2 * bodyLimit + reservedForSmall, smallBytes: SMALL_BODY_BYTES, reservedForSmall })
}

export function buildWebhookApp(deps: WebhookAppOptions): FastifyInstance {
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT
  const budget = deps.budget ?? defaultBudget(bodyLimit)
  const requestTimeout = deps.requestTimeoutMs ?? 30_000
  const headersTimeout = Math.min(deps.headersTimeoutMs ?? 5_000, requestTimeout)
  // Node checks request deadlines on a timer (30 s by default), so a slow
  // client could hold a socket for twice the deadline; these are set at
  // construction, which is the only time Node reads them.
  const socketTimeouts = {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.max(250, Math.min(1_000, Math.floor(headersTimeout / 4))),
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
    clientErrorHandler: (err: Error & { code?: string }, socket: Socket): void => answerProtocolError(deps, err, socket),
  }
  const app = (deps.tls
    ? Fastify({
        ...common,
        https: {
          ...socketTimeouts,
          key: deps.tls.key,
          cert: deps.tls.cert,
          minVersion: 'TLSv1.2',
          handshakeTimeout: deps.handshakeTimeoutMs ?? 5_000,
          ...clientAuthTlsOptions(deps.clientAuth),
        },
      })
    : Fastify({ ...common, http: socketTimeouts })) as unknown as FastifyInstance
  guardConnections(app, {
    metrics: deps.metrics,
    tls: deps.tls !== undefined,
    firstRequestTimeoutMs: deps.firstRequestTimeoutMs ?? 3_000,
    ...(deps.maxConnections !== undefined ? { maxConnections: deps.maxConnections } : {}),
    ...(deps.clientAuth !== undefined ? { clientAuth: deps.clientAuth } : {}),
  })
  answerExpectations(app, deps)

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const code = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500
    const cause =
      err instanceof BodyError || err instanceof BodyRefused
        ? err.problem
        : (CAUSE_BY_FASTIFY_CODE[err.code] ?? (code >= 500 ? 'Internal' : 'BadRequest'))
    deps.metrics.rejected.inc({ code: String(code), cause })
    // A body left unread must not be drained to keep the connection: close it after the answer.
    if (err instanceof BodyRefused) reply.header('connection', 'close')
    if (cause === 'Busy') reply.header('retry-after', '1')
    const message = errorMessage(err, cause, code, String(request.headers['content-type'] ?? ''), bodyLimit)
    if (cause === 'Busy') request.log.warn({ cause, code }, 'request refused: memory budget for bodies in flight is used up')
    else if (code >= 500) request.log.error({ err }, 'request failed')
    else request.log.info({ cause, code, problem: message }, 'request rejected')
    reply.code(code)
    return statusBody(code, message)
  })
  app.setNotFoundHandler((request, reply) => {
    deps.metrics.rejected.inc({ code: '404', cause: 'NotFound' })
    reply.code(404)
    return statusBody(404, `no route ${request.method} ${request.url.slice(0, 100)}; admission reviews go to POST /validate`)
  })
  void app.register(validateRoute, {
    deps,
    bodyLimit,
    maxDepth: deps.maxDepth ?? MAX_JSON_DEPTH,
    maxValues: deps.maxValues ?? MAX_JSON_VALUES,
    maxParseBytes: deps.maxParseBytes,
    budget,
  })
  return app
}

/** What an error answer says. Our own errors name no data; anything else is rephrased or kept generic. */
function errorMessage(err: FastifyError, cause: string, code: number, contentType: string, bodyLimit: number): string {
  if (err instanceof BodyError || err instanceof BodyRefused) return err.message
  if (cause === 'UnsupportedMediaType')
    return `content type ${JSON.stringify(contentType.slice(0, 100))} is not supported; send application/json`
  if (cause === 'BodyTooLarge') return `the request body exceeds the limit of ${bodyLimit} bytes`
  if (code >= 500) return 'internal error in the template-sync webhook; see its logs'
  return err.message
}

function statusJson(refusal: ProtocolRefusal): string {
  return JSON.stringify(statusBody(refusal.code, refusal.message))
}

/** Bytes that never became a request: answered with a Status body, then the connection is closed. */
function answerProtocolError(deps: WebhookAppOptions, err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer (Node's own rule for clientError).
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const refusal = protocolRefusal(err.code)
  deps.metrics.rejected.inc({ code: String(refusal.code), cause: refusal.cause })
  deps.log.info({ cause: refusal.cause, code: refusal.code, problem: err.code }, 'request rejected')
  if (socket.writable) socket.end(rawResponse(refusal.code, statusJson(refusal)))
  else socket.destroy()
}

/** Clear answers to an Expect header the server cannot meet. */
function answerExpectations(app: FastifyInstance, deps: WebhookAppOptions): void {
  app.server.on('checkExpectation', (_req, res) => {
    const refusal = expectationRefusal()
    deps.metrics.rejected.inc({ code: String(refusal.code), cause: refusal.cause })
    const body = statusJson(refusal)
    res.writeHead(refusal.code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' })
    res.end(body)
  })
}
