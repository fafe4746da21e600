// Render threads run at a lower CPU priority than the rest of the process.
// A slow template burns a core for up to the render time limit; on a busy
// node that must not starve the thread that renews the leader Lease and
// serves drift events (docs/render-time-limit.md). On Linux, setpriority on a
// thread id changes that thread alone; lowering it needs no privilege.

import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** The niceness of render threads (0 is the process's own, 19 the lowest). */
export const RENDER_THREAD_NICENESS = 10

/** This thread's kernel id, from /proc/thread-self (Linux); undefined elsewhere. */
export function currentThreadId(readlink: (p: string) => string = readlinkSync): number | undefined {
  try {
    const tid = Number(readlink('/proc/thread-self').split('/').pop())
    return Number.isInteger(tid) && tid > 0 ? tid : undefined
  } catch {
    return undefined
  }
}

/**
 * Lowers the calling thread's priority to `niceness` (never raises it).
 * Returns the thread id it changed, or undefined where threads cannot be
 * told apart or the change is refused: renders then run at the process's
 * priority, as before.
 */
export function lowerThreadPriority(niceness = RENDER_THREAD_NICENESS): number | undefined {
  const tid = currentThreadId()
  if (tid === undefined) return undefined
  try {
    if (getPriority(tid) < niceness) setPriority(tid, niceness)
    return tid
  } catch {
    return undefined
  }
}
