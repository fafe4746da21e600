// RFC 6901 JSON pointers for concrete paths: what machines (logs, metrics,
// JSON patches) read, next to the display form people read.

import type { PathStep } from './types.ts'

export function toPointer(steps: readonly PathStep[]): string {
  let out = ''
  for (const step of steps) {
    out += '/' + (typeof step === 'number' ? String(step) : escapeToken(step))
  }
  return out
}

/** Order matters: "~" first, or the "~1" produced for "/" would be escaped again. */
export function escapeToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token
  return token.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** The unescaped reference tokens of a pointer, the inverse of toPointer ("" is the whole document). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return []
  // Order matters again, reversed: "~1" first, so "~01" decodes to "~1", not "/".
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
}
