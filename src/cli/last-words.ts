// No way out of `template-sync local` without a word: an unhandled promise
// rejection or an uncaught exception is reported with its cause and turns into
// an orderly stop; an event loop that runs empty while `local` should be
// waiting is reported the same way; and an exit that was not planned says so
// and kills the children on the way out, so that none is left running.

import { writeSync } from 'node:fs'
import { describeError } from './exit-report.ts'

export interface LastWordsOptions {
  /** Prefix of every line, e.g. "template-sync local". */
  readonly who: string
  /** An error escaped or nothing is left to wait for: stop everything, then exit with code 1. */
  readonly onFatal: (what: string, err: unknown) => void
  /** The process is exiting: a last, synchronous chance to kill what it started. */
  readonly onExit: () => void
  /** Synchronous line writer; stderr by default (the process may be about to end). */
  readonly write?: (line: string) => void
}

export interface LastWords {
  /** The owner is about to return normally: exiting is expected from now on. */
  planned(): void
  /** Removes the handlers. */
  dispose(): void
}

const toStderr = (line: string): void => {
  writeSync(2, `${line}\n`)
}

export function installLastWords(opts: LastWordsOptions): LastWords {
  const write = opts.write ?? toStderr
  let planned = false
  let fatal = false
  const report = (what: string, err: unknown): void => {
    const [first, ...rest] = describeError(err)
    write(`${opts.who}: ${what}: ${first ?? ''}`)
    for (const line of rest) write(line)
    if (fatal) return
    fatal = true
    opts.onFatal(what, err)
  }
  const onRejection = (reason: unknown): void => report('unhandled promise rejection', reason)
  const onException = (err: unknown): void => report('uncaught exception', err)
  const onBeforeExit = (): void => {
    if (planned || fatal) return
    report('internal error', new Error('nothing is left to wait for, yet the run was not over; stopping'))
  }
  const onExit = (code: number): void => {
    if (!planned) write(`${opts.who}: exiting with code ${code} before stopping in order; killing the processes it started`)
    opts.onExit()
  }
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)
  process.on('beforeExit', onBeforeExit)
  process.on('exit', onExit)
  return {
    planned: () => {
      planned = true
    },
    dispose: () => {
      process.off('unhandledRejection', onRejection)
      process.off('uncaughtException', onException)
      process.off('beforeExit', onBeforeExit)
      process.off('exit', onExit)
    },
  }
}
