// What the webhook may hold at once, derived from the memory it is given.
// The chart passes the container's memory limit (downward API) and sets
// V8's old-space limit from it (--max-old-space-size); the same limit sizes
// the budget for bodies in flight and the connection cap here. The
// fractions and what they were measured against are in docs/webhook-limits.md.

const MiB = 1024 * 1024

/** Measured cost of one open TLS connection on the server side, rounded up. */
export const BYTES_PER_CONNECTION = 80 * 1024

export interface Sizing {
  /** Bytes of request bodies held at once while they arrive. */
  readonly budgetBytes: number
  /** Part of budgetBytes kept for bodies of at most 1 MiB. */
  readonly reservedForSmall: number
  readonly maxConnections: number
}

/**
 * Most heap one review may take once parsed: 40% of V8's heap limit. The
 * rest holds the caches (~10 MiB for 10,000 instances), the text of the body
 * while it is parsed, and garbage not yet collected; and V8 keeps the pages
 * a parse grew into for a while, so what one review takes stays resident
 * (measured: with 60%, two of the densest objects the API server stores took
 * the process to 223 MiB and it stayed there).
 */
export function parseAllowance(heapLimitBytes: number): number {
  return Math.floor(heapLimitBytes * 0.4)
}

/**
 * Shares of the memory limit, chosen so that all of them at their worst at
 * once still fit it (docs/webhook-limits.md): V8's old space gets 50% (the
 * chart's webhook.heapPercent), bodies in flight 15%, open connections 10%,
 * and the rest is the young generation, code and native memory. The body
 * budget is never less than one body at the limit plus the small reserve: a
 * review the API server can send must always be judgeable on an idle webhook.
 */
export const BODY_BUDGET_SHARE = 0.15
export const CONNECTION_SHARE = 0.1

export function sizeFor(memoryLimitBytes: number, bodyLimit: number): Sizing {
  const reservedForSmall = Math.min(8 * MiB, bodyLimit)
  const budgetBytes = Math.max(Math.floor(memoryLimitBytes * BODY_BUDGET_SHARE), bodyLimit + reservedForSmall)
  const maxConnections = Math.min(4096, Math.max(128, Math.floor((memoryLimitBytes * CONNECTION_SHARE) / BYTES_PER_CONNECTION)))
  return { budgetBytes, reservedForSmall, maxConnections }
}

/** "268435456", "256Mi", "1Gi", "512M": the forms a memory limit is given in. Undefined when it is none of them. */
export function parseMemoryQuantity(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(text.trim())
  if (m === null) return undefined
  const factor: Readonly<Record<string, number>> = {
    Ki: 1024,
    Mi: MiB,
    Gi: 1024 * MiB,
    Ti: 1024 * 1024 * MiB,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  }
  const bytes = Math.floor(Number(m[1]) * (m[2] === undefined ? 1 : (factor[m[2]] ?? 1)))
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined
}
