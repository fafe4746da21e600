// The logging function the libraries take (lease, events, certificates, work
// queue), so that none of them depends on a logger implementation; each process
// hands them its pino logger through logTo().

import type { Logger } from 'pino'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export type LogFn = (level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) => void

export const noLog: LogFn = () => {}

/** Writes through a pino logger: fields become the line's properties. */
export function logTo(logger: Logger): LogFn {
  return (level, msg, fields) => logger[level]({ ...(fields ?? {}) }, msg)
}
