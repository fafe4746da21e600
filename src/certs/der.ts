// Just enough DER (ITU-T X.690) to write an X.509 certificate and to read a
// few fields back out of one. node:crypto generates keys and signs, but has
// no API that builds a certificate; the encoding itself is small and is all
// that is written here. Nothing here parses input from outside the process:
// the reader only walks certificates and keys this package produced or that
// node:crypto has already parsed.

export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const

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

/** A BIT STRING whose last `unusedBits` bits are padding. */
export const bitString = (b: Uint8Array, unusedBits = 0): Buffer => tlv(Tag.bitString, Buffer.concat([Buffer.from([unusedBits]), b]))

/** [n] EXPLICIT: a constructed context-specific wrapper around one element. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner)

/** [n] IMPLICIT over a primitive type: the content with the context-specific tag. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content)

/** A non-negative INTEGER from its big-endian magnitude. */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++
  let body = Buffer.from(magnitude.subarray(start))
  if (body.length === 0) body = Buffer.from([0])
  // A set high bit would read as negative.
  if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body])
  return tlv(Tag.integer, body)
}

export function smallInteger(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${n}`)
  const bytes: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff)
  return unsignedInteger(Buffer.from(bytes))
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((a) => {
    if (!/^\d+$/.test(a)) throw new Error(`bad object identifier ${dotted}`)
    return BigInt(a)
  })
  const [first, second, ...rest] = arcs
  if (first === undefined || second === undefined) throw new Error(`bad object identifier ${dotted}`)
  const out: number[] = []
  for (const arc of [first * 40n + second, ...rest]) {
    const groups: number[] = [Number(arc & 0x7fn)]
    for (let v = arc >> 7n; v > 0n; v >>= 7n) groups.unshift(Number(v & 0x7fn) | 0x80)
    out.push(...groups)
  }
  return tlv(Tag.oid, Buffer.from(out))
}

/** UTCTime through 2049, GeneralizedTime from 2050, as RFC 5280 requires; whole seconds. */
export function time(d: Date): Buffer {
  const iso = d.toISOString() // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '')
  const year = d.getUTCFullYear()
  if (year < 1950 || year > 9999) throw new Error(`date out of range for a certificate: ${iso}`)
  return year < 2050
    ? tlv(Tag.utcTime, Buffer.from(`${digits.slice(2)}Z`, 'ascii'))
    : tlv(Tag.generalizedTime, Buffer.from(`${digits}Z`, 'ascii'))
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
  if (tag === undefined || first === undefined) throw new Error('DER: truncated element')
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tags are not supported')
  let length = first
  let contentStart = offset + 2
  if (first & 0x80) {
    const count = first & 0x7f
    if (count === 0 || count > 4) throw new Error('DER: unsupported length encoding')
    length = 0
    for (let i = 0; i < count; i++) {
      const b = buf[offset + 2 + i]
      if (b === undefined) throw new Error('DER: truncated length')
      length = length * 256 + b
    }
    contentStart += count
  }
  const end = contentStart + length
  if (end > buf.length) throw new Error('DER: element runs past the end of the input')
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
