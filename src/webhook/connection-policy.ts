// Which connections the webhook keeps when it runs short of room. No sockets
// and no timers here: connections are opaque ids, time is passed in, and the
// answer is a list of ids to close (connections.ts does the closing).
//
// What a connection has shown decides how long it may stay. The API server
// only ever sends reviews, writes each request at once and, where client
// certificates are configured, presents one: a connection that has carried a
// review, or presented a certificate the listener verified, is trusted. The
// rest gives way first: one that has sent anything but a review (spent), then
// one that has shown nothing yet (unproven, half-sent requests included);
// among trusted ones, one whose request stopped arriving (stalled) goes
// before an idle one. Two bounds:
// - per peer (a source address): a newcomer that would give its peer more
//   than `perPeer` connections not serving a request is refused;
// - near the cap (more than `reclaimAbove` open): a newcomer takes the room
//   of the lowest-standing untrusted connection of the peer that holds the
//   most untrusted ones, when that peer holds at least two more of them than
//   the newcomer's; failing that, and only for a newcomer whose peer holds
//   no untrusted connection, of a trusted one not serving a request, by the
//   same rule among trusted ones; otherwise it is refused (the room between
//   `reclaimAbove` and the cap is kept for newcomers that can take room).
// Refusing a newcomer costs nothing (it is closed before any TLS work), and a
// peer at its share is never given room, so a flood settles instead of
// turning into a storm of handshakes; a peer whose connections carry reviews
// (the API server's address) always finds room among untrusted ones.

/** Where a connection is in its life. */
export type Stage =
  /** TCP accepted, TLS not complete. */
  | 'handshake'
  /** TLS complete, waiting for a request (its headers may be arriving). */
  | 'waiting'
  /** Headers received, answer not written yet. */
  | 'request'

/** What a connection is worth keeping, from least to most. */
export type Standing = 'spent' | 'stalled' | 'unproven' | 'idle' | 'busy'

/** Room is taken from these, first to last; `busy` is never taken. */
export type Reclaimable = Exclude<Standing, 'busy'>
export const RECLAIM_ORDER: readonly Reclaimable[] = ['spent', 'unproven', 'stalled', 'idle']

export interface ConnectionState {
  readonly stage: Stage
  /** When the connection entered its stage (ms, any monotonic clock). */
  readonly since: number
  /** It has carried a review, or presented a client certificate the listener verified. */
  readonly trusted: boolean
  /** It has been answered something that is not a review: never trusted again. */
  readonly spent: boolean
}

export interface ConnectionPolicy {
  /** Open connections at most (Node drops beyond it before any TLS work). */
  readonly maxConnections: number
  /** Room is made for a newcomer once more than this many are open. */
  readonly reclaimAbove: number
  /** Connections a peer may hold that are not serving a request. */
  readonly perPeer: number
  /** A trusted connection's request still unanswered after this long is stalled. */
  readonly stallMs: number
}

export function standingOf(c: ConnectionState, now: number, stallMs: number): Standing {
  if (c.spent) return 'spent'
  if (!c.trusted) return 'unproven'
  if (c.stage === 'request') return now - c.since > stallMs ? 'stalled' : 'busy'
  return 'idle'
}

/**
 * The policy for a connection cap: room is made 5% below it, and one peer
 * may hold a quarter of it (at least 16) in connections that are not serving
 * a request. The API server keeps at most 25 idle connections to a webhook
 * host (client-go's MaxIdleConnsPerHost) and writes a request at once.
 */
export function policyFor(maxConnections: number): ConnectionPolicy {
  return {
    maxConnections,
    reclaimAbove: maxConnections - Math.max(1, Math.floor(maxConnections * 0.05)),
    perPeer: Math.max(16, Math.floor(maxConnections / 4)),
    stallMs: 1_000,
  }
}

/** No cap and no per-peer limit: for listeners given no connection cap. */
export const UNBOUNDED: ConnectionPolicy = Object.freeze({
  maxConnections: Number.POSITIVE_INFINITY,
  reclaimAbove: Number.POSITIVE_INFINITY,
  perPeer: Number.POSITIVE_INFINITY,
  stallMs: 1_000,
})

/** A connection to close: one that gave way (with the standing it had), or the newcomer refused. */
export interface Reclaim {
  readonly id: string
  readonly standing: Reclaimable | 'newcomer'
  /** Which bound it was closed for. */
  readonly bound: 'peer' | 'cap'
}

interface Entry extends ConnectionState {
  readonly id: string
  readonly peer: string
  stage: Stage
  since: number
  trusted: boolean
  spent: boolean
}

interface Peer {
  /** Its connections in the order they were accepted. */
  readonly all: Map<string, Entry>
  untrusted: number
}

const isTrusted = (e: ConnectionState): boolean => e.trusted && !e.spent

/** The largest of a multiset of counts, kept as counts change by one. */
class Tallest {
  readonly #byCount = new Map<number, Set<string>>()
  #top = 0

  /** One of the keys with the largest count, and that count. */
  top(): { key: string | undefined; count: number } {
    return { key: this.#byCount.get(this.#top)?.values().next().value, count: this.#top }
  }

  move(key: string, from: number, to: number): void {
    const was = this.#byCount.get(from)
    was?.delete(key)
    if (was?.size === 0) this.#byCount.delete(from)
    if (to > 0) {
      let is = this.#byCount.get(to)
      if (is === undefined) {
        is = new Set()
        this.#byCount.set(to, is)
      }
      is.add(key)
    }
    if (to > this.#top) this.#top = to
    while (this.#top > 0 && !this.#byCount.has(this.#top)) this.#top--
  }
}

/**
 * The connections of one listener, with the policy's bookkeeping. The caller
 * reports each event as it happens and closes what `admit` returns; a closed
 * id is forgotten at once, so later events about it are ignored.
 */
export class ConnectionLedger {
  readonly policy: ConnectionPolicy
  readonly #entries = new Map<string, Entry>()
  readonly #peers = new Map<string, Peer>()
  /** Peers by how many untrusted connections they hold, to find the fullest at once. */
  readonly #untrusted = new Tallest()

  constructor(policy: ConnectionPolicy) {
    if (!(policy.reclaimAbove <= policy.maxConnections) || !(policy.perPeer >= 1) || !(policy.stallMs >= 0)) {
      throw new RangeError(
        `connection policy: reclaimAbove ${policy.reclaimAbove} must not exceed maxConnections ${policy.maxConnections}, perPeer ${policy.perPeer} must be at least 1, stallMs ${policy.stallMs} not negative`,
      )
    }
    this.policy = policy
  }

  get size(): number {
    return this.#entries.size
  }

  /** The connections a peer holds now. */
  heldBy(peer: string): number {
    return this.#peers.get(peer)?.all.size ?? 0
  }

  standing(id: string, now: number): Standing | undefined {
    const e = this.#entries.get(id)
    return e === undefined ? undefined : standingOf(e, now, this.policy.stallMs)
  }

  /** A connection was accepted; returns what to close for it: a connection that gives way, or the newcomer itself. */
  admit(id: string, peer: string, now: number): Reclaim[] {
    this.forget(id)
    if (this.#notServing(peer, now) + 1 > this.policy.perPeer) return [{ id, standing: 'newcomer', bound: 'peer' }]
    const untrustedBefore = this.#peers.get(peer)?.untrusted ?? 0
    this.#add({ id, peer, stage: 'handshake', since: now, trusted: false, spent: false })
    if (this.size <= this.policy.reclaimAbove) return []
    const victim = this.#fromFullest(peer, untrustedBefore, now) ?? (untrustedBefore === 0 ? this.#fromMostTrusted(peer, now) : undefined)
    if (victim !== undefined) {
      this.forget(victim.id)
      return [{ id: victim.id, standing: victim.standing, bound: 'cap' }]
    }
    // Refused here, below the cap: the room left above reclaimAbove is for newcomers that can take room,
    // and Node, which counts to the cap, never has to drop one of those before the ledger sees it.
    this.forget(id)
    return [{ id, standing: 'newcomer', bound: 'cap' }]
  }

  /** TLS completed; `authenticated` when the listener verified a client certificate. */
  established(id: string, now: number, authenticated: boolean): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    if (authenticated) this.#trust(e, true)
    e.stage = 'waiting'
    e.since = now
  }

  /** A request's headers arrived. */
  requestStarted(id: string, now: number): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    e.stage = 'request'
    e.since = now
  }

  /** A request was answered; `review` when the answer was a review. */
  answered(id: string, review: boolean, now: number): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    this.#trust(e, review)
    e.stage = 'waiting'
    e.since = now
  }

  /** The connection is gone (closed by either side, or given way). */
  forget(id: string): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    this.#entries.delete(id)
    const p = this.#peers.get(e.peer)
    if (p === undefined) return
    p.all.delete(id)
    if (!isTrusted(e)) this.#countUntrusted(e.peer, p, -1)
    if (p.all.size === 0) this.#peers.delete(e.peer)
  }

  #add(e: Entry): void {
    this.#entries.set(e.id, e)
    let p = this.#peers.get(e.peer)
    if (p === undefined) {
      p = { all: new Map(), untrusted: 0 }
      this.#peers.set(e.peer, p)
    }
    p.all.set(e.id, e)
    this.#countUntrusted(e.peer, p, 1)
  }

  #countUntrusted(peer: string, p: Peer, by: 1 | -1): void {
    this.#untrusted.move(peer, p.untrusted, p.untrusted + by)
    p.untrusted += by
  }

  /** A review answered (`true`) or anything else (`false`); a spent connection is never trusted again. */
  #trust(e: Entry, review: boolean): void {
    const was = isTrusted(e)
    if (review) e.trusted = true
    else e.spent = true
    const is = isTrusted(e)
    const p = this.#peers.get(e.peer)
    if (p !== undefined && was !== is) this.#countUntrusted(e.peer, p, is ? -1 : 1)
  }

  /** A peer's connections that are not serving a request (a burst of reviews in flight does not count). */
  #notServing(peer: string, now: number): number {
    let n = 0
    for (const e of this.#peers.get(peer)?.all.values() ?? []) if (standingOf(e, now, this.policy.stallMs) !== 'busy') n++
    return n
  }

  /** The lowest-standing connection of a peer that `counts`, the oldest among equals. */
  #lowestOf(peer: string, now: number, counts: (e: Entry) => boolean): Candidate | undefined {
    let victim: Candidate | undefined
    for (const e of this.#peers.get(peer)?.all.values() ?? []) {
      if (!counts(e)) continue
      const standing = standingOf(e, now, this.policy.stallMs)
      if (standing === 'busy') continue
      // Accepted order is oldest first, so the first of the lowest standing wins.
      if (victim === undefined || RECLAIM_ORDER.indexOf(standing) < RECLAIM_ORDER.indexOf(victim.standing)) victim = { id: e.id, standing }
      if (standing === RECLAIM_ORDER[0]) break
    }
    return victim
  }

  /**
   * An untrusted connection of the peer holding the most of them, if it holds
   * at least two more than the newcomer's peer did: one more would only swap
   * which of the two is ahead.
   */
  #fromFullest(newcomerPeer: string, untrustedBefore: number, now: number): Candidate | undefined {
    const { key, count } = this.#untrusted.top()
    if (key === undefined || key === newcomerPeer || count < untrustedBefore + 2) return undefined
    return this.#lowestOf(key, now, (e) => !isTrusted(e))
  }

  /**
   * Failing that, for a newcomer whose peer holds no untrusted connection
   * (the API server's address, while nobody floods from it), a trusted
   * connection not serving a request, of the peer holding the most of them,
   * by the same rule: a peer that proves many connections with reviews of its
   * own cannot keep the API server out. A peer that holds untrusted
   * connections (a flood) never takes trusted ones.
   */
  #fromMostTrusted(newcomerPeer: string, now: number): Candidate | undefined {
    const trustedIdle = (peer: string): number => {
      let n = 0
      for (const e of this.#peers.get(peer)?.all.values() ?? []) if (isTrusted(e) && standingOf(e, now, this.policy.stallMs) !== 'busy') n++
      return n
    }
    const own = trustedIdle(newcomerPeer)
    let best: { peer: string; count: number } | undefined
    for (const peer of this.#peers.keys()) {
      if (peer === newcomerPeer) continue
      const count = trustedIdle(peer)
      if (count >= own + 2 && (best === undefined || count > best.count)) best = { peer, count }
    }
    return best === undefined ? undefined : this.#lowestOf(best.peer, now, isTrusted)
  }
}

interface Candidate {
  readonly id: string
  readonly standing: Reclaimable
}
