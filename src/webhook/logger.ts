// The webhook's root logger: JSON lines on stdout, ISO timestamps. Nothing
// logs admission objects, but the redaction below is a second line of defence
// should a request or review ever be passed to the logger by mistake.

import { hostname } from 'node:os'
import pino, { type DestinationStream, type Logger } from 'pino'
import type { LogLevel } from './config.ts'

export const REDACTED_PATHS: readonly string[] = Object.freeze([
  'req.headers.authorization',
  'request.object',
  'request.oldObject',
  'request.options',
  '*.object',
  '*.oldObject',
  'body',
])

export function createWebhookLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    // Children add `component` (webhook, health, cert-watcher, webhook-caches).
    base: { pid: process.pid, hostname: hostname(), process: 'template-sync-webhook' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACTED_PATHS], censor: '[masked]' },
  }
  return destination ? pino(options, destination) : pino(options)
}
