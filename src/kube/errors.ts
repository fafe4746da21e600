// API errors carry the HTTP status, the Kubernetes Status reason and the
// request that failed, so callers can branch on 404/409/410 and messages say
// which object was involved.

export interface StatusDetails {
  reason?: string
  message?: string
  code?: number
  details?: { causes?: StatusCause[] }
}

/** One cause of a rejected request (metav1.StatusCause): for a 422, one invalid field each. */
export interface StatusCause {
  readonly reason?: string
  readonly message?: string
  /** The field in the API's own path syntax, e.g. spec.template or spec.clusterIPs[0]. */
  readonly field?: string
}

export class KubeApiError extends Error {
  readonly code: number
  readonly reason: string
  readonly method: string
  readonly path: string
  /** Message of the API server's Status object, without our request prefix. */
  readonly apiMessage: string
  /** details.causes of the Status object (empty when it had none). */
  readonly causes: readonly StatusCause[]

  constructor(method: string, path: string, code: number, reason: string, apiMessage: string, causes: readonly StatusCause[] = []) {
    super(`${method} ${path}: ${code} ${reason}: ${apiMessage}`)
    this.name = 'KubeApiError'
    this.code = code
    this.reason = reason
    this.method = method
    this.path = path
    this.apiMessage = apiMessage
    this.causes = causes
  }

  static fromResponse(method: string, path: string, code: number, body: string): KubeApiError {
    let reason = ''
    let message = body.slice(0, 500)
    let causes: StatusCause[] = []
    try {
      const status = JSON.parse(body) as StatusDetails
      reason = status.reason ?? ''
      message = status.message ?? message
      if (Array.isArray(status.details?.causes)) causes = status.details.causes.filter((c) => typeof c === 'object' && c !== null)
    } catch {
      // not a Status object; keep the raw (truncated) text
    }
    return new KubeApiError(method, path, code, reason || String(code), message, causes)
  }
}

export function isNotFound(e: unknown): boolean {
  return e instanceof KubeApiError && e.code === 404
}

export function isConflict(e: unknown): boolean {
  return e instanceof KubeApiError && e.code === 409
}

export function isGone(e: unknown): boolean {
  return e instanceof KubeApiError && e.code === 410
}

// The storage layer's words for a message over its gRPC limit; the API
// server passes them on as a 500 without a reason of its own.
const STORAGE_TOO_LARGE = /ResourceExhausted|larger than max|too large/i

/**
 * Whether a write was refused for its size: 413 (the body over the API
 * server's limit, or over etcd's), or a 500 that is the storage layer's
 * ResourceExhausted. Only the message tells the latter from other 500s; the
 * caller's answer (write less) is safe either way.
 */
export function isTooLarge(e: unknown): boolean {
  if (!(e instanceof KubeApiError)) return false
  return e.code === 413 || (e.code === 500 && STORAGE_TOO_LARGE.test(e.apiMessage))
}

// How the API server words a change to a field that may not change: the
// generic immutability check (Job spec.template, Deployment spec.selector,
// an immutable ConfigMap's data), Service spec.clusterIPs and ipFamilies,
// RoleBinding roleRef, the StatefulSet spec, and the message CRD authors
// conventionally give a CEL transition rule.
const IMMUTABLE =
  /field is immutable(?: when `immutable` is set)?|\bis immutable\b|may not change once set|cannot change roleRef|updates to statefulset spec for fields other than .*? are forbidden/i

export interface ImmutableField {
  /** The field in the API's own path syntax; "(unnamed field)" when the API did not name it. */
  readonly field: string
  /** The API server's words for why, e.g. "field is immutable"; never the value it quotes. */
  readonly detail: string
}

/**
 * The fields a rejected create, update or apply tried to change although they
 * are immutable; empty for any other error. Read from the Status causes (a
 * 422 Invalid names one field each), or from the message when a webhook or an
 * older server gave no causes.
 */
export function immutableFields(e: unknown): ImmutableField[] {
  if (!(e instanceof KubeApiError) || e.code !== 422) return []
  const out: ImmutableField[] = []
  for (const c of e.causes) {
    const m = IMMUTABLE.exec(c.message ?? '')
    if (m && !out.some((f) => f.field === (c.field || '(unnamed field)'))) out.push({ field: c.field || '(unnamed field)', detail: m[0] })
  }
  if (out.length > 0) return out
  const m = IMMUTABLE.exec(e.apiMessage)
  return m ? [{ field: '(unnamed field)', detail: m[0] }] : []
}

/** The message of an error for conditions and logs: the API server's own words for an API error. */
export function errorMessage(e: unknown): string {
  if (e instanceof KubeApiError) return e.apiMessage
  return e instanceof Error ? e.message : String(e)
}

/** errorMessage with the status code and reason of an API error in front, for a user at a terminal. */
export function errorWithStatus(e: unknown): string {
  return e instanceof KubeApiError ? `${e.code} ${e.reason}: ${e.apiMessage}` : errorMessage(e)
}
