// Base64/base32 with Go's standard encodings (padding required; a bad input
// yields the error text as the result, as Sprig does) and the hash sums.

import { createHash } from 'node:crypto'
import type { FuncMap } from '../value.ts'
import { fn, str } from './spec.ts'
import { fromUtf8, utf8 } from './utf8.ts'

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

function decodeMap(alphabet: string): Int16Array {
  const m = new Int16Array(256).fill(-1)
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i
  return m
}
const b64map = decodeMap(B64)
const b32map = decodeMap(B32)

export class CorruptInputError extends Error {}
const corrupt = (offset: number): CorruptInputError => new CorruptInputError(`illegal base64 data at input byte ${offset}`)

export function base64Encode(b: Uint8Array): string {
  return Buffer.from(b).toString('base64')
}

/** base64.StdEncoding.DecodeString, quantum by quantum for Go's error offsets. */
export function base64Decode(s: string): Uint8Array {
  const src = utf8(s)
  const out: number[] = []
  let si = 0
  const isNl = (c: number | undefined): boolean => c === 0x0a || c === 0x0d
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0]
    let dlen = 4
    let trailing: CorruptInputError | undefined
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out)
        throw corrupt(si - j)
      }
      const c = src[si] ?? 0
      si++
      const v = b64map[c] ?? -1
      if (v >= 0) {
        dbuf[j] = v
        continue
      }
      if (isNl(c)) {
        j--
        continue
      }
      if (c !== 0x3d) throw corrupt(si - 1)
      if (j === 0 || j === 1) throw corrupt(si - 1)
      if (j === 2) {
        while (si < src.length && isNl(src[si])) si++
        if (si === src.length) throw corrupt(src.length)
        if (src[si] !== 0x3d) throw corrupt(si - 1)
        si++
      }
      while (si < src.length && isNl(src[si])) si++
      if (si < src.length) trailing = corrupt(si)
      dlen = j
      break
    }
    const val = ((dbuf[0] ?? 0) << 18) | ((dbuf[1] ?? 0) << 12) | ((dbuf[2] ?? 0) << 6) | (dbuf[3] ?? 0)
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff]
    out.push(...bytes.slice(0, dlen - 1))
    if (trailing) throw trailing
  }
  return Uint8Array.from(out)
}

export function base32Encode(b: Uint8Array): string {
  let out = ''
  for (let i = 0; i < b.length; i += 5) {
    const chunk = [...b.subarray(i, i + 5)]
    const n = chunk.length
    while (chunk.length < 5) chunk.push(0)
    let bits = 0n
    for (const c of chunk) bits = (bits << 8n) | BigInt(c)
    const chars = Math.ceil((n * 8) / 5)
    for (let k = 0; k < 8; k++) {
      out += k < chars ? B32[Number((bits >> BigInt(35 - 5 * k)) & 31n)] : '='
    }
  }
  return out
}

/** base32.StdEncoding.DecodeString: newlines are dropped first, then quanta of 8. */
export function base32Decode(s: string): Uint8Array {
  let src = [...utf8(s)].filter((c) => c !== 0x0a && c !== 0x0d)
  const olen = src.length
  const out: number[] = []
  const fail32 = (offset: number): never => {
    throw new CorruptInputError(`illegal base32 data at input byte ${offset}`)
  }
  let end = false
  while (src.length > 0 && !end) {
    const dbuf = [0, 0, 0, 0, 0, 0, 0, 0]
    let dlen = 8
    for (let j = 0; j < 8; ) {
      if (src.length === 0) fail32(olen - src.length - j)
      const c = src[0] ?? 0
      src = src.slice(1)
      if (c === 0x3d && j >= 2 && src.length < 8) {
        if (src.length + j < 8 - 1) fail32(olen)
        for (let k = 0; k < 8 - 1 - j; k++) {
          if (src.length > k && src[k] !== 0x3d) fail32(olen - src.length + k - 1)
        }
        dlen = j
        end = true
        if (dlen === 1 || dlen === 3 || dlen === 6) fail32(olen - src.length - 1)
        break
      }
      const v = b32map[c] ?? -1
      if (v < 0) fail32(olen - src.length - 1)
      dbuf[j] = v
      j++
    }
    const d = dbuf.map((x) => x & 0xff)
    const [d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0] = d
    const bytes = [
      (d0 << 3) | (d1 >> 2),
      (d1 << 6) | (d2 << 1) | (d3 >> 4),
      (d3 << 4) | (d4 >> 1),
      (d4 << 7) | (d5 << 2) | (d6 >> 3),
      (d6 << 5) | d7,
    ].map((x) => x & 0xff)
    const n = { 8: 5, 7: 4, 5: 3, 4: 2, 2: 1 }[dlen] ?? 0
    out.push(...bytes.slice(0, n))
  }
  return Uint8Array.from(out)
}

function adler32(b: Uint8Array): number {
  let a = 1
  let s = 0
  for (const c of b) {
    a = (a + c) % 65521
    s = (s + a) % 65521
  }
  return (s * 65536 + a) >>> 0
}

const hash = (alg: string) => (s: unknown) =>
  createHash(alg)
    .update(utf8(String(s)))
    .digest('hex')

function decodeOrMessage(decode: (s: string) => Uint8Array, s: string): string {
  try {
    return fromUtf8(decode(s))
  } catch (e) {
    if (e instanceof CorruptInputError) return e.message
    throw e
  }
}

export const encodingFuncs: FuncMap = {
  b64enc: fn(['string'], (s) => base64Encode(utf8(str(s)))),
  b64dec: fn(['string'], (s) => decodeOrMessage(base64Decode, str(s))),
  b32enc: fn(['string'], (s) => base32Encode(utf8(str(s)))),
  b32dec: fn(['string'], (s) => decodeOrMessage(base32Decode, str(s))),
  sha1sum: fn(['string'], (s) => hash('sha1')(str(s))),
  sha256sum: fn(['string'], (s) => hash('sha256')(str(s))),
  sha512sum: fn(['string'], (s) => hash('sha512')(str(s))),
  adler32sum: fn(['string'], (s) => String(adler32(utf8(str(s))))),
}
