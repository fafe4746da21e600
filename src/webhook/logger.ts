// The webhook's root logger: JSON lines on stdout, ISO timestamps. Nothing
// logs admission objects, but the redaction below is a second line of defence
// should a request or review ever be passed to the logger by mistake.

import { hostname } from 'node:os'
import pino, { type DestinationStream, type Logger } from 'pino'
import type { LogLevel } from './config.ts'

// Exact paths only: a wildcard such as "*.object" makes the redactor walk
// every key of every line, which cost more than writing the line itself. The
// list names the shapes a mistaken log call would take (the request, the
// review, the raw body).
export const REDACTED_PATHS: readonly string[] = Object.freeze([
  'req.headers.authorization',
  'req.body',
  'body',
  'object',
  'oldObject',
  'options',
  'request.object',
  'request.oldObject',
  'request.options',
  'review.request.object',
  'review.request.oldObject',
  'review.request.options',
])

/**
 * Standard output (or `dest`), buffered: lines are written once 4 KiB have
 * gathered or a second has passed, so a burst of denials costs a few write
 * calls instead of one per line (a per-line write was a measurable part of a
 * request). The buffer is flushed synchronously when the process exits; a
 * SIGKILL or an out-of-memory kill can lose at most the last second of lines.
 * A file path opens asynchronously, so lines logged before it is open are lost
 * if the process exits at once; stdout (a descriptor) has no such window. If
 * stdout stops draining, lines beyond 16 MiB are dropped rather than growing
 * the heap.
 */
export function bufferedLogDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, sync: false, minLength: 4096, periodicFlush: 1000, maxLength: 16 * 1024 * 1024 })
}

/**
 * pino's ISO time function formats a Date on every line, which showed in
 * profiles of a burst of denials. The date and time up to the second are
 * formatted once per second; each line only appends its milliseconds. The
 * output is identical to pino.stdTimeFunctions.isoTime.
 */
export function cachedIsoTime(now: () => number = Date.now): () => string {
  let second = Number.NaN
  let prefix = ''
  return () => {
    const ms = now()
    const s = Math.floor(ms / 1000)
    if (s !== second) {
      second = s
      // "2026-11-29T21:30:00." from "2026-11-29T21:30:00.000Z"
      prefix = `,"time":"${new Date(s * 1000).toISOString().slice(0, -4)}`
    }
    const frac = ms - s * 1000
    return `${prefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z"`
  }
}

export function createWebhookLogger(level: LogLevel, destination: DestinationStream = bufferedLogDestination()): Logger {
  const options = {
    level,
    // Children add `component` (webhook, health, cert-watcher, webhook-caches).
    base: { pid: process.pid, hostname: hostname(), process: 'template-sync-webhook' },
    timestamp: cachedIsoTime(),
    redact: { paths: [...REDACTED_PATHS], censor: '[masked]' },
  }
  return pino(options, destination)
}
