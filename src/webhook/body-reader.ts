// Reading a request body into one buffer, within the body limit and the
// memory budget. A declared Content-Length (the API server always sends one)
// is checked and reserved before a byte is read, and the body is copied into
// a buffer of exactly that size, made once the first 64 KiB have arrived (a
// body that trickles in never costs its declared size, nor V8 the
// collections that allocating it would start); a chunked body is reserved
// chunk by chunk.
// While it arrives, the budget may stop it for another body if it falls
// behind the budget's pace (memory-budget.ts). Refusals are errors with an
// HTTP status, answered by the app's error handler.

import { isUtf8 } from 'node:buffer'
import type { Readable } from 'node:stream'
import type { BodyInFlight, MemoryBudget } from './memory-budget.ts'

export type ReadProblem = 'BodyTooLarge' | 'Busy' | 'TooSlow' | 'Aborted' | 'InvalidEncoding'

export class BodyRefused extends Error {
  override readonly name = 'BodyRefused'
  readonly statusCode: number
  readonly problem: ReadProblem

  constructor(problem: ReadProblem, statusCode: number, message: string) {
    super(message)
    this.problem = problem
    this.statusCode = statusCode
  }
}

export interface ReadOptions {
  /** Content-Length as sent; undefined for a chunked body. */
  readonly declared: number | undefined
  readonly limit: number
  readonly budget: MemoryBudget
  /** Milliseconds on a monotonic clock (performance.now by default). */
  readonly now?: () => number
}

export interface ReadBody {
  /** The body, checked to be UTF-8. */
  readonly bytes: Buffer
  /** Gives the reserved bytes back; call once the text has been parsed. */
  readonly release: () => void
}

const tooLarge = (limit: number): BodyRefused =>
  new BodyRefused('BodyTooLarge', 413, `the request body exceeds the limit of ${limit} bytes`)

const busy = (): BodyRefused =>
  new BodyRefused('Busy', 503, 'the template-sync webhook is reading other large review bodies at its memory limit; retry')

/** A declared body gets its buffer of exactly its size once this much of it has arrived (or all of it, if less). */
export const EXACT_BUFFER_AFTER = 64 * 1024

const tooSlow = (): BodyRefused =>
  new BodyRefused('TooSlow', 408, "the request body arrived too slowly while other requests needed its share of the webhook's memory")

/** Reads the whole body (UTF-8); rejects with BodyRefused. */
export function readBody(payload: Readable, opts: ReadOptions): Promise<ReadBody> {
  const { declared, limit, budget } = opts
  const now = opts.now ?? (() => performance.now())
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge(limit))
  if (declared !== undefined && !budget.tryReserve(declared, declared, now())) return Promise.reject(busy())
  let reserved = declared ?? 0
  let released = false
  let untrack = (): void => {}
  const release = (): void => {
    if (released) return
    released = true
    untrack()
    budget.release(reserved)
  }
  return new Promise<ReadBody>((resolve, reject) => {
    let exact: Buffer | undefined
    const chunks: Buffer[] = []
    let received = 0
    let complete = false
    const inFlight: BodyInFlight = {
      since: now(),
      get received() {
        return received
      },
      get reserved() {
        return reserved
      },
      get complete() {
        return complete
      },
      cut: () => stop(tooSlow()),
    }
    untrack = budget.track(inFlight)
    const stop = (err: BodyRefused): void => {
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onError)
      payload.removeListener('aborted', onAborted)
      // Not destroyed: the answer still has to go out on this connection (with Connection: close).
      payload.pause()
      release()
      reject(err)
    }
    const onData = (chunk: Buffer): void => {
      if (received + chunk.length > limit) return stop(tooLarge(limit))
      if (exact !== undefined) {
        chunk.copy(exact, received)
      } else {
        if (declared === undefined) {
          if (!budget.tryReserve(chunk.length, undefined, now(), inFlight)) return stop(busy())
          reserved += chunk.length
        }
        chunks.push(chunk)
        if (declared !== undefined && received + chunk.length >= Math.min(declared, EXACT_BUFFER_AFTER)) {
          exact = Buffer.allocUnsafe(declared)
          let at = 0
          for (const c of chunks) at += c.copy(exact, at)
          chunks.length = 0
        }
      }
      received += chunk.length
    }
    const onEnd = (): void => {
      complete = true
      payload.removeListener('data', onData)
      const whole = exact === undefined ? Buffer.concat(chunks, received) : exact.subarray(0, received)
      // The API server always sends UTF-8; decoding anything else would quietly turn bytes into U+FFFD.
      if (!isUtf8(whole)) {
        release()
        reject(new BodyRefused('InvalidEncoding', 400, 'the request body is not valid UTF-8'))
        return
      }
      resolve({ bytes: whole, release })
    }
    const onError = (): void => stop(new BodyRefused('Aborted', 400, 'the request body could not be read'))
    const onAborted = (): void => stop(new BodyRefused('Aborted', 400, 'the client aborted the request body'))
    payload.on('data', onData)
    payload.once('end', onEnd)
    payload.once('error', onError)
    payload.once('aborted', onAborted)
  })
}
