// The connection policy on a real TLS listener (src/webhook/connections.ts):
// near the cap, connections answered anything but a review give way first and
// those that carried one stay, a peer's share is enforced before any TLS work,
// and a flood of idle TLS connections and slow senders from several addresses
// leaves the connections that carry reviews alone and lets new ones in.

import t from 'tap'
import { Agent, request as httpsRequest } from 'node:https'
import { connect as netConnect } from 'node:net'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import pino from 'pino'
import { mintCA, mintServingCert } from '../../src/certs/mint.ts'
import { buildWebhookApp } from '../../src/webhook/app.ts'
import { policyFor } from '../../src/webhook/connection-policy.ts'
import { peerOf, reclaimCause } from '../../src/webhook/connections.ts'
import { createWebhookMetrics } from '../../src/webhook/metrics.ts'
import { admissionReview, renderedDeployment, syntheticCaches } from '../fixtures/webhook-synthetic.ts'
import { loopbackPeers, startFlood } from '../fixtures/webhook-flood.ts'

const ca = mintCA({ validityDays: 2 })
const serving = mintServingCert({ ca, dnsNames: [], ipAddresses: ['127.0.0.1'], validityDays: 2 })
const caches = syntheticCaches({ templates: 4, instances: 20 })
const owner = caches.owners[1]
if (!owner) throw new Error('no synthetic owner')
const stored = renderedDeployment(owner)
const review = JSON.stringify(admissionReview({ operation: 'UPDATE', object: stored, oldObject: stored }))

// A cap of 64: room is made above 61, and one address may hold 16 connections that are not serving.
const MAX = 64
const metrics = createWebhookMetrics()
const app = buildWebhookApp({
  lookups: caches.lookups,
  config: { operatorUsernames: [] },
  log: pino({ level: 'silent' }),
  metrics,
  canServe: () => true,
  tls: { key: serving.keyPem, cert: serving.certPem },
  maxConnections: MAX,
  firstRequestTimeoutMs: 1_000,
})
await app.listen({ host: '127.0.0.1', port: 0 })
t.teardown(() => app.close())
const port = (app.server.address() as { port: number }).port

interface Answer {
  status: number
  connection: string | undefined
  /** The local port of the connection it came over: the same port twice means the connection was reused. */
  localPort: number | undefined
}

function post(agent: Agent, body: string, path = '/validate', method = 'POST', contentType = 'application/json'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, localPort: res.socket?.localPort ?? undefined }),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

t.test('peers are addresses; causes name the bound and the standing', async (t) => {
  t.equal(peerOf('::ffff:10.0.0.1'), '10.0.0.1', 'an IPv4 peer through an IPv6 listener')
  t.equal(peerOf('fd00::1'), 'fd00::1')
  t.equal(peerOf(undefined), 'unknown')
  t.equal(reclaimCause({ id: 'x', standing: 'unproven', bound: 'cap' }), 'NearCapUnproven')
  t.equal(reclaimCause({ id: 'x', standing: 'spent', bound: 'cap' }), 'NearCapSpent')
  t.equal(reclaimCause({ id: 'x', standing: 'newcomer', bound: 'peer' }), 'PeerLimit')
  t.equal(reclaimCause({ id: 'x', standing: 'newcomer', bound: 'cap' }), 'TooManyConnections')
})

/** A TLS connection from `from` that sends `head` once established, with what happened to it. */
function connection(from: string, head?: string): Promise<{ socket: TLSSocket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const socket = tlsConnect(
      { socket: netConnect({ host: '127.0.0.1', port, localAddress: from }), host: '127.0.0.1', ca: ca.certPem },
      () => {
        if (head !== undefined) socket.write(head)
        resolve({ socket, closed })
      },
    )
    const closed = new Promise<number>((r) => socket.once('close', () => r(performance.now() - started)))
    socket.on('data', () => undefined)
    socket.on('error', reject)
  })
}

t.test('near the cap, connections answered anything but a review give way first; those that carried one stay', async (t) => {
  const policy = policyFor(MAX)
  const [spender, ...reviewers] = loopbackPeers(5) as [string, string, string, string, string]
  const newcomer = reviewers.pop() as string
  const reviewRequest = `POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(review)}\r\n\r\n${review}`
  const heads = [
    'GET /flood HTTP/1.1\r\nHost: x\r\n\r\n',
    'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}',
    'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  ]
  // A 404, a 415 and a 400 in turn, on a peer's whole share.
  const spent = []
  for (let i = 0; i < policy.perPeer; i++) spent.push(await connection(spender, heads[i % heads.length]))
  const trusted = []
  for (const from of reviewers) for (let i = 0; i < 15; i++) trusted.push(await connection(from, reviewRequest))
  t.equal(spent.length + trusted.length, policy.reclaimAbove, 'up to where room is made')
  await sleep(1_500)
  t.ok(
    [...spent, ...trusted].every((c) => !c.socket.destroyed),
    'while there is room, all stay open, past the deadline for a first request',
  )
  const late = await connection(newcomer)
  await sleep(200)
  t.ok(spent[0]?.socket.destroyed, "a newcomer from another address takes the room of the spent peer's oldest connection")
  t.ok(
    spent.slice(1).every((c) => !c.socket.destroyed),
    'and of that one only',
  )
  t.ok(
    trusted.every((c) => !c.socket.destroyed),
    'the connections that carried reviews stay',
  )
  t.notOk(late.socket.destroyed, 'the newcomer is open')
  for (const c of [...spent, ...trusted, late]) c.socket.destroy()
  t.match(await metrics.registry.render(), /template_sync_webhook_rejected_requests_total\{code="0",cause="NearCapSpent"\} 1/)
  await sleep(200)
})

t.test("a peer's connections beyond its share are refused before TLS; other peers are not affected", async (t) => {
  const share = policyFor(MAX).perPeer
  const [crowd, other] = loopbackPeers(2) as [string, string]
  const held = await Promise.all(Array.from({ length: share }, () => connection(crowd)))
  const refused = await Promise.allSettled(Array.from({ length: 4 }, () => connection(crowd)))
  t.ok(
    refused.every((r) => r.status === 'rejected'),
    `the ${share + 1}th connection of ${crowd} and later ones fail before TLS completes`,
  )
  const elsewhere = await Promise.all(Array.from({ length: 4 }, () => connection(other)))
  t.ok(
    [...held, ...elsewhere].every((c) => !c.socket.destroyed),
    `what ${crowd} held is kept, and ${other} connects`,
  )
  for (const c of [...held, ...elsewhere]) c.socket.destroy()
  t.match(await metrics.registry.render(), /template_sync_webhook_rejected_requests_total\{code="0",cause="PeerLimit"\} [1-9]/)
})

t.test(
  'a flood of idle connections past the cap and slow senders from other addresses leaves reviews answered, new connections included',
  async (t) => {
    await sleep(300)
    const agent = new Agent({ keepAlive: true, maxSockets: 2, ca: ca.certPem })
    t.teardown(() => agent.destroy())
    await post(agent, review)
    const flood = startFlood({
      port,
      ca: ca.certPem,
      peers: loopbackPeers(4),
      idle: 3 * MAX,
      halfHeaders: 20,
      slowBodies: [{ count: 2, bytes: 1024 * 1024 }],
    })
    t.teardown(() => flood.stop())
    await flood.started()
    await sleep(500)
    const statuses: Record<string, number> = {}
    let worst = 0
    const fresh = new Agent({ keepAlive: false, ca: ca.certPem })
    t.teardown(() => fresh.destroy())
    for (let i = 0; i < 40; i++) {
      const started = performance.now()
      // Every fourth review over a new connection, which must find room among the flood.
      const res = await post(i % 4 === 0 ? fresh : agent, review).catch(() => ({ status: 0 }))
      worst = Math.max(worst, performance.now() - started)
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      await sleep(20)
    }
    const tally = flood.stop()
    t.strictSame(statuses, { 200: 40 }, `every review answered (flood: ${JSON.stringify(tally)})`)
    t.ok(tally.peakHeld <= MAX, `the flood never held more than the cap: ${tally.peakHeld}`)
    t.ok(tally.closedByServer > 0, 'the server closed flood connections to make room')
    t.ok(worst < 1_000, `worst review ${Math.round(worst)} ms`)
  },
)
