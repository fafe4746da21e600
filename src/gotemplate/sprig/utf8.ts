// Go strings are byte sequences; JS strings are UTF-16. Sprig functions that
// index or slice strings work on bytes, so these helpers move between the two
// the way Go does: invalid UTF-8 decodes to one U+FFFD per bad byte, which is
// also what Go's encoding/json writes for such bytes.

const encoder = new TextEncoder()

export function utf8(s: string): Uint8Array {
  return encoder.encode(s)
}

export function byteLength(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/** Decodes bytes like Go's utf8.DecodeRune loop: each invalid byte becomes U+FFFD. */
export function fromUtf8(b: Uint8Array): string {
  let out = ''
  let i = 0
  const n = b.length
  while (i < n) {
    const r = decodeRune(b, i)
    out += r.rune < 0 ? '\ufffd' : String.fromCodePoint(r.rune)
    i += r.size
  }
  return out
}

/** One rune at byte offset i; rune -1 with size 1 for an invalid byte. */
export function decodeRune(b: Uint8Array, i: number): { rune: number; size: number } {
  const c0 = b[i] ?? 0
  if (c0 < 0x80) return { rune: c0, size: 1 }
  const cont = (j: number): number => {
    const c = b[i + j]
    return c !== undefined && (c & 0xc0) === 0x80 ? c & 0x3f : -1
  }
  if (c0 >= 0xc2 && c0 <= 0xdf) {
    const c1 = cont(1)
    if (c1 >= 0) return { rune: ((c0 & 0x1f) << 6) | c1, size: 2 }
  } else if (c0 >= 0xe0 && c0 <= 0xef) {
    const c1 = cont(1)
    const c2 = cont(2)
    if (c1 >= 0 && c2 >= 0) {
      const r = ((c0 & 0x0f) << 12) | (c1 << 6) | c2
      if (r >= 0x800 && !(r >= 0xd800 && r <= 0xdfff)) return { rune: r, size: 3 }
    }
  } else if (c0 >= 0xf0 && c0 <= 0xf4) {
    const c1 = cont(1)
    const c2 = cont(2)
    const c3 = cont(3)
    if (c1 >= 0 && c2 >= 0 && c3 >= 0) {
      const r = ((c0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3
      if (r >= 0x10000 && r <= 0x10ffff) return { rune: r, size: 4 }
    }
  }
  return { rune: -1, size: 1 }
}

/** s[start:end] on bytes, as Go slices strings. Callers check the bounds. */
export function sliceBytes(s: string, start: number, end?: number): string {
  if (isAscii(s)) return s.slice(start, end)
  const b = utf8(s)
  return fromUtf8(b.subarray(start, end ?? b.length))
}

export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false
  return true
}

/** Code points of s (Go's []rune(s)). */
export function runes(s: string): number[] {
  const out: number[] = []
  for (const ch of s) out.push(ch.codePointAt(0) ?? 0xfffd)
  return out
}

export function fromRunes(rs: readonly number[]): string {
  let out = ''
  for (const r of rs) out += String.fromCodePoint(r)
  return out
}

/** Go's string comparison: byte order of the UTF-8 encoding. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // Surrogates (supplementary planes) encode after every BMP character in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs !== ys) return xs ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}
