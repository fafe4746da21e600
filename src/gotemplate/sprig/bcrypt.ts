// bcrypt as golang.org/x/crypto/bcrypt produces it ($2a$, cost 10, random
// salt), for Sprig's bcrypt and htpasswd. Blowfish's initial P-array and
// S-boxes are the hexadecimal digits of pi; they are computed once, on first
// use, instead of being spelled out here.

import { randomBuffer } from './random.ts'
import { utf8 } from './utf8.ts'

const WORDS = 18 + 4 * 256

let piWords: Uint32Array | undefined

// The first WORDS * 8 hexadecimal digits of pi's fraction, by Machin's formula
// in fixed point: pi = 16 atan(1/5) - 4 atan(1/239).
function piFractionWords(): Uint32Array {
  if (piWords !== undefined) return piWords
  const bits = BigInt(WORDS * 32 + 64)
  const one = 1n << bits
  const atanInv = (x: bigint): bigint => {
    const x2 = x * x
    let term = one / x
    let sum = term
    for (let k = 1n; term !== 0n; k++) {
      term /= x2
      const t = term / (2n * k + 1n)
      sum += k % 2n === 1n ? -t : t
    }
    return sum
  }
  const pi = 16n * atanInv(5n) - 4n * atanInv(239n)
  const frac = (pi - 3n * one) >> 64n
  const out = new Uint32Array(WORDS)
  for (let i = 0; i < WORDS; i++) out[i] = Number((frac >> BigInt((WORDS - 1 - i) * 32)) & 0xffffffffn)
  piWords = out
  return out
}

class Blowfish {
  readonly p: Uint32Array
  readonly s: Uint32Array

  constructor() {
    const w = piFractionWords()
    this.p = w.slice(0, 18)
    this.s = w.slice(18)
  }

  /** One 64-bit block; the halves come back in out[0], out[1]. */
  encrypt(l: number, r: number, out: Uint32Array): void {
    const p = this.p
    const s = this.s
    let xl = l ^ (p[0] as number)
    let xr = r
    for (let i = 1; i <= 16; i += 2) {
      xr ^=
        ((((s[xl >>> 24] as number) + (s[256 | ((xl >>> 16) & 0xff)] as number)) ^ (s[512 | ((xl >>> 8) & 0xff)] as number)) +
          (s[768 | (xl & 0xff)] as number)) ^
        (p[i] as number)
      xl ^=
        ((((s[xr >>> 24] as number) + (s[256 | ((xr >>> 16) & 0xff)] as number)) ^ (s[512 | ((xr >>> 8) & 0xff)] as number)) +
          (s[768 | (xr & 0xff)] as number)) ^
        (p[i + 1] as number)
    }
    out[0] = xr ^ (p[17] as number)
    out[1] = xl
  }

  /** ExpandKey (salt undefined) or expandKeyWithSalt from Go's blowfish package. */
  expand(key: Uint8Array, salt?: Uint8Array): void {
    const next = (b: Uint8Array, pos: { j: number }): number => {
      let w = 0
      for (let i = 0; i < 4; i++) {
        w = (w << 8) | (b[pos.j] as number)
        pos.j++
        if (pos.j >= b.length) pos.j = 0
      }
      return w
    }
    const kp = { j: 0 }
    for (let i = 0; i < 18; i++) this.p[i] = (this.p[i] as number) ^ next(key, kp)
    const sp = { j: 0 }
    const lr = new Uint32Array(2)
    const fill = (arr: Uint32Array, count: number): void => {
      for (let i = 0; i < count; i += 2) {
        if (salt !== undefined) {
          lr[0] = (lr[0] as number) ^ next(salt, sp)
          lr[1] = (lr[1] as number) ^ next(salt, sp)
        }
        this.encrypt(lr[0] as number, lr[1] as number, lr)
        arr[i] = lr[0] as number
        arr[i + 1] = lr[1] as number
      }
    }
    fill(this.p, 18)
    fill(this.s, 1024)
  }
}

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

function bcryptBase64(b: Uint8Array): string {
  const std = Buffer.from(b).toString('base64').replace(/=+$/, '')
  let out = ''
  for (const c of std) out += ALPHABET[STD.indexOf(c)]
  return out
}

export class BcryptError extends Error {}

/** The bcrypt hash of password with the given 16-byte salt and cost. */
export function bcryptHash(password: string, cost: number, salt: Uint8Array): string {
  const pw = utf8(password)
  if (pw.length > 72) throw new BcryptError('bcrypt: password length exceeds 72 bytes')
  // Go hashes the base64 text of the salt decoded again, which is the salt itself.
  const key = new Uint8Array(pw.length + 1)
  key.set(pw)
  const c = new Blowfish()
  c.expand(key, salt)
  const rounds = 2 ** cost
  for (let i = 0; i < rounds; i++) {
    c.expand(key)
    c.expand(salt)
  }
  const data = Buffer.from('OrpheanBeholderScryDoubt')
  const lr = new Uint32Array(2)
  for (let i = 0; i < 24; i += 8) {
    lr[0] = data.readUInt32BE(i)
    lr[1] = data.readUInt32BE(i + 4)
    for (let j = 0; j < 64; j++) c.encrypt(lr[0] as number, lr[1] as number, lr)
    data.writeUInt32BE(lr[0] as number, i)
    data.writeUInt32BE(lr[1] as number, i + 4)
  }
  return `$2a$${String(cost).padStart(2, '0')}$${bcryptBase64(salt)}${bcryptBase64(data.subarray(0, 23))}`
}

/** bcrypt.GenerateFromPassword(password, bcrypt.DefaultCost). */
export function bcryptGenerate(password: string): string {
  return bcryptHash(password, 10, randomBuffer(16))
}
