// API errors carry the HTTP status, the Kubernetes Status reason and the
// request that failed, so callers can branch on 404/409/410 and messages say
// which object was involved.

export interface StatusDetails {
  reason?: string
  message?: string
  code?: number
}

export class KubeApiError extends Error {
  readonly code: number
  readonly reason: string
  readonly method: string
  readonly path: string
  /** Message of the API server's Status object, without our request prefix. */
  readonly apiMessage: string

  constructor(method: string, path: string, code: number, reason: string, apiMessage: string) {
    super(`${method} ${path}: ${code} ${reason}: ${apiMessage}`)
    this.name = 'KubeApiError'
    this.code = code
    this.reason = reason
    this.method = method
    this.path = path
    this.apiMessage = apiMessage
  }

  static fromResponse(method: string, path: string, code: number, body: string): KubeApiError {
    let reason = ''
    let message = body.slice(0, 500)
    try {
      const status = JSON.parse(body) as StatusDetails
      reason = status.reason ?? ''
      message = status.message ?? message
    } catch {
      // not a Status object; keep the raw (truncated) text
    }
    return new KubeApiError(method, path, code, reason || String(code), message)
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
