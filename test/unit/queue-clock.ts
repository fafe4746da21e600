// A manual clock for the work-queue tests: time moves only when told to, and
// due timers fire in time order, so delays are asserted without sleeping.

import type { QueueClock } from '../../src/controller/queue.ts'

interface FakeTimer {
  readonly id: number
  readonly at: number
  readonly fn: () => void
}

/** A clock that moves only when told to, firing due timers in time order. */
export class ManualClock implements QueueClock {
  t = 1_700_000_000_000
  private timers: FakeTimer[] = []
  private nextId = 1

  now(): number {
    return this.t
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.t + ms, fn }
    this.timers.push(timer)
    return timer.id
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle)
  }

  pendingTimers(): number {
    return this.timers.length
  }

  advance(ms: number): void {
    const end = this.t + ms
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0]
      if (!due) break
      this.timers = this.timers.filter((x) => x !== due)
      this.t = Math.max(this.t, due.at)
      due.fn()
    }
    this.t = end
  }
}
