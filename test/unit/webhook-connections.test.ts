// The connection policy (src/webhook/connection-policy.ts): which connection
// gives way when room is needed, and what one peer may hold. Pure: ids, peers
// and a clock passed in.

import t from 'tap'
import {
  ConnectionLedger,
  policyFor,
  RECLAIM_ORDER,
  standingOf,
  type ConnectionPolicy,
  type Reclaim,
  type Stage,
} from '../../src/webhook/connection-policy.ts'

const API = '10.0.0.1'
const MALLORY = '10.1.0.7'
const EVE = '10.1.0.8'

let seq = 0
const id = (name: string): string => `${name}#${seq++}`

/** A connection that has answered a review and waits for the next one: the API server's keep-alive pool. */
function reviewed(l: ConnectionLedger, peer: string, now: number): string {
  const c = id('reviewed')
  const out = l.admit(c, peer, now)
  if (out.length > 0) throw new Error(`admitting ${c} closed ${JSON.stringify(out)}`)
  l.established(c, now, false)
  l.requestStarted(c, now)
  l.answered(c, true, now)
  return c
}

/** A connection that completed TLS and sent nothing yet. */
function waiting(l: ConnectionLedger, peer: string, now: number): { id: string; out: Reclaim[] } {
  const c = id('waiting')
  const out = l.admit(c, peer, now)
  l.established(c, now, false)
  return { id: c, out }
}

/** A connection that was answered 404. */
function spent(l: ConnectionLedger, peer: string, now: number): string {
  const c = waiting(l, peer, now).id
  l.requestStarted(c, now)
  l.answered(c, false, now)
  return c
}

const big = (perPeer = 1_000): ConnectionPolicy => ({ maxConnections: 10, reclaimAbove: 8, perPeer, stallMs: 1_000 })

t.test('standing: what a connection has shown', async (t) => {
  const rows: [string, Stage, { trusted?: boolean; spent?: boolean }, number, string][] = [
    ['a handshake in progress', 'handshake', {}, 0, 'unproven'],
    ['TLS done, no request yet', 'waiting', {}, 0, 'unproven'],
    ['its first request in flight', 'request', {}, 5_000, 'unproven'],
    ['answered something that is not a review', 'waiting', { spent: true }, 0, 'spent'],
    ['a review answered, waiting for the next', 'waiting', { trusted: true }, 60_000, 'idle'],
    ['a trusted request in flight', 'request', { trusted: true }, 999, 'busy'],
    ['a trusted request still arriving after the stall time', 'request', { trusted: true }, 1_001, 'stalled'],
  ]
  for (const [name, stage, flags, age, want] of rows)
    t.equal(standingOf({ stage, since: 0, trusted: flags.trusted ?? false, spent: flags.spent ?? false }, age, 1_000), want, name)
  t.strictSame(RECLAIM_ORDER, ['spent', 'unproven', 'stalled', 'idle'], 'the order room is taken in')
})

t.test("the policy for the chart's cap: room 5% below it, a quarter of it per peer", async (t) => {
  t.strictSame(policyFor(327), { maxConnections: 327, reclaimAbove: 311, perPeer: 81, stallMs: 1_000 })
  t.equal(policyFor(20).perPeer, 16, 'at least 16 per peer')
  t.equal(policyFor(20).reclaimAbove, 19, 'at least one below the cap')
  t.throws(() => new ConnectionLedger({ ...big(), reclaimAbove: 11 }), RangeError)
  t.throws(() => new ConnectionLedger({ ...big(), perPeer: 0 }), RangeError)
})

t.test('near the cap, a newcomer takes the room of the fullest peer, lowest standing first, oldest among equals', async (t) => {
  const l = new ConnectionLedger({ maxConnections: 20, reclaimAbove: 10, perPeer: 1_000, stallMs: 1_000 })
  const busy = reviewed(l, MALLORY, 0)
  const stalled = reviewed(l, MALLORY, 0)
  const idle = [reviewed(l, MALLORY, 0), reviewed(l, MALLORY, 0)]
  l.requestStarted(stalled, 1_000)
  const older = waiting(l, MALLORY, 1_500).id
  const younger = waiting(l, MALLORY, 2_000).id
  const halfSent = waiting(l, MALLORY, 2_100).id
  l.requestStarted(halfSent, 2_100)
  const four04 = spent(l, MALLORY, 2_500)
  l.requestStarted(busy, 3_000)
  const pool = reviewed(l, API, 3_000)
  t.equal(l.size, 9)
  t.strictSame(waiting(l, EVE, 3_100).out, [], 'room is made only above reclaimAbove')
  t.equal(l.standing(halfSent, 3_200), 'unproven', 'a request half-sent on an untrusted connection is unproven')

  const got: Reclaim[] = []
  // Newcomers from addresses that hold nothing yet.
  for (let i = 0; i < 7; i++) got.push(...waiting(l, `10.9.0.${i}`, 3_500 + i).out)
  t.strictSame(
    got.map((r) => [r.id, r.standing, r.bound]),
    [
      [four04, 'spent', 'cap'],
      [older, 'unproven', 'cap'],
      [younger, 'unproven', 'cap'],
      [stalled, 'stalled', 'cap'],
      [idle[0], 'idle', 'cap'],
      [got[5]?.id, 'newcomer', 'cap'],
      [got[6]?.id, 'newcomer', 'cap'],
    ],
    'a 404 first, then what showed nothing (oldest first), then among trusted ones a request that stopped arriving, then an idle one; each while Mallory holds two more of the kind than the newcomer',
  )
  t.equal(l.standing(busy, 3_600), 'busy', 'a request being served is never taken')
  t.equal(l.standing(halfSent, 3_600), 'unproven', 'Mallory is down to one untrusted connection: no more room from those')
  t.equal(l.standing(idle[1] ?? '', 3_600), 'idle', 'nor from her trusted ones')
  t.equal(l.standing(pool, 3_600), 'idle', 'a peer holding fewer than the fullest is not taken from')
  t.equal(l.size, 10, 'with no room to take, the last two newcomers are refused: the size stays at reclaimAbove')
})

t.test('a newcomer from a peer at its share is refused, not given room: a flood settles', async (t) => {
  const l = new ConnectionLedger(big())
  const api = reviewed(l, API, 0)
  for (let i = 0; i < 4; i++) waiting(l, MALLORY, i)
  for (let i = 0; i < 3; i++) waiting(l, EVE, i)
  t.equal(l.size, 8)
  const mine = id('mallory')
  t.strictSame(
    l.admit(mine, MALLORY, 20),
    [{ id: mine, standing: 'newcomer', bound: 'cap' }],
    'above reclaimAbove, and no peer holds two more than Mallory: refused before any TLS work',
  )
  const eve = id('eve')
  t.strictSame(
    l.admit(eve, EVE, 22),
    [{ id: eve, standing: 'newcomer', bound: 'cap' }],
    'Eve holds one less than Mallory: a swap would gain nothing',
  )
  t.equal(l.size, 8, 'what was held is kept: nothing churns')
  const fromApi = waiting(l, API, 23).out
  t.equal(fromApi.length, 1, "the API server's newcomer finds room")
  t.equal(fromApi[0]?.bound, 'cap')
  t.ok(fromApi[0]?.id.startsWith('waiting'), 'an unproven one of the fullest peer')
  t.equal(l.heldBy(MALLORY), 3)
  t.equal(l.standing(api, 23), 'idle')
})

t.test('any request, even a 404, no longer makes a connection permanent', async (t) => {
  const l = new ConnectionLedger(big())
  const flood: string[] = []
  for (let i = 0; i < 8; i++) flood.push(spent(l, MALLORY, i))
  t.equal(l.standing(flood[0] ?? '', 100), 'spent', 'a connection answered 404 is spent')
  const api = waiting(l, API, 10)
  t.strictSame(
    api.out.map((r) => [r.id, r.standing]),
    [[flood[0], 'spent']],
    'and the first to make room',
  )
  l.requestStarted(api.id, 10)
  l.answered(api.id, true, 11)
  t.equal(l.standing(api.id, 12), 'idle', 'a review makes the newcomer trusted')
  l.answered(flood[1] ?? '', true, 12)
  t.equal(l.standing(flood[1] ?? '', 12), 'spent', 'a spent connection is not trusted for a review that follows')
  const roomy = new ConnectionLedger(big())
  const turned = reviewed(roomy, API, 13)
  roomy.answered(turned, false, 14)
  t.equal(roomy.standing(turned, 15), 'spent', 'a trusted connection that sends something else is spent')
})

t.test('trusted idle connections give way only to a peer that holds fewer', async (t) => {
  const l = new ConnectionLedger(big())
  const api = [reviewed(l, API, 0), reviewed(l, API, 1)]
  // Mallory holds six connections that carried reviews (without client certificates, anyone may send reviews).
  const mallory = Array.from({ length: 6 }, (_, i) => reviewed(l, MALLORY, 2 + i))
  t.equal(l.size, 8)
  t.strictSame(
    waiting(l, API, 10).out.map((r) => [r.id, r.standing]),
    [[mallory[0], 'idle']],
    "the API server's newcomer takes the room of Mallory's longest idle connection",
  )
  for (let i = 0; i < 5; i++) {
    const out = waiting(l, MALLORY, 20 + i).out
    t.ok(
      out.every((r) => !api.includes(r.id)),
      `Mallory's newcomers never take the API server's: ${JSON.stringify(out)}`,
    )
  }
  for (const c of api) t.equal(l.standing(c, 30), 'idle')
})

t.test('a peer holds at most perPeer connections that are not serving a request', async (t) => {
  const l = new ConnectionLedger({ maxConnections: 1_000, reclaimAbove: 900, perPeer: 4, stallMs: 1_000 })
  const trusted = reviewed(l, MALLORY, 0)
  const mine = Array.from({ length: 3 }, (_, i) => waiting(l, MALLORY, 1 + i))
  t.ok(
    mine.every((m) => m.out.length === 0),
    'four, the trusted one among them: the limit',
  )
  const over = id('over')
  t.strictSame(l.admit(over, MALLORY, 10), [{ id: over, standing: 'newcomer', bound: 'peer' }], 'the fifth is refused before any TLS work')
  t.equal(l.heldBy(MALLORY), 4)
  t.equal(l.standing(trusted, 10), 'idle', 'what the peer held is kept')
  t.strictSame(waiting(l, EVE, 10).out, [], 'other peers are not affected')

  // A burst of reviews in flight does not count against the limit; once they stall, they do.
  const serving = new ConnectionLedger({ maxConnections: 1_000, reclaimAbove: 900, perPeer: 2, stallMs: 1_000 })
  for (let i = 0; i < 3; i++) serving.requestStarted(reviewed(serving, API, 0), 10)
  t.strictSame(waiting(serving, API, 20).out, [], 'three requests in flight and one newcomer: within a limit of two')
  const late = id('late')
  t.strictSame(serving.admit(late, API, 2_000), [{ id: late, standing: 'newcomer', bound: 'peer' }])
})

t.test('a verified client certificate is trusted from the handshake on', async (t) => {
  const l = new ConnectionLedger(big())
  const apiserver = id('apiserver')
  l.admit(apiserver, API, 0)
  l.established(apiserver, 0, true)
  t.equal(l.standing(apiserver, 0), 'idle')
  for (let i = 0; i < 8; i++) l.admit(id('handshaking'), MALLORY, 1 + i)
  t.strictSame(
    waiting(l, API, 10).out.map((r) => r.standing),
    ['unproven'],
    'handshakes in progress give way to a newcomer of a peer that holds fewer',
  )
  t.equal(l.standing(apiserver, 10), 'idle')
})

interface FloodRun {
  /** The API server's connections that gave way to the flood. */
  readonly taken: number
  /** Flood newcomers refused before any TLS work. */
  readonly refused: number
  /** The API server's newcomers refused. */
  readonly apiRefused: number
  readonly ledger: ConnectionLedger
}

/**
 * 20,000 flood connections from `peers`, half of them answered 404, with
 * the API server (127.0.0.1) holding 20 connections and opening one more
 * every 200 flood connections, which carries a review at once; like
 * client-go, it keeps at most 25 idle and closes the oldest beyond.
 */
function floodRun(peers: readonly string[]): FloodRun {
  const l = new ConnectionLedger(policyFor(327))
  const pool = new Set(Array.from({ length: 20 }, () => reviewed(l, '127.0.0.1', 0)))
  const keep = (api: string): void => {
    pool.add(api)
    for (const old of pool) {
      if (pool.size <= 25) break
      pool.delete(old)
      l.forget(old)
    }
  }
  let taken = 0
  let refused = 0
  let apiRefused = 0
  for (let i = 0; i < 20_000; i++) {
    const c = id('flood')
    const out = l.admit(c, peers[i % peers.length] ?? '', i)
    taken += out.filter((r) => pool.has(r.id)).length
    if (out.some((r) => r.id === c)) refused++
    else {
      l.established(c, i, false)
      if (i % 2 === 0) {
        l.requestStarted(c, i)
        l.answered(c, false, i)
      }
    }
    if (i % 200 !== 0) continue
    const api = id('api')
    const got = l.admit(api, '127.0.0.1', i)
    taken += got.filter((r) => pool.has(r.id)).length
    if (got.some((r) => r.id === api)) {
      apiRefused++
      continue
    }
    l.established(api, i, false)
    l.requestStarted(api, i)
    l.answered(api, true, i)
    keep(api)
  }
  return { taken, refused, apiRefused, ledger: l }
}

t.test("a flood from eight other addresses leaves the API server's connections alone and lets its new ones in", async (t) => {
  const policy = policyFor(327)
  const peers = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`)
  const run = floodRun(peers)
  t.equal(run.taken, 0, "none of the API server's connections gave way")
  t.equal(run.apiRefused, 0, 'none of its 100 new connections was refused')
  t.ok(run.refused > 15_000, `most of the flood was refused before any TLS work (${run.refused} of 20,000)`)
  t.ok(run.ledger.size <= policy.maxConnections, `${run.ledger.size} open, cap ${policy.maxConnections}`)
  for (const p of peers) t.ok(run.ledger.heldBy(p) <= policy.perPeer, `${p} holds ${run.ledger.heldBy(p)}`)
})

t.test("a flood that shares the API server's address still leaves its connections alone", async (t) => {
  const run = floodRun(['127.0.0.1', ...Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`)])
  t.equal(run.taken, 0, "none of the API server's connections gave way")
  // At accept, a newcomer from the API server's address cannot be told from the flood's: once the address
  // holds its share, its newcomers are refused too (docs/webhook-limits.md). Client certificates or a
  // NetworkPolicy keep other pods off that address's share.
  t.ok(run.apiRefused > 0, `${run.apiRefused} of 100 new connections of the API server refused while its address was full`)
})

t.test('events about forgotten connections are ignored', async (t) => {
  const l = new ConnectionLedger(big())
  l.established('never-admitted', 0, true)
  l.requestStarted('never-admitted', 0)
  l.answered('never-admitted', true, 0)
  l.forget('never-admitted')
  t.equal(l.size, 0)
  const c = reviewed(l, API, 0)
  l.forget(c)
  l.forget(c)
  t.equal(l.size, 0)
  t.equal(l.heldBy(API), 0)
  t.strictSame(waiting(l, API, 1).out, [], 'and the table is usable again')
})
