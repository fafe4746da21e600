// Sprig's random and cipher helpers that need no certificate machinery:
// uuidv4, randBytes, bcrypt, htpasswd, encryptAES/decryptAES (AES-256-CBC, zero-padded key,
// PKCS#7 padding, random IV in front, base64) and derivePassword.

import { createCipheriv, createDecipheriv, createHmac, randomUUID, scryptSync } from 'node:crypto'
import type { FuncMap } from '../value.ts'
import { BcryptError, bcryptGenerate } from './bcrypt.ts'
import { base64Decode, base64Encode, CorruptInputError } from './encoding.ts'
import { randomBuffer } from './random.ts'
import { fail, fn, int, str } from './spec.ts'
import { fromUtf8, utf8 } from './utf8.ts'

function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32)
  Buffer.from(utf8(password)).copy(key, 0, 0, 32)
  return key
}

function encryptAES(password: string, plaintext: string): string {
  if (plaintext === '') return ''
  const content = Buffer.from(utf8(plaintext))
  const padding = 16 - (content.length % 16)
  const padded = Buffer.concat([content, Buffer.alloc(padding, padding)])
  const iv = Buffer.from(randomBuffer(16))
  const c = createCipheriv('aes-256-cbc', aesKey(password), iv)
  c.setAutoPadding(false)
  return base64Encode(Buffer.concat([iv, c.update(padded), c.final()]))
}

function decryptAES(password: string, crypt64: string): string {
  if (crypt64 === '') return ''
  let crypt: Uint8Array
  try {
    crypt = base64Decode(crypt64)
  } catch (e) {
    if (e instanceof CorruptInputError) fail(e.message)
    throw e
  }
  if (crypt.length < 16) fail(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`)
  const body = crypt.subarray(16)
  if (body.length % 16 !== 0) fail('crypto/cipher: input not full blocks')
  const d = createDecipheriv('aes-256-cbc', aesKey(password), crypt.subarray(0, 16))
  d.setAutoPadding(false)
  const plain = Buffer.concat([d.update(body), d.final()])
  if (plain.length === 0) fail('runtime error: index out of range [-1]')
  const cut = plain.length - (plain[plain.length - 1] ?? 0)
  if (cut < 0) fail(`runtime error: slice bounds out of range [:${cut}]`)
  return fromUtf8(plain.subarray(0, cut))
}

const templates: Record<string, readonly string[]> = {
  maximum: ['anoxxxxxxxxxxxxxxxxx', 'axxxxxxxxxxxxxxxxxno'],
  long: [
    'CvcvnoCvcvCvcv',
    'CvcvCvcvnoCvcv',
    'CvcvCvcvCvcvno',
    'CvccnoCvcvCvcv',
    'CvccCvcvnoCvcv',
    'CvccCvcvCvcvno',
    'CvcvnoCvccCvcv',
    'CvcvCvccnoCvcv',
    'CvcvCvccCvcvno',
    'CvcvnoCvcvCvcc',
    'CvcvCvcvnoCvcc',
    'CvcvCvcvCvccno',
    'CvccnoCvccCvcv',
    'CvccCvccnoCvcv',
    'CvccCvccCvcvno',
    'CvcvnoCvccCvcc',
    'CvcvCvccnoCvcc',
    'CvcvCvccCvccno',
    'CvccnoCvcvCvcc',
    'CvccCvcvnoCvcc',
    'CvccCvcvCvccno',
  ],
  medium: ['CvcnoCvc', 'CvcCvcno'],
  short: ['Cvcn'],
  basic: ['aaanaaan', 'aannaaan', 'aaannaaa'],
  pin: ['nnnn'],
}

const templateChars: Record<string, string> = {
  V: 'AEIOU',
  C: 'BCDFGHJKLMNPQRSTVWXYZ',
  v: 'aeiou',
  c: 'bcdfghjklmnpqrstvwxyz',
  A: 'AEIOUBCDFGHJKLMNPQRSTVWXYZ',
  a: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz',
  n: '0123456789',
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()',
}

const SEED = 'com.lyndir.masterpassword'

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}

// The Master Password algorithm, as in Sprig.
function derivePassword(counter: number, type: string, password: string, user: string, site: string): string {
  const tpls = templates[type]
  if (tpls === undefined) return `cannot find password template ${type}`
  const userB = Buffer.from(utf8(user))
  const salt = Buffer.concat([Buffer.from(SEED), u32(userB.length), userB])
  const key = scryptSync(Buffer.from(utf8(password)), salt, 64, { N: 32768, r: 8, p: 2, maxmem: 256 * 1024 * 1024 })
  const siteB = Buffer.from(utf8(site))
  const seed = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(SEED), u32(siteB.length), siteB, u32(counter)]))
    .digest()
  const tpl = tpls[(seed[0] ?? 0) % tpls.length] ?? ''
  let out = ''
  for (let i = 0; i < tpl.length; i++) {
    const chars = templateChars[tpl[i] ?? ''] ?? ''
    out += chars[(seed[i + 1] ?? 0) % chars.length]
  }
  return out
}

function bcrypt(password: string): string {
  try {
    return bcryptGenerate(password)
  } catch (e) {
    if (e instanceof BcryptError) return `failed to encrypt string with bcrypt: ${e.message}`
    throw e
  }
}

export const cryptoFuncs: FuncMap = {
  bcrypt: fn(['string'], (p) => bcrypt(str(p))),
  htpasswd: fn(['string', 'string'], (u, p) => (str(u).includes(':') ? `invalid username: ${str(u)}` : `${str(u)}:${bcrypt(str(p))}`)),
  uuidv4: fn([], () => randomUUID()),
  randBytes: fn(['int'], (n) => {
    const count = int(n)
    if (count < 0) fail('runtime error: makeslice: len out of range')
    return base64Encode(randomBuffer(count))
  }),
  encryptAES: fn(['string', 'string'], (p, t) => encryptAES(str(p), str(t))),
  decryptAES: fn(['string', 'string'], (p, c) => decryptAES(str(p), str(c))),
  derivePassword: fn(['uint32', 'string', 'string', 'string', 'string'], (c, t, p, u, s) =>
    derivePassword(int(c), str(t), str(p), str(u), str(s)),
  ),
}
