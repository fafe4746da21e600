// Credentials on disk change under a running process: projected
// service-account tokens rotate, certificate managers renew client
// certificates. Like client-go, read such a file again once a minute instead
// of per request or never.

import { readFileSync } from 'node:fs'

export const REREAD_MS = 60_000

/**
 * Returns a function giving the file's current contents, read now and again
 * whenever the last read is older than REREAD_MS. A failed read throws with
 * the file named (what the file holds is never part of a message) and is
 * retried on the next call.
 */
export function rereadingFile<T>(path: string, what: string, parse: (raw: Buffer) => T, now: () => number = Date.now): () => T {
  let value: T | undefined
  let readAt = -Infinity
  const current = (): T => {
    if (value === undefined || now() - readAt > REREAD_MS) {
      let raw: Buffer
      try {
        raw = readFileSync(path)
      } catch (err) {
        throw new Error(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
      }
      value = parse(raw)
      readAt = now()
    }
    return value
  }
  current()
  return current
}

/** A bearer token file: surrounding whitespace dropped, empty is an error (as client-go does). */
export function tokenFile(path: string, now?: () => number): () => string {
  return rereadingFile(
    path,
    'token file',
    (raw) => {
      const token = raw.toString('utf8').trim()
      if (token === '') throw new Error(`token file ${path} is empty`)
      return token
    },
    now,
  )
}
