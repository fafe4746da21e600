// Just enough DER (ITU-T X.690) for the certificates this project writes: the
// webhook's own CA and serving certificate (src/certs) and Sprig's genCA /
// genSignedCert family (src/gotemplate/sprig/certs.ts). node:crypto generates
// keys and signs but cannot build a certificate; the encoding is small and is
// all that is written here. The reader walks certificates and keys, including
// ones a template passes in, so it checks every length against the input.

export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const

export class DerError extends Error {
  override readonly name = 'DerError'
}

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n])
  const bytes: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

/** One element: tag, length, content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content])
}

export const sequence = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.sequence, Buffer.concat(items))
export const set = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.set, Buffer.concat(items))
export const octetString = (b: Uint8Array): Buffer => tlv(Tag.octetString, b)
export const utf8String = (s: string): Buffer => tlv(Tag.utf8String, Buffer.from(s, 'utf8'))
export const boolean = (v: boolean): Buffer => tlv(Tag.boolean, Buffer.from([v ? 0xff : 0x00]))
export const nullValue = (): Buffer => Buffer.from([Tag.null, 0x00])

/** Go's encoding/asn1 choice for a string: PrintableString when every character allows it, else UTF8String. */
export function printableOrUtf8String(s: string): Buffer {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s) ? tlv(Tag.printableString, Buffer.from(s, 'ascii')) : utf8String(s)
}

/** A BIT STRING whose last `unusedBits` bits are padding. */
export const bitString = (b: Uint8Array, unusedBits = 0): Buffer => tlv(Tag.bitString, Buffer.concat([Buffer.from([unusedBits]), b]))

/** [n] EXPLICIT: a constructed context-specific wrapper around one element. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner)

/** [n] IMPLICIT over a primitive type: the content with the context-specific tag. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content)

/** An INTEGER in minimal two's complement. */
export function integer(v: bigint): Buffer {
  const bytes: number[] = []
  let x = v
  for (;;) {
    bytes.unshift(Number(BigInt.asUintN(8, x)))
    x >>= 8n
    const top = bytes[0] ?? 0
    if ((x === 0n && (top & 0x80) === 0) || (x === -1n && (top & 0x80) !== 0)) break
  }
  return tlv(Tag.integer, Buffer.from(bytes))
}

/** A non-negative INTEGER from its big-endian magnitude. */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  return integer(magnitude.length === 0 ? 0n : BigInt(`0x${Buffer.from(magnitude).toString('hex')}`))
}

export function smallInteger(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new DerError(`not a non-negative integer: ${n}`)
  return integer(BigInt(n))
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => {
    if (!/^\d+$/.test(a)) throw new DerError(`bad object identifier ${dotted}`)
    return BigInt(a)
  })
  const [first, second, ...rest] = arcs
  if (first === undefined || second === undefined) throw new DerError(`bad object identifier ${dotted}`)
  const out: number[] = []
  for (const arc of [first * 40n + second, ...rest]) {
    const groups: number[] = [Number(arc & 0x7fn)]
    for (let v = arc >> 7n; v > 0n; v >>= 7n) groups.unshift(Number(v & 0x7fn) | 0x80)
    out.push(...groups)
  }
  return tlv(Tag.oid, Buffer.from(out))
}

/**
 * A time in whole seconds as encoding/asn1 marshals it and RFC 5280 requires:
 * UTCTime for 1950 through 2049, GeneralizedTime otherwise.
 */
export function time(d: Date): Buffer {
  const year = d.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) throw new DerError(`time ${d.toISOString()} cannot be encoded: the year must have four digits`)
  const p2 = (n: number): string => String(n).padStart(2, '0')
  const rest = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`
  return year >= 1950 && year < 2050
    ? tlv(Tag.utcTime, Buffer.from(`${p2(year % 100)}${rest}`, 'ascii'))
    : tlv(Tag.generalizedTime, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'))
}

/** Where one element sits in a buffer. */
export interface Element {
  readonly tag: number
  /** Offset of the tag byte. */
  readonly start: number
  /** Offset of the first content byte. */
  readonly contentStart: number
  /** Offset just past the content. */
  readonly end: number
}

export function readElement(buf: Uint8Array, offset: number): Element {
  const tag = buf[offset]
  const first = buf[offset + 1]
  if (tag === undefined || first === undefined) throw new DerError('DER: truncated element')
  if ((tag & 0x1f) === 0x1f) throw new DerError('DER: multi-byte tags are not supported')
  let length = first
  let contentStart = offset + 2
  if (first & 0x80) {
    const count = first & 0x7f
    if (count === 0 || count > 4) throw new DerError('DER: unsupported length encoding')
    length = 0
    for (let i = 0; i < count; i++) {
      const b = buf[offset + 2 + i]
      if (b === undefined) throw new DerError('DER: truncated length')
      length = length * 256 + b
    }
    contentStart += count
  }
  const end = contentStart + length
  if (end > buf.length) throw new DerError('DER: element runs past the end of the input')
  return { tag, start: offset, contentStart, end }
}

/** The elements directly inside a constructed element. */
export function childrenOf(buf: Uint8Array, parent: Element): Element[] {
  const out: Element[] = []
  for (let at = parent.contentStart; at < parent.end; ) {
    const el = readElement(buf, at)
    out.push(el)
    at = el.end
  }
  return out
}

export const bytesOf = (buf: Uint8Array, el: Element): Buffer => Buffer.from(buf.subarray(el.start, el.end))
export const contentOf = (buf: Uint8Array, el: Element): Buffer => Buffer.from(buf.subarray(el.contentStart, el.end))

/** An element with its bytes: `raw` is the whole element, `body` its content. */
export interface Node {
  readonly tag: number
  readonly raw: Uint8Array
  readonly body: Uint8Array
}

function nodeOf(buf: Uint8Array, el: Element): Node {
  return { tag: el.tag, raw: buf.subarray(el.start, el.end), body: buf.subarray(el.contentStart, el.end) }
}

/** The elements of a constructed element's content, in order. */
export function children(body: Uint8Array): Node[] {
  return childrenOf(body, { tag: 0, start: 0, contentStart: 0, end: body.length }).map((el) => nodeOf(body, el))
}

/** The one element that makes up `bytes`. */
export function only(bytes: Uint8Array): Node {
  const [n, ...rest] = children(bytes)
  if (n === undefined || rest.length > 0) throw new DerError('DER: expected exactly one element')
  return n
}

/** The value of an INTEGER's content (two's complement). */
export function toBigInt(body: Uint8Array): bigint {
  let v = 0n
  for (const b of body) v = (v << 8n) | BigInt(b)
  if (body.length > 0 && ((body[0] ?? 0) & 0x80) !== 0) v -= 1n << BigInt(body.length * 8)
  return v
}
