// Just enough DER (ASN.1) to build and read X.509 certificates and the key
// formats Sprig's certificate functions use.

export type Bytes = Uint8Array

function concat(parts: readonly Bytes[]): Bytes {
  const n = parts.reduce((s, p) => s + p.length, 0)
  const out = new Uint8Array(n)
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

export function tlv(tag: number, body: Bytes): Bytes {
  const len = body.length
  let head: number[]
  if (len < 0x80) head = [tag, len]
  else {
    const bytes: number[] = []
    for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l & 0xff)
    head = [tag, 0x80 | bytes.length, ...bytes]
  }
  return concat([Uint8Array.from(head), body])
}

export const seq = (...parts: Bytes[]): Bytes => tlv(0x30, concat(parts))
export const set = (...parts: Bytes[]): Bytes => tlv(0x31, concat(parts))
export const explicit = (n: number, body: Bytes): Bytes => tlv(0xa0 | n, body)
export const implicit = (n: number, body: Bytes): Bytes => tlv(0x80 | n, body)
export const octets = (b: Bytes): Bytes => tlv(0x04, b)
export const bitString = (b: Bytes, unused = 0): Bytes => tlv(0x03, concat([Uint8Array.of(unused), b]))
export const nullValue = (): Bytes => Uint8Array.of(0x05, 0x00)
export const boolTrue = (): Bytes => Uint8Array.of(0x01, 0x01, 0xff)

export function integer(v: bigint): Bytes {
  // Minimal two's complement, big-endian.
  const bytes: number[] = []
  let x = v
  for (;;) {
    bytes.unshift(Number(BigInt.asUintN(8, x)))
    x >>= 8n
    const top = bytes[0] ?? 0
    if ((x === 0n && (top & 0x80) === 0) || (x === -1n && (top & 0x80) !== 0)) break
  }
  return tlv(0x02, Uint8Array.from(bytes))
}

export function oid(dotted: string): Bytes {
  const parts = dotted.split('.').map(Number)
  const out: number[] = [(parts[0] ?? 0) * 40 + (parts[1] ?? 0)]
  for (const p of parts.slice(2)) {
    const b: number[] = [p & 0x7f]
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) b.unshift(0x80 | (v & 0x7f))
    out.push(...b)
  }
  return tlv(0x06, Uint8Array.from(out))
}

const enc = new TextEncoder()

// encoding/asn1's choice for a Go string: PrintableString when every
// character allows it, else UTF8String.
export function asn1String(s: string): Bytes {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s)
  return tlv(printable ? 0x13 : 0x0c, enc.encode(s))
}

export const ia5 = (s: string): Bytes => enc.encode(s)

/** UTCTime for 1950..2049, else GeneralizedTime, as encoding/asn1 marshals a time. */
export function time(ms: number): Bytes {
  const d = new Date(Math.floor(ms / 1000) * 1000)
  const y = d.getUTCFullYear()
  const p2 = (n: number): string => String(n).padStart(2, '0')
  const rest = p2(d.getUTCMonth() + 1) + p2(d.getUTCDate()) + p2(d.getUTCHours()) + p2(d.getUTCMinutes()) + p2(d.getUTCSeconds()) + 'Z'
  if (y >= 1950 && y < 2050) return tlv(0x17, enc.encode(p2(y % 100) + rest))
  return tlv(0x18, enc.encode(String(y).padStart(4, '0') + rest))
}

export interface Element {
  readonly tag: number
  /** The whole element, header included. */
  readonly raw: Bytes
  readonly body: Bytes
}

export class DERError extends Error {}

/** The elements of a constructed body, in order. */
export function children(body: Bytes): Element[] {
  const out: Element[] = []
  let i = 0
  while (i < body.length) {
    const tag = body[i] ?? 0
    let len = body[i + 1] ?? 0
    let h = 2
    if (len & 0x80) {
      const n = len & 0x7f
      if (n === 0 || n > 4) throw new DERError('unsupported DER length')
      len = 0
      for (let k = 0; k < n; k++) len = len * 256 + (body[i + 2 + k] ?? 0)
      h = 2 + n
    }
    if (i + h + len > body.length) throw new DERError('truncated DER element')
    out.push({ tag, raw: body.subarray(i, i + h + len), body: body.subarray(i + h, i + h + len) })
    i += h + len
  }
  return out
}

export function only(b: Bytes): Element {
  const [e, ...rest] = children(b)
  if (e === undefined || rest.length > 0) throw new DERError('expected one DER element')
  return e
}

export function toBigInt(body: Bytes): bigint {
  let v = 0n
  for (const b of body) v = (v << 8n) | BigInt(b)
  if (body.length > 0 && ((body[0] ?? 0) & 0x80) !== 0) v -= 1n << BigInt(body.length * 8)
  return v
}

export function pem(type: string, der: Bytes): string {
  const b64 = Buffer.from(der).toString('base64')
  const lines = b64.match(/.{1,64}/g) ?? []
  return `-----BEGIN ${type}-----\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}-----END ${type}-----\n`
}

/** The first PEM block of text, as encoding/pem's Decode finds it. */
export function decodePem(text: string): { type: string; der: Bytes } | undefined {
  const m = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text)
  if (!m) return undefined
  const body = (m[2] ?? '').replace(/[\r\n \t]/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined
  return { type: m[1] ?? '', der: Uint8Array.from(Buffer.from(body, 'base64')) }
}
