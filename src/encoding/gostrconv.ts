// The parts of Go's strconv and fmt that parameter typing and JSONPath output
// depend on. A Template written for the Go operator declares `type: number`
// and expects exactly the strings strconv.ParseFloat accepts, so the accepted
// set is reproduced here character for character instead of approximated
// with Number().

const GO_BOOLS: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'])

/** strconv.ParseBool accepts the text. */
export function isGoBool(text: string): boolean {
  return GO_BOOLS.has(text)
}

/**
 * strconv.ParseFloat(text, 64) returns no error: decimal or hexadecimal
 * (`0x1.8p3`, exponent required) floating-point syntax with an optional sign,
 * `_` between digits, `inf`/`infinity` (optionally signed) and `nan`, any
 * case. A well-formed number that overflows float64 is a range error in Go,
 * so it is rejected too; underflow to zero is not an error.
 */
export function isGoFloat(text: string): boolean {
  if (isSpecial(text)) return true
  const parsed = scanFloat(text)
  if (parsed === undefined) return false
  if (parsed.underscores && !underscoreOK(text)) return false
  return parsed.hex ? !hexOverflows(parsed) : Number.isFinite(Number(parsed.decimal))
}

/** ParseFloat's special values: optional sign + inf/infinity, or unsigned nan. */
function isSpecial(text: string): boolean {
  const lower = text.toLowerCase()
  const unsigned = lower.startsWith('+') || lower.startsWith('-') ? lower.slice(1) : lower
  if (unsigned === 'inf' || unsigned === 'infinity') return true
  return lower === 'nan'
}

interface Scanned {
  readonly hex: boolean
  readonly underscores: boolean
  /** Decimal text without underscores, for Number(). */
  readonly decimal: string
  /** Hex mantissa digits without the point or underscores. */
  readonly mantissa: string
  /** Binary exponent applied to the integer `mantissa` (hex only). */
  readonly exp2: number
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9'
const isHexDigit = (c: string): boolean => isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')

/** Go's readFloat: the whole text must be consumed. */
function scanFloat(s: string): Scanned | undefined {
  let i = 0
  let sign = ''
  if (s[i] === '+' || s[i] === '-') {
    sign = s[i] === '-' ? '-' : ''
    i++
  }
  let hex = false
  // Go only takes the 0x prefix when something follows it.
  if (i + 2 < s.length && s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X')) {
    hex = true
    i += 2
  }
  const digitOk = hex ? isHexDigit : isDigit
  let underscores = false
  let sawDot = false
  let sawDigits = false
  let intDigits = ''
  let fracDigits = ''
  for (; i < s.length; i++) {
    const c = s.charAt(i)
    if (c === '_') {
      underscores = true
    } else if (c === '.') {
      if (sawDot) break
      sawDot = true
    } else if (digitOk(c)) {
      sawDigits = true
      if (sawDot) fracDigits += c
      else intDigits += c
    } else {
      break
    }
  }
  if (!sawDigits) return undefined
  let expText = ''
  const expChar = hex ? 'p' : 'e'
  if (i < s.length && s.charAt(i).toLowerCase() === expChar) {
    i++
    let expSign = ''
    if (s[i] === '+' || s[i] === '-') {
      expSign = s[i] === '-' ? '-' : ''
      i++
    }
    if (i >= s.length || !isDigit(s.charAt(i))) return undefined
    let digits = ''
    for (; i < s.length; i++) {
      const c = s.charAt(i)
      if (c === '_') underscores = true
      else if (isDigit(c)) digits += c
      else break
    }
    expText = expSign + digits
  } else if (hex) {
    return undefined
  }
  if (i !== s.length) return undefined
  const decimal = `${sign}${intDigits || '0'}.${fracDigits || '0'}${expText === '' ? '' : `e${expText}`}`
  // Exponents beyond any float64 are clamped: the sign of the result is all that matters then.
  const exp = expText === '' ? 0 : Math.max(-100_000, Math.min(100_000, Number(expText)))
  return { hex, underscores, decimal, mantissa: intDigits + fracDigits, exp2: exp - 4 * fracDigits.length }
}

const MAX_EXP2 = 1023
const MANTISSA_BITS = 53

/** The hex float rounds (to nearest, ties to even) above the largest finite float64. */
function hexOverflows(p: Scanned): boolean {
  const m = BigInt(`0x${p.mantissa}`)
  if (m === 0n) return false
  const bits = m.toString(2).length
  const top = bits - 1 + p.exp2
  if (top < MAX_EXP2) return false
  if (top > MAX_EXP2) return true
  if (bits <= MANTISSA_BITS) return false
  const drop = BigInt(bits - MANTISSA_BITS)
  const kept = m >> drop
  const rest = m - (kept << drop)
  const half = 1n << (drop - 1n)
  const roundUp = rest > half || (rest === half && (kept & 1n) === 1n)
  // Rounding up the all-ones mantissa carries into the next power of two.
  return roundUp && kept + 1n === 1n << BigInt(MANTISSA_BITS)
}

/**
 * fmt.Sprint of a float64 (%v, i.e. strconv 'g' with the shortest digits):
 * exponent form when the decimal exponent is below -4 or at least 6, so
 * 1e6 prints as "1e+06" and 123456 as "123456".
 */
export function formatGoFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Infinity) return '+Inf'
  if (n === -Infinity) return '-Inf'
  if (n === 0) return Object.is(n, -0) ? '-0' : '0'
  // JavaScript's exponential form carries the same shortest round-trip digits as Go.
  const [mant = '', expPart = '0'] = Math.abs(n).toExponential().split('e')
  const exp = Number(expPart)
  const digits = mant.replace('.', '')
  const sign = n < 0 ? '-' : ''
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp)
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : ''
    return `${sign}${digits[0] ?? ''}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : `${e}`}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`
}

/**
 * Go's underscoreOK: in a number literal, `_` may only stand between digits,
 * or between a base prefix and a digit, and never last. A leading sign is
 * skipped.
 */
export function underscoreOK(text: string): boolean {
  let s = text
  if (s.startsWith('+') || s.startsWith('-')) s = s.slice(1)
  let saw = '^'
  let i = 0
  let hex = false
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s.charAt(1))) {
    i = 2
    saw = '0'
    hex = s[1] === 'x' || s[1] === 'X'
  }
  for (; i < s.length; i++) {
    const c = s.charAt(i)
    if ((c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))) {
      saw = '0'
      continue
    }
    if (c === '_') {
      if (saw !== '0') return false
      saw = '_'
      continue
    }
    if (saw === '_') return false
    saw = '!'
  }
  return saw !== '_'
}
