// Go's fmt for the template value model: Sprint, Sprintln and Sprintf with
// the verbs, flags, widths, precisions and argument indexes of the fmt
// package, including its in-band error notation (%!d(string=x), %!v(MISSING),
// %!(EXTRA ...)). Templates print every value through these rules, so a map
// prints as map[a:1 b:2] and a JSON number 3 as 3, as in Go.

import { GoInt, GoObject, GoTime, isMap, isUnsignedKind } from './value.ts'
import type { GoValue } from './value.ts'
import { canBackquote, formatFloat, quote, quoteRune } from './strconv.ts'
import type { FloatFormat } from './strconv.ts'
import { stringMethod } from './methods.ts'
import { timeString } from './sprig/gotime.ts'
import { timeGoString } from './sprig/timemethods.ts'
import { bytesOf, goTypeOf, isNilSlice } from './sprig/types.ts'
import { isPrint } from './sprig/unicode.ts'
import { compareGoStrings } from './sprig/utf8.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A []byte as the list fmt walks for verbs it has no byte form for. */
function bytesListFrom(b: Uint8Array): GoValue[] {
  return Array.from(b, (x) => new GoInt(BigInt(x), 'uint8'))
}

function runeCount(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/** The first n runes of s. */
function truncateRunes(s: string, n: number): string {
  let i = 0
  for (let k = 0; k < n && i < s.length; k++) {
    const c = s.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1
  }
  return s.slice(0, i)
}

// fmt rejects widths and precisions above 10^6 as malformed.
const tooLarge = (n: number): boolean => n > 1e6 || n < -1e6

/** Go's type name of a value for %T and error notation. */
export function typeName(v: GoValue): string {
  return v === null || v === undefined ? '<nil>' : goTypeOf(v)
}

class Printer {
  out = ''
  // flags of the current verb
  plus = false
  minus = false
  sharp = false
  space = false
  zero = false
  plusV = false
  sharpV = false
  wid = 0
  widPresent = false
  prec = 0
  precPresent = false
  /** The operand being printed, for the %!verb(type=value) notation. */
  arg: GoValue = null
  erroring = false

  clearFlags(): void {
    this.plus = this.minus = this.sharp = this.space = this.zero = false
    this.plusV = this.sharpV = false
    this.wid = this.prec = 0
    this.widPresent = this.precPresent = false
  }

  writePadding(n: number): void {
    if (n <= 0) return
    this.out += (this.zero ? '0' : ' ').repeat(n)
  }

  /** Pads s to the width with spaces (or zeros with the 0 flag), on the left unless '-'. */
  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.out += s
      return
    }
    const width = this.wid - runeCount(s)
    if (!this.minus) {
      this.writePadding(width)
      this.out += s
    } else {
      this.out += s
      this.writePadding(width)
    }
  }

  // ---- operands ----

  printArg(arg: GoValue, verb: string): void {
    this.arg = arg
    if (arg === null || arg === undefined) {
      if (verb === 'T' || verb === 'v') this.pad('<nil>')
      else this.badVerb(verb)
      return
    }
    if (verb === 'T') {
      this.fmtS(goTypeOf(arg))
      return
    }
    switch (typeof arg) {
      case 'boolean':
        this.fmtBool(arg, verb)
        return
      case 'bigint':
        this.fmtInteger(arg, verb)
        return
      case 'number':
        this.fmtFloat(arg, verb)
        return
      case 'string':
        this.fmtString(arg, verb)
        return
    }
    if (this.handleMethods(arg, verb)) return
    // fmt prints a []byte operand as bytes, whatever the verb.
    const bytes = bytesOf(arg)
    if (bytes !== undefined) this.fmtBytes(bytes, verb, '[]byte', isNilSlice(arg))
    else this.printValue(arg, verb, 0)
  }

  /** Values with a String method (time.Time, *semver.Version, time.Month) print that string for %v %s %x %X %q. */
  handleMethods(v: GoValue, verb: string): boolean {
    if (this.erroring) return false
    if (this.sharpV) {
      if (!(v instanceof GoTime)) return false
      this.fmtS(timeGoString(v))
      return true
    }
    if (verb !== 'v' && verb !== 's' && verb !== 'x' && verb !== 'X' && verb !== 'q') return false
    let s: string | undefined
    if (v instanceof GoTime) s = timeString(v)
    else if (v instanceof GoInt || v instanceof GoObject) s = stringMethod(v)
    if (s === undefined) return false
    this.fmtString(s, verb)
    return true
  }

  /** fmt's fmtBytes: a []byte under %v and %d is a list of numbers, under %s %q %x %X a string. */
  fmtBytes(b: Uint8Array, verb: string, typeString: string, isNil: boolean): void {
    switch (verb) {
      case 'v':
      case 'd':
        if (this.sharpV) {
          this.out += typeString
          if (isNil) {
            this.out += '(nil)'
            return
          }
          this.out += '{'
          for (let i = 0; i < b.length; i++) this.out += (i > 0 ? ', ' : '') + '0x' + (b[i] ?? 0).toString(16)
          this.out += '}'
          return
        }
        this.out += '['
        for (let i = 0; i < b.length; i++) {
          if (i > 0) this.out += ' '
          this.fmtInt(BigInt(b[i] ?? 0), 10, verb, false)
        }
        this.out += ']'
        return
      case 's':
        this.fmtS(decoder.decode(b))
        return
      case 'x':
      case 'X':
        this.fmtSx(decoder.decode(b), verb === 'X', b)
        return
      case 'q':
        this.fmtQ(decoder.decode(b))
        return
    }
    this.printValue(bytesListFrom(b), verb, 0)
  }

  printValue(v: GoValue, verb: string, depth: number): void {
    if (depth > 0 && v !== null && v !== undefined) {
      this.arg = v
      if (typeof v === 'object' && this.handleMethods(v, verb)) return
    }
    if (v instanceof GoInt) {
      this.fmtInteger(v.value, verb, isUnsignedKind(v.kind))
      return
    }
    if (v instanceof GoObject) {
      this.printObject(v, verb, depth)
      return
    }
    if (v === null || v === undefined) {
      // A nil element of a container.
      this.out += this.sharpV ? 'interface {}(nil)' : '<nil>'
      return
    }
    switch (typeof v) {
      case 'boolean':
        this.fmtBool(v, verb)
        return
      case 'bigint':
        this.fmtInteger(v, verb)
        return
      case 'number':
        this.fmtFloat(v, verb)
        return
      case 'string':
        this.fmtString(v, verb)
        return
    }
    if (v instanceof GoTime) {
      // Reached for verbs time.Time has no String method for: Go prints the struct.
      this.printTimeStruct(v, verb)
      return
    }
    if (Array.isArray(v)) {
      const list = v as readonly GoValue[]
      if (verb === 's' || verb === 'q' || verb === 'x' || verb === 'X') {
        const bytes = bytesOf(list)
        if (bytes !== undefined) {
          this.fmtBytes(bytes, verb, '[]uint8', isNilSlice(list))
          return
        }
      }
      if (this.sharpV) {
        this.out += goTypeOf(list)
        if (isNilSlice(list)) {
          this.out += '(nil)'
          return
        }
        this.out += '{'
        for (let i = 0; i < list.length; i++) {
          if (i > 0) this.out += ', '
          this.printValue(list[i], verb, depth + 1)
        }
        this.out += '}'
        return
      }
      this.out += '['
      for (let i = 0; i < list.length; i++) {
        if (i > 0) this.out += ' '
        this.printValue(list[i], verb, depth + 1)
      }
      this.out += ']'
      return
    }
    if (isMap(v)) {
      const keys = Object.keys(v).sort(compareGoStrings)
      this.out += this.sharpV ? goTypeOf(v) + '{' : 'map['
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] ?? ''
        if (i > 0) this.out += this.sharpV ? ', ' : ' '
        this.printValue(k, verb, depth + 1)
        this.out += ':'
        this.printValue(Object.hasOwn(v, k) ? v[k] : null, verb, depth + 1)
      }
      this.out += this.sharpV ? '}' : ']'
      return
    }
    this.badVerb(verb)
  }

  /**
   * time.Time's fields {wall ext loc} under an integer verb, as Go prints them
   * for a time without a monotonic reading in UTC (loc is a nil pointer).
   * Other verbs and zones fall back to the bad-verb notation with the string.
   */
  printTimeStruct(t: GoTime, verb: string): void {
    const utc = t.zone === '' || t.zone === 'UTC' || t.zone === 'Local'
    if (!this.erroring && utc && t.mono === undefined && (verb === 'd' || verb === 'b' || verb === 'o' || verb === 'O')) {
      this.out += '{'
      this.fmtInteger(BigInt(t.nsec), verb)
      this.out += ' '
      this.fmtInteger(BigInt(t.sec) + 62_135_596_800n, verb)
      this.out += ' '
      this.fmtInteger(0n, verb)
      this.out += '}'
      return
    }
    if (this.erroring) this.out += timeString(t)
    else this.badVerb(verb)
  }

  /** A struct as {a b}, {A:a B:b} under %+v, T{A:a, B:b} under %#v; a pointer to one with & in front. */
  printObject(v: GoObject, verb: string, depth: number): void {
    if (v.goKind === 'ptr') {
      if (depth > 0) {
        // Go prints the address of a nested pointer, which no two runs share.
        this.out += '0xc000000000'
        return
      }
      this.out += '&'
    }
    const fieldList = v.structFields()
    this.out += this.sharpV ? v.goType.replace(/^\*/, '') + '{' : '{'
    for (let i = 0; i < fieldList.length; i++) {
      const [name, value] = fieldList[i] as readonly [string, GoValue]
      if (i > 0) this.out += this.sharpV ? ', ' : ' '
      if (this.plusV || this.sharpV) this.out += name + ':'
      this.printValue(value, verb, depth + 1)
    }
    this.out += '}'
  }

  badVerb(verb: string): void {
    this.erroring = true
    this.out += '%!' + verb + '('
    const arg = this.arg
    if (arg !== null && arg !== undefined) {
      this.out += goTypeOf(arg) + '='
      this.printArg(arg, 'v')
    } else this.out += '<nil>'
    this.out += ')'
    this.erroring = false
  }

  // ---- booleans ----

  fmtBool(v: boolean, verb: string): void {
    if (verb === 't' || verb === 'v') this.pad(v ? 'true' : 'false')
    else this.badVerb(verb)
  }

  // ---- integers ----

  /** An integer; unsigned types print in hex under %#v. */
  fmtInteger(v: bigint, verb: string, unsigned = false): void {
    switch (verb) {
      case 'v':
        if (this.sharpV && unsigned) {
          this.sharp = true
          this.fmtInt(v, 16, verb, false)
          this.sharp = false
          return
        }
        this.fmtInt(v, 10, verb, false)
        return
      case 'd':
        this.fmtInt(v, 10, verb, false)
        return
      case 'b':
        this.fmtInt(v, 2, verb, false)
        return
      case 'o':
      case 'O':
        this.fmtInt(v, 8, verb, false)
        return
      case 'x':
        this.fmtInt(v, 16, verb, false)
        return
      case 'X':
        this.fmtInt(v, 16, verb, true)
        return
      case 'c':
        this.pad(String.fromCodePoint(validRune(v)))
        return
      case 'q':
        this.pad(quoteRune(validRune(v), this.plus))
        return
      case 'U':
        this.fmtUnicode(v)
        return
    }
    this.badVerb(verb)
  }

  fmtInt(v: bigint, base: number, verb: string, upper: boolean): void {
    const negative = v < 0n
    const u = negative ? -v : v
    let prec = 0
    if (this.precPresent) {
      prec = this.prec
      // %.0d of 0 prints nothing but the padding.
      if (prec === 0 && u === 0n) {
        const z = this.zero
        this.zero = false
        this.writePadding(this.wid)
        this.zero = z
        return
      }
    } else if (this.zero && !this.minus && this.widPresent) {
      prec = this.wid
      if (negative || this.plus || this.space) prec--
    }
    let s = u.toString(base)
    if (upper) s = s.toUpperCase()
    if (s.length < prec) s = '0'.repeat(prec - s.length) + s
    if (this.sharp) {
      if (base === 2) s = '0b' + s
      else if (base === 8 && s[0] !== '0') s = '0' + s
      else if (base === 16) s = (upper ? '0X' : '0x') + s
    }
    if (verb === 'O') s = '0o' + s
    if (negative) s = '-' + s
    else if (this.plus) s = '+' + s
    else if (this.space) s = ' ' + s
    const z = this.zero
    this.zero = false
    this.pad(s)
    this.zero = z
  }

  fmtUnicode(v: bigint): void {
    const u = BigInt.asUintN(64, v)
    const prec = this.precPresent && this.prec > 4 ? this.prec : 4
    let s = 'U+' + u.toString(16).toUpperCase().padStart(prec, '0')
    if (this.sharp && u <= 0x10ffffn && isPrint(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'"
    const z = this.zero
    this.zero = false
    this.pad(s)
    this.zero = z
  }

  // ---- floats ----

  fmtFloat(v: number, verb: string): void {
    switch (verb) {
      case 'v':
        this.fmtFloatAs(v, 'g', -1, verb)
        return
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        this.fmtFloatAs(v, verb, -1, verb)
        return
      case 'f':
      case 'e':
      case 'E':
        this.fmtFloatAs(v, verb, 6, verb)
        return
      case 'F':
        this.fmtFloatAs(v, 'f', 6, verb)
        return
    }
    this.badVerb(verb)
  }

  fmtFloatAs(v: number, format: FloatFormat, defaultPrec: number, verb: string): void {
    const prec = this.precPresent ? this.prec : defaultPrec
    let num = formatFloat(v, format, prec)
    if (num[0] !== '-' && num[0] !== '+') num = '+' + num
    if (this.space && num[0] === '+' && !this.plus) num = ' ' + num.slice(1)
    if (num[1] === 'I' || num[1] === 'N') {
      // Infinities and NaN are never zero padded; NaN shows a sign only when asked.
      const z = this.zero
      this.zero = false
      if (num[1] === 'N' && !this.space && !this.plus) num = num.slice(1)
      this.pad(num)
      this.zero = z
      return
    }
    if (this.sharp && format !== 'b') num = sharpFloat(num, format, prec, verb)
    if (this.plus || num[0] !== '+') {
      // With zero padding the sign goes before the zeros.
      if (this.zero && !this.minus && this.widPresent && this.wid > num.length) {
        this.out += num[0]
        this.writePadding(this.wid - num.length)
        this.out += num.slice(1)
        return
      }
      this.pad(num)
      return
    }
    this.pad(num.slice(1))
  }

  // ---- strings ----

  fmtString(s: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.sharpV) this.fmtQ(s)
        else this.fmtS(s)
        return
      case 's':
        this.fmtS(s)
        return
      case 'x':
        this.fmtSx(s, false)
        return
      case 'X':
        this.fmtSx(s, true)
        return
      case 'q':
        this.fmtQ(s)
        return
    }
    this.badVerb(verb)
  }

  fmtS(s: string): void {
    if (this.precPresent) s = truncateRunes(s, this.prec)
    this.pad(s)
  }

  fmtQ(s: string): void {
    if (this.precPresent) s = truncateRunes(s, this.prec)
    if (this.sharp && canBackquote(s)) this.pad('`' + s + '`')
    else this.pad(quote(s, this.plus))
  }

  fmtSx(s: string, upper: boolean, bytes?: Uint8Array): void {
    const b = bytes ?? encoder.encode(s)
    const digits = upper ? '0123456789ABCDEF' : '0123456789abcdef'
    let length = b.length
    if (this.precPresent && this.prec < length) length = this.prec
    let width = 2 * length
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2
        width += length - 1
      } else if (this.sharp) width += 2
    } else {
      if (this.widPresent) this.writePadding(this.wid)
      return
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width)
    let out = ''
    const prefix = upper ? '0X' : '0x'
    if (this.sharp) out += prefix
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out += ' '
        if (this.sharp) out += prefix
      }
      const c = b[i] ?? 0
      out += (digits[c >> 4] ?? '') + (digits[c & 15] ?? '')
    }
    this.out += out
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width)
  }

  // ---- Printf ----

  doPrintf(format: string, args: readonly GoValue[]): void {
    const end = format.length
    let argNum = 0
    let afterIndex = false
    let reordered = false
    let goodArgNum = true

    // [n] argument index; updates argNum and returns the new position.
    const argNumber = (i: number): number => {
      afterIndex = false
      if (i >= end || format[i] !== '[') return i
      reordered = true
      let close = -1
      for (let k = i + 1; k < end; k++) {
        if (format[k] === ']') {
          close = k
          break
        }
      }
      if (end - i < 3 || close < 0) {
        goodArgNum = false
        return i + 1
      }
      const { num, isNum, next } = parseNum(format, i + 1, close)
      if (!isNum || next !== close) {
        goodArgNum = false
        return close + 1
      }
      const index = num - 1
      if (index >= 0 && index < args.length) {
        argNum = index
        afterIndex = true
        return close + 1
      }
      goodArgNum = false
      afterIndex = true
      return close + 1
    }

    const intFromArg = (): { num: number; isInt: boolean } => {
      let num = 0
      let isInt = false
      if (argNum < args.length) {
        const a = args[argNum]
        const n = typeof a === 'bigint' ? a : a instanceof GoInt ? a.value : undefined
        if (n !== undefined && n >= -(1n << 63n) && n < 1n << 63n) {
          num = Number(n)
          isInt = true
        }
        argNum++
        if (tooLarge(num)) {
          num = 0
          isInt = false
        }
      }
      return { num, isInt }
    }

    let i = 0
    while (i < end) {
      goodArgNum = true
      const lasti = i
      while (i < end && format[i] !== '%') i++
      if (i > lasti) this.out += format.slice(lasti, i)
      if (i >= end) break
      i++ // skip %
      this.clearFlags()
      flags: for (; i < end; i++) {
        switch (format[i]) {
          case '#':
            this.sharp = true
            break
          case '0':
            this.zero = !this.minus // zero padding only on the left
            break
          case '+':
            this.plus = true
            break
          case '-':
            this.minus = true
            this.zero = false
            break
          case ' ':
            this.space = true
            break
          default:
            break flags
        }
      }
      i = argNumber(i)
      if (i < end && format[i] === '*') {
        i++
        const { num, isInt } = intFromArg()
        this.wid = num
        this.widPresent = isInt
        if (!isInt) this.out += '%!(BADWIDTH)'
        if (this.wid < 0) {
          this.wid = -this.wid
          this.minus = true
          this.zero = false
        }
        afterIndex = false
      } else {
        const r = parseNum(format, i, end)
        this.wid = r.num
        this.widPresent = r.isNum
        i = r.next
        if (afterIndex && this.widPresent) goodArgNum = false
      }
      if (i + 1 < end && format[i] === '.') {
        i++
        if (afterIndex) goodArgNum = false
        i = argNumber(i)
        if (i < end && format[i] === '*') {
          i++
          const { num, isInt } = intFromArg()
          this.prec = num
          this.precPresent = isInt
          if (this.prec < 0) {
            this.prec = 0
            this.precPresent = false
          }
          if (!this.precPresent) this.out += '%!(BADPREC)'
          afterIndex = false
        } else {
          const r = parseNum(format, i, end)
          this.prec = r.num
          this.precPresent = r.isNum
          i = r.next
          if (!this.precPresent) {
            this.prec = 0
            this.precPresent = true
          }
        }
      }
      if (!afterIndex) i = argNumber(i)
      if (i >= end) {
        this.out += '%!(NOVERB)'
        break
      }
      const cp = format.codePointAt(i) ?? 0
      const verb = String.fromCodePoint(cp)
      i += verb.length
      if (verb === '%') {
        this.out += '%'
        continue
      }
      if (!goodArgNum) {
        this.out += '%!' + verb + '(BADINDEX)'
        continue
      }
      if (argNum >= args.length) {
        this.out += '%!' + verb + '(MISSING)'
        continue
      }
      if (verb === 'v') {
        this.sharpV = this.sharp
        this.sharp = false
        this.plusV = this.plus
        this.plus = false
      }
      this.printArg(args[argNum] ?? null, verb)
      argNum++
    }
    if (!reordered && argNum < args.length) {
      this.clearFlags()
      this.out += '%!(EXTRA '
      for (let k = argNum; k < args.length; k++) {
        if (k > argNum) this.out += ', '
        const a = args[k]
        if (a === null || a === undefined) this.out += '<nil>'
        else {
          this.out += goTypeOf(a) + '='
          this.printArg(a, 'v')
        }
      }
      this.out += ')'
    }
  }
}

/** Decimal digits at s[start:end) as fmt reads widths: stops at a non-digit or an absurd size. */
function parseNum(s: string, start: number, end: number): { num: number; isNum: boolean; next: number } {
  if (start >= end) return { num: 0, isNum: false, next: end }
  let num = 0
  let isNum = false
  let i = start
  for (; i < end; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x30 || c > 0x39) break
    if (tooLarge(num)) return { num: 0, isNum: false, next: end }
    num = num * 10 + (c - 0x30)
    isNum = true
  }
  return { num, isNum, next: i }
}

function validRune(v: bigint): number {
  if (v < 0n || v > 0x10ffffn) return 0xfffd
  const r = Number(v)
  return r >= 0xd800 && r <= 0xdfff ? 0xfffd : r
}

/** The # flag on floats: keep the decimal point, and trailing zeros for %g. */
function sharpFloat(num: string, format: FloatFormat, prec: number, verb: string): string {
  let digits = 0
  if (verb === 'v' || format === 'g' || format === 'G' || format === 'x') {
    digits = prec === -1 ? 6 : prec
  }
  let tail = ''
  let body = num
  let hasPoint = false
  let sawNonzero = false
  for (let i = 1; i < body.length; i++) {
    const c = body[i]
    if (c === '.') {
      hasPoint = true
      continue
    }
    if (c === 'p' || c === 'P' || ((c === 'e' || c === 'E') && format !== 'x' && format !== 'X')) {
      tail = body.slice(i)
      body = body.slice(0, i)
      break
    }
    if (c !== '0') sawNonzero = true
    if (sawNonzero) digits--
  }
  if (!hasPoint) {
    if (body.length === 2 && body[1] === '0') digits--
    body += '.'
  }
  if (digits > 0) body += '0'.repeat(digits)
  return body + tail
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  const p = new Printer()
  p.doPrintf(format, args)
  return p.out
}

/** fmt.Sprint: a space between operands when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  const p = new Printer()
  let prevString = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? null
    const isString = typeof a === 'string'
    if (i > 0 && !isString && !prevString) p.out += ' '
    p.printArg(a, 'v')
    prevString = isString
  }
  return p.out
}

/** fmt.Sprintln: spaces between all operands and a final newline. */
export function sprintln(args: readonly GoValue[]): string {
  const p = new Printer()
  for (let i = 0; i < args.length; i++) {
    if (i > 0) p.out += ' '
    p.printArg(args[i] ?? null, 'v')
  }
  return p.out + '\n'
}

/** fmt's %v of one value; nil prints <nil>. */
export function formatValue(v: GoValue): string {
  switch (typeof v) {
    case 'string':
      return v
    case 'bigint':
      return v.toString()
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      return formatFloat(v, 'g', -1)
  }
  if (v instanceof GoInt && v.type === v.kind) return v.value.toString()
  const p = new Printer()
  p.printArg(v, 'v')
  return p.out
}

/** fmt's %s of one value. */
export function formatS(v: GoValue): string {
  const p = new Printer()
  p.printArg(v, 's')
  return p.out
}
