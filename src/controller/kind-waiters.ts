// Instances waiting for a rendered kind the API server does not serve yet,
// by API group, so that a discovery change of that group (a CRD established,
// an APIService added) brings back exactly those instances, at once, and no
// other. A change counter closes the gap between a pass's discovery lookup
// and its wait, so that a change in between is not missed; and since the API
// server publishes a new group's discovery shortly after the CRD's own events,
// a pass that still finds the kind unserved soon after a change looks again
// soon (recheckAfterMs).

/** What wait() saw of the groups' changes. */
export interface WaitOutcome {
  /** One of the groups changed while the pass looked: what it saw may be stale already. */
  readonly changedWhileLooking: boolean
  /** How long ago one of the groups last changed; undefined when none has since the start. */
  readonly sinceChangeMs: number | undefined
}

/** How soon a pass looks again when a group changed while it looked. */
export const RECHECK_CHANGED_MS = 250
/** How soon a pass looks again while a group's change is recent (its discovery may lag behind). */
export const RECHECK_RECENT_MS = 1000
/** How long after a change of its group a kind is looked up every RECHECK_RECENT_MS. */
export const RECENT_CHANGE_MS = 10_000

/** When a pass that found kinds unserved looks again: soon after a change of their group, else after `fallbackMs`. */
export function recheckAfterMs(w: WaitOutcome, fallbackMs: number): number {
  if (w.changedWhileLooking) return RECHECK_CHANGED_MS
  if (w.sinceChangeMs !== undefined && w.sinceChangeMs < RECENT_CHANGE_MS) return Math.min(RECHECK_RECENT_MS, fallbackMs)
  return fallbackMs
}

export class KindWaiters {
  private readonly byGroup = new Map<string, Set<string>>()
  private readonly byOwner = new Map<string, readonly string[]>()
  /** Each group's last change: the counter's value and the time. */
  private readonly changedAt = new Map<string, { readonly seq: number; readonly atMs: number }>()
  private changes = 0

  /** Taken before a pass looks a kind up; given back to wait(). */
  mark(): number {
    return this.changes
  }

  /** `owner` waits for `groups` (replacing what it waited for), and learns how recently they changed. */
  wait(owner: string, groups: readonly string[], mark: number, nowMs: number): WaitOutcome {
    this.release(owner)
    this.byOwner.set(owner, groups)
    let changedWhileLooking = false
    let sinceChangeMs: number | undefined
    for (const g of groups) {
      let owners = this.byGroup.get(g)
      if (!owners) {
        owners = new Set()
        this.byGroup.set(g, owners)
      }
      owners.add(owner)
      const c = this.changedAt.get(g)
      if (c === undefined) continue
      if (c.seq >= mark) changedWhileLooking = true
      sinceChangeMs = Math.min(sinceChangeMs ?? Infinity, Math.max(0, nowMs - c.atMs))
    }
    return { changedWhileLooking, sinceChangeMs }
  }

  release(owner: string): void {
    for (const g of this.byOwner.get(owner) ?? []) {
      const owners = this.byGroup.get(g)
      owners?.delete(owner)
      if (owners?.size === 0) this.byGroup.delete(g)
    }
    this.byOwner.delete(owner)
  }

  /** Discovery of `group` changed: the owners that waited for it, which wait no more. */
  changed(group: string, nowMs: number): string[] {
    this.changedAt.set(group, { seq: this.changes++, atMs: nowMs })
    const owners = [...(this.byGroup.get(group) ?? [])]
    for (const o of owners) this.release(o)
    return owners
  }

  /** How many owners wait. */
  size(): number {
    return this.byOwner.size
  }
}
