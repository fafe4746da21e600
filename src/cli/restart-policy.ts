// When `template-sync local` restarts a process that exited: the kubelet's
// rule (exponential back-off, reset once a run lasted long enough), with
// figures for a laptop: a lost Lease or an API server outage should be
// recovered from within seconds of the API server coming back, and a process
// that crashes at once should not spin.

export interface RestartPolicy {
  /** Delay before the first restart. */
  readonly initialMs: number
  /** The delay doubles per quick failure up to this. */
  readonly maxMs: number
  /** A run at least this long counts as healthy: the next failure starts from initialMs again. */
  readonly resetAfterMs: number
}

export const LOCAL_RESTART_POLICY: RestartPolicy = Object.freeze({ initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 })

export interface RestartPlan {
  /** Failures in a row, this one included. */
  readonly streak: number
  readonly delayMs: number
}

/** The delay before restarting a process that ran for `ranMs` after `streak` earlier quick failures. */
export function planRestart(policy: RestartPolicy, streak: number, ranMs: number): RestartPlan {
  const next = ranMs >= policy.resetAfterMs ? 1 : streak + 1
  return { streak: next, delayMs: Math.min(policy.initialMs * 2 ** (next - 1), policy.maxMs) }
}
