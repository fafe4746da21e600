// The sockets side of the connection policy: each connection's events go to
// the ledger (connection-policy.ts), and what it says to close is closed. Also
// here: names checked on client certificates, and the deadline for a request
// on a connection that is not trusted (after its handshake, and after each
// answer that was not a review); a trusted one waits as long as keep-alive
// lets it, because the API server may be about to reuse it.

import type { Socket } from 'node:net'
import type { TLSSocket, Server as TlsServer } from 'node:tls'
import type { FastifyInstance } from 'fastify'
import { admitConnection, type ClientAuth } from './client-auth.ts'
import { ConnectionLedger, policyFor, UNBOUNDED, type Reclaim } from './connection-policy.ts'
import type { WebhookMetrics } from './metrics.ts'

export interface ConnectionGuardOptions {
  readonly metrics: WebhookMetrics
  /** Open connections at most; without it, no cap and no per-peer limit. */
  readonly maxConnections?: number
  /** True when the listener is TLS: a connection is established at the end of its handshake. */
  readonly tls: boolean
  readonly clientAuth?: ClientAuth
  /**
   * An untrusted connection must complete the headers of a request this soon
   * after its handshake, or after an answer that was not a review.
   */
  readonly firstRequestTimeoutMs: number
  /** Milliseconds on a monotonic clock (performance.now by default). */
  readonly now?: () => number
}

/** The path reviews are posted to; a 200 from it is a review. */
export const REVIEW_PATH = '/validate'

/** IPv4 peers seen through an IPv6 listener are named as IPv4, so one host is one peer. */
export function peerOf(address: string | undefined): string {
  if (address === undefined) return 'unknown'
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address
}

/** Metrics cause for a connection the policy closed: a newcomer refused for a bound, or one that gave way near the cap. */
export function reclaimCause(r: Reclaim): string {
  if (r.standing === 'newcomer') return r.bound === 'peer' ? 'PeerLimit' : 'TooManyConnections'
  return `NearCap${r.standing[0]?.toUpperCase() ?? ''}${r.standing.slice(1)}`
}

export function guardConnections(app: FastifyInstance, opts: ConnectionGuardOptions): void {
  const server = app.server as unknown as TlsServer
  const now = opts.now ?? (() => performance.now())
  const { metrics } = opts
  const max = opts.maxConnections
  if (max !== undefined) server.maxConnections = max
  // Node drops a connection beyond the cap before any TLS work, when the ledger could not make room in time.
  server.on('drop', () => metrics.rejected.inc({ code: '0', cause: 'TooManyConnections' }))
  const ledger = new ConnectionLedger(max === undefined ? UNBOUNDED : policyFor(max))

  // A TLS socket wraps the TCP socket accepted first; both name the same addresses, and so one id.
  const ids = new WeakMap<Socket, string>()
  const idOf = (socket: Socket): string => {
    let id = ids.get(socket)
    if (id === undefined) {
      id = `${socket.remoteAddress}|${socket.remotePort}|${socket.localAddress}|${socket.localPort}`
      ids.set(socket, id)
    }
    return id
  }
  const open = new Map<string, Socket>()

  server.on('connection', (socket: Socket) => {
    const id = idOf(socket)
    open.set(id, socket)
    socket.once('close', () => {
      if (open.get(id) === socket) open.delete(id)
      ledger.forget(id)
    })
    for (const r of ledger.admit(id, peerOf(socket.remoteAddress), now())) {
      metrics.rejected.inc({ code: '0', cause: reclaimCause(r) })
      open.get(r.id)?.destroy()
    }
  })

  const waiting = new WeakMap<Socket, NodeJS.Timeout>()
  const awaitRequest = (socket: Socket): void => {
    const timer = setTimeout(() => {
      metrics.rejected.inc({ code: '0', cause: 'NoRequest' })
      socket.destroy()
    }, opts.firstRequestTimeoutMs)
    timer.unref()
    waiting.set(socket, timer)
  }
  const established = (socket: Socket): void => {
    // A connection closed for its name (client-auth.ts) or for room during its handshake has nothing left to track.
    if (socket.destroyed) return
    const authenticated = opts.clientAuth !== undefined && (socket as TLSSocket).authorized === true
    ledger.established(idOf(socket), now(), authenticated)
    awaitRequest(socket)
    socket.once('close', () => clearTimeout(waiting.get(socket)))
  }
  if (opts.tls) {
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      if (!admitConnection(socket, opts.clientAuth)) metrics.rejected.inc({ code: '0', cause: 'ClientNameNotAllowed' })
    })
    server.on('secureConnection', established)
    // With a listener, closing the socket is ours to do (Node only does it when nobody listens).
    server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
      // A reset is no refusal of the handshake: the client went away, or the policy closed it above (counted there).
      if (err.code !== 'ECONNRESET') metrics.rejected.inc({ code: '0', cause: 'TlsHandshake' })
      socket.destroy()
    })
  } else {
    server.on('connection', established)
  }

  app.server.on('request', (req: { socket: Socket }) => {
    const socket = req.socket
    ledger.requestStarted(idOf(socket), now())
    const timer = waiting.get(socket)
    if (timer !== undefined) {
      clearTimeout(timer)
      waiting.delete(socket)
    }
  })
  // A 200 from the review route is a review; every other answer spends the connection.
  app.addHook('onResponse', async (request, reply) => {
    const socket = request.raw.socket
    const review = request.routeOptions.url === REVIEW_PATH && reply.statusCode === 200
    if (!ledger.answered(idOf(socket), review, now()) && !socket.destroyed) awaitRequest(socket)
  })
}
