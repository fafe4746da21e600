// The one way chart sources talk HTTP: an injected fetch, a timeout and a
// size limit on every request, redirects followed by hand so credentials
// never travel to another origin, and failures turned into ChartSourceErrors
// that say what happened without echoing any header we sent.

import { type ChartRef, ChartSourceCode, ChartSourceError } from './errors.ts'
import { displayUrl } from '../../encoding/url.ts'

/** The subset of WHATWG fetch the sources use; `globalThis.fetch` fits, tests may pass their own. */
export type FetchFn = (
  url: string,
  init: { method: 'GET'; headers: Record<string, string>; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>

export interface HttpDeps {
  readonly fetch: FetchFn
  /** Per request, connect to last body byte. */
  readonly timeoutMs: number
}

export interface HttpRequest {
  readonly url: string
  readonly headers?: Record<string, string>
  /** Sent only while the request stays on this origin (scheme, host and port). */
  readonly credentials?: { readonly origin: string; readonly authorization: string }
  readonly maxBytes: number
  /** What is fetched, for messages: "index.yaml", "manifest", "chart archive". */
  readonly what: string
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: Buffer
  /** After redirects. */
  readonly url: string
}

const MAX_REDIRECTS = 10

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, certificate errors) in cause.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return `${err.message}${cause}`
}

async function readBody(res: Response, req: HttpRequest, ref: ChartRef): Promise<Buffer> {
  const tooLarge = () =>
    new ChartSourceError(ChartSourceCode.TooLarge, ref, `${req.what} is larger than the limit of ${req.maxBytes} bytes`)
  const declared = Number(res.headers.get('content-length') ?? '-1')
  if (declared > req.maxBytes) {
    await res.body?.cancel()
    throw tooLarge()
  }
  if (res.body === null) return Buffer.alloc(0)
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of res.body) {
    total += chunk.length
    if (total > req.maxBytes) {
      await res.body.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(Buffer.from(chunk))
  }
  return Buffer.concat(chunks)
}

/**
 * GET with the limits applied. Any status is returned (callers decide what
 * a 401 or 404 means); only transport failures and timeouts throw here.
 */
export async function httpGet(deps: HttpDeps, req: HttpRequest, ref: ChartRef): Promise<HttpResponse> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs)
  let url = req.url
  try {
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { ...req.headers }
      if (req.credentials !== undefined && new URL(url).origin === req.credentials.origin)
        headers['authorization'] = req.credentials.authorization
      let res: Response
      try {
        res = await deps.fetch(url, { method: 'GET', headers, redirect: 'manual', signal: controller.signal })
      } catch (err) {
        const why = controller.signal.aborted ? `timed out after ${deps.timeoutMs} ms` : causeText(err)
        throw new ChartSourceError(ChartSourceCode.Unreachable, ref, `fetching ${req.what} from ${displayUrl(url)} failed: ${why}`)
      }
      const location = res.headers.get('location')
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel()
        if (hop >= MAX_REDIRECTS) throw new ChartSourceError(ChartSourceCode.BadRepository, ref, `too many redirects fetching ${req.what}`)
        const next = new URL(location, url)
        // Never downgrade from https to http on a redirect.
        if (new URL(url).protocol === 'https:' && next.protocol !== 'https:') {
          throw new ChartSourceError(ChartSourceCode.BadRepository, ref, `${req.what} redirects from https to ${next.protocol}`)
        }
        url = next.toString()
        continue
      }
      try {
        return { status: res.status, headers: res.headers, body: await readBody(res, req, ref), url }
      } catch (err) {
        if (err instanceof ChartSourceError) throw err
        const why = controller.signal.aborted ? `timed out after ${deps.timeoutMs} ms` : causeText(err)
        throw new ChartSourceError(ChartSourceCode.Unreachable, ref, `reading ${req.what} from ${displayUrl(url)} failed: ${why}`)
      }
    }
  } finally {
    clearTimeout(timer)
  }
}

/** A non-2xx answer as the error it stands for. */
export function statusError(res: HttpResponse, ref: ChartRef, what: string, notFound: ChartSourceCode): ChartSourceError {
  const s = res.status
  const code =
    s === 401 || s === 403
      ? ChartSourceCode.Unauthorized
      : s === 404
        ? notFound
        : s >= 500 || s === 429 || s === 408
          ? ChartSourceCode.Unreachable
          : ChartSourceCode.BadRepository
  const word = s === 401 ? 'unauthorized' : s === 403 ? 'forbidden' : s === 404 ? 'not found' : 'failed'
  return new ChartSourceError(code, ref, `fetching ${what} from ${displayUrl(res.url)}: ${word} (HTTP ${s})`, { status: s })
}
