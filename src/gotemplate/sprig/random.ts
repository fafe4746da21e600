// Random strings and bytes from the platform's cryptographic generator, as
// goutils' CryptoRandom* and Sprig's randBytes use crypto/rand.

import { randomBytes, randomInt } from 'node:crypto'

const sets = {
  alnum: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  alpha: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numeric: '0123456789',
  ascii: Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(''),
} as const

/** count runes from the set; a negative count is an error that Sprig ignores, giving "". */
export function randomString(count: number, kind: keyof typeof sets): string {
  if (count <= 0) return ''
  const set = sets[kind]
  let out = ''
  for (let i = 0; i < count; i++) out += set[randomInt(set.length)]
  return out
}

export function randomBuffer(count: number): Uint8Array {
  return randomBytes(count)
}
