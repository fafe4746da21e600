// The sockets side of the connection policy: each connection's events go to
// the ledger (connection-policy.ts), and what it says to close is closed. Also
// here: names checked on client certificates, and the deadline for the first
// request after a handshake.

import type { ServerResponse } from 'node:http'
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
  /** A new connection must complete the headers of its first request this soon after the handshake. */
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
  if (max !== undefined) {
    server.maxConnections = max
    metrics.maxConnections.set(max)
  }
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

  // The server's own 'connection' listeners (Node's TLS server wraps the socket in a TLSSocket there,
  // the HTTP server attaches its parser) are most of what an accepted connection costs before its
  // handshake: a refused one is closed before them, ~45 instead of ~150 us of CPU (measured), which
  // is what a flood of newcomers costs. They are taken over and run for admitted connections only.
  const setUp = server.listeners('connection') as ((socket: Socket) => void)[]
  for (const listener of setUp) server.removeListener('connection', listener)
  server.on('connection', (socket: Socket) => {
    const id = idOf(socket)
    const closes = ledger.admit(id, peerOf(socket.remoteAddress), now())
    for (const r of closes) {
      metrics.rejected.inc({ code: '0', cause: reclaimCause(r) })
      if (r.id === id) socket.destroy()
      else open.get(r.id)?.destroy()
    }
    if (socket.destroyed) return
    open.set(id, socket)
    metrics.connections.inc()
    socket.once('close', () => {
      metrics.connections.dec()
      if (open.get(id) === socket) open.delete(id)
      ledger.forget(id)
    })
    for (const listener of setUp) listener.call(server, socket)
  })

  const waiting = new WeakMap<Socket, NodeJS.Timeout>()
  const established = (socket: Socket): void => {
    // A connection closed for its name (client-auth.ts) or for room during its handshake has nothing left to track.
    if (socket.destroyed) return
    const authenticated = opts.clientAuth !== undefined && (socket as TLSSocket).authorized === true
    ledger.established(idOf(socket), now(), authenticated)
    const timer = setTimeout(() => {
      metrics.rejected.inc({ code: '0', cause: 'NoRequest' })
      socket.destroy()
    }, opts.firstRequestTimeoutMs)
    timer.unref()
    waiting.set(socket, timer)
    socket.once('close', () => clearTimeout(timer))
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

  app.server.on('request', (req: { socket: Socket }, res: ServerResponse) => {
    metrics.inflight.inc()
    res.once('close', () => metrics.inflight.dec())
    const socket = req.socket
    ledger.requestStarted(idOf(socket), now())
    const timer = waiting.get(socket)
    if (timer !== undefined) {
      clearTimeout(timer)
      waiting.delete(socket)
    }
  })
  // A 200 from the review route is a review; every other answer spends the connection: it stays open
  // while there is room (a flood that holds its connections does not turn into a storm of reconnects),
  // and is the first to give way when there is none.
  app.addHook('onResponse', async (request, reply) => {
    const socket = request.raw.socket
    const review = request.routeOptions.url === REVIEW_PATH && reply.statusCode === 200
    ledger.answered(idOf(socket), review, now())
  })
}
