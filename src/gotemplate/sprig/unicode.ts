// Go's unicode package predicates and its simple (one rune to one rune) case
// mappings. JS only offers full case mappings ("ß".toUpperCase() is "SS"), so
// a mapping that would change the number of runes keeps the rune, which is
// what Go's simple mapping does for those characters, apart from the few
// listed below.

const reUpper = /^\p{Lu}$/u
const reLower = /^\p{Ll}$/u
const reTitle = /^\p{Lt}$/u
const reLetter = /^\p{L}$/u
const reDigit = /^\p{Nd}$/u
const reNumber = /^\p{N}$/u
const rePunct = /^\p{P}$/u
const rePrint = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u

const ch = (r: number): string => String.fromCodePoint(r)

export function isSpace(r: number): boolean {
  if (r <= 0xff) return r === 0x20 || (r >= 0x09 && r <= 0x0d) || r === 0x85 || r === 0xa0
  return r === 0x1680 || (r >= 0x2000 && r <= 0x200a) || r === 0x2028 || r === 0x2029 || r === 0x202f || r === 0x205f || r === 0x3000
}

export const isUpper = (r: number): boolean => (r < 0x80 ? r >= 0x41 && r <= 0x5a : reUpper.test(ch(r)))
export const isLower = (r: number): boolean => (r < 0x80 ? r >= 0x61 && r <= 0x7a : reLower.test(ch(r)))
export const isTitle = (r: number): boolean => r >= 0x80 && reTitle.test(ch(r))
export const isLetter = (r: number): boolean => reLetter.test(ch(r))
export const isDigit = (r: number): boolean => (r < 0x80 ? r >= 0x30 && r <= 0x39 : reDigit.test(ch(r)))
export const isNumber = (r: number): boolean => reNumber.test(ch(r))
export const isPunct = (r: number): boolean => rePunct.test(ch(r))
/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export const isPrint = (r: number): boolean => (r < 0x80 ? r >= 0x20 && r < 0x7f : rePrint.test(ch(r)))

function single(s: string, r: number): number {
  const cp = s.codePointAt(0)
  return cp !== undefined && s.length === (cp > 0xffff ? 2 : 1) ? cp : r
}

// Greek letters with ypogegrammeni: the full uppercase mapping has two runes,
// the simple one is the matching letter with prosgegrammeni.
function greekIota(r: number): number | undefined {
  if ((r >= 0x1f80 && r <= 0x1f87) || (r >= 0x1f90 && r <= 0x1f97) || (r >= 0x1fa0 && r <= 0x1fa7)) return r + 8
  if (r === 0x1fb3 || r === 0x1fc3 || r === 0x1ff3) return r + 9
  return undefined
}

export function toUpper(r: number): number {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a ? r - 32 : r
  return greekIota(r) ?? single(ch(r).toUpperCase(), r)
}

export function toLower(r: number): number {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a ? r + 32 : r
  if (r === 0x130) return 0x69
  return single(ch(r).toLowerCase(), r)
}

export function toTitle(r: number): number {
  if (r >= 0x1c4 && r <= 0x1cc) return r - ((r - 0x1c4) % 3) + 1
  if (r >= 0x1f1 && r <= 0x1f3) return 0x1f2
  if (
    (r >= 0x1f88 && r <= 0x1f8f) ||
    (r >= 0x1f98 && r <= 0x1f9f) ||
    (r >= 0x1fa8 && r <= 0x1faf) ||
    r === 0x1fbc ||
    r === 0x1fcc ||
    r === 0x1ffc
  )
    return r
  // Georgian Mkhedruli letters have an uppercase form but are their own title case.
  if ((r >= 0x10d0 && r <= 0x10fa) || (r >= 0x10fd && r <= 0x10ff)) return r
  return toUpper(r)
}

export function mapRunes(s: string, f: (r: number) => number): string {
  let out = ''
  for (const c of s) out += String.fromCodePoint(f(c.codePointAt(0) ?? 0xfffd))
  return out
}
