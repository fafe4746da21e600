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
 * Standard output (or `dest`), buffered: lines are written once 4 KiB have gathered or a
 * second has passed, so a burst of denials costs a few write calls instead of
 * one per line (a per-line write was a measurable part of a request). The
 * buffer is flushed synchronously when the process exits; a SIGKILL or an
 * out-of-memory kill can lose at most the last second of lines. If stdout
 * stops draining, lines beyond 16 MiB are dropped rather than growing the heap.
 */
export function bufferedLogDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, sync: false, minLength: 4096, periodicFlush: 1000, maxLength: 16 * 1024 * 1024 })
}

/**
 * pino's ISO time function formats a Date on every line; under load many
 * lines fall in the same millisecond, so the formatted value is kept until
 * the clock moves on. The output is identical to pino.stdTimeFunctions.isoTime.
 */
export function cachedIsoTime(now: () => number = Date.now): () => string {
  let lastMs = Number.NaN
  let last = ''
  return () => {
    const ms = now()
    if (ms !== lastMs) {
      lastMs = ms
      last = `,"time":"${new Date(ms).toISOString()}"`
    }
    return last
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
