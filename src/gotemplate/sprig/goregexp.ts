// Go regexp (RE2 syntax and semantics) for the Sprig regex functions.
//
// The pattern is parsed with Go's rules, so what RE2 rejects (backreferences,
// lookaround, possessive or stacked repetition, \Z, ...) is an error here
// too, then compiled to a small program run by a Pike VM: threads advance in
// lock step over the code points, ordered by priority, which gives Go's
// leftmost-first matches and submatches in time linear in the input. A JS
// RegExp would backtrack, and a template author's pattern over a consumer's
// parameter must not be able to stall the operator. Single-rune tests
// (classes, \p{..}, case folding) use a one-character JS RegExp.
//
// Match iteration, Split and the $-expansion of replacements follow Go's
// loops rather than String.prototype.replace.

export class RegexpSyntaxError extends Error {}

// Taken at load: values.schema.json validation stands this engine in for the
// global RegExp (src/helm/render/schema-patterns.ts), and the one-rune tests
// below must still reach the real one.
const NativeRegExp = RegExp

export interface GoRegexp {
  readonly expr: string
  readonly prog: Prog
  /** Capture group names by index; index 0 is the whole match (""). */
  readonly names: readonly string[]
}

interface Flags {
  fold: boolean
  multiLine: boolean
  dotNL: boolean
  ungreedy: boolean
}

type ClassItem = { lo: number; hi: number } | { prop: string; neg: boolean }

const MAX_RUNE = 0x10ffff
const WORD: readonly [number, number][] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]
const perlClasses: Record<string, readonly [number, number][]> = {
  d: [[0x30, 0x39]],
  s: [
    [0x09, 0x0a],
    [0x0c, 0x0d],
    [0x20, 0x20],
  ],
  w: WORD,
}
const posixClasses: Record<string, readonly [number, number][]> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
}

const generalCategories = new Set([
  'C',
  'Cc',
  'Cf',
  'Co',
  'Cs',
  'L',
  'Ll',
  'Lm',
  'Lo',
  'Lt',
  'Lu',
  'M',
  'Mc',
  'Me',
  'Mn',
  'N',
  'Nd',
  'Nl',
  'No',
  'P',
  'Pc',
  'Pd',
  'Pe',
  'Pf',
  'Pi',
  'Po',
  'Ps',
  'S',
  'Sc',
  'Sk',
  'Sm',
  'So',
  'Z',
  'Zl',
  'Zp',
  'Zs',
])

function complement(ranges: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = []
  let next = 0
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_RUNE) out.push([next, MAX_RUNE])
  return out
}

type AssertKind = 'bot' | 'eot' | 'bol' | 'eol' | 'wb' | 'nwb'

type Node =
  | { readonly t: 'char'; readonly test: (r: number) => boolean }
  | { readonly t: 'assert'; readonly kind: AssertKind }
  | { readonly t: 'cat'; readonly subs: readonly Node[] }
  | { readonly t: 'alt'; readonly subs: readonly Node[] }
  | {
      readonly t: 'rep'
      readonly sub: Node
      readonly min: number
      readonly max: number
      readonly greedy: boolean
      readonly braces: boolean
    }
  | { readonly t: 'cap'; readonly index: number; readonly sub: Node }

const EMPTY: Node = { t: 'cat', subs: [] }

const u = (r: number): string => `\\u{${r.toString(16)}}`

function emitClass(items: readonly ClassItem[], negated: boolean): string {
  let body = ''
  for (const it of items) {
    if ('prop' in it) body += (it.neg ? '\\P{' : '\\p{') + it.prop + '}'
    else body += it.lo === it.hi ? u(it.lo) : u(it.lo) + '-' + u(it.hi)
  }
  if (body === '') return negated ? '[\\u{0}-\\u{10ffff}]' : '[]'
  return (negated ? '[^' : '[') + body + ']'
}

/** A rune predicate from a one-character JS pattern, memoized per rune. */
function jsTest(source: string, fold: boolean): (r: number) => boolean {
  const re = new NativeRegExp(`^(?:${source})$`, fold ? 'iu' : 'u')
  const memo = new Map<number, boolean>()
  return (r) => {
    let hit = memo.get(r)
    if (hit === undefined) {
      hit = re.test(String.fromCodePoint(r))
      if (memo.size < 4096) memo.set(r, hit)
    }
    return hit
  }
}

function literal(r: number, fold: boolean): Node {
  const caseless =
    String.fromCodePoint(r).toLowerCase() === String.fromCodePoint(r).toUpperCase() &&
    r !== 0x130 &&
    r !== 0x131 &&
    r !== 0x17f &&
    r !== 0x212a &&
    r !== 0x212b
  if (!fold || caseless) return { t: 'char', test: (x) => x === r }
  return { t: 'char', test: jsTest(u(r), true) }
}

function classNode(items: readonly ClassItem[], negated: boolean, fold: boolean): Node {
  if (!fold && items.every((it) => !('prop' in it))) {
    const ranges = items as readonly { lo: number; hi: number }[]
    return { t: 'char', test: (x) => ranges.some((it) => x >= it.lo && x <= it.hi) !== negated }
  }
  return { t: 'char', test: jsTest(emitClass(items, negated), fold) }
}

type Last = 'none' | 'atom' | { readonly rep: string }

function repeatIsValid(n: Node, limit: number): boolean {
  if (n.t === 'rep' && n.braces) {
    let m = n.max
    if (m === 0) return true
    if (m < 0) m = n.min
    if (m > limit) return false
    if (m > 0) limit = Math.floor(limit / m)
  }
  switch (n.t) {
    case 'rep':
    case 'cap':
      return repeatIsValid(n.sub, limit)
    case 'cat':
    case 'alt':
      return n.subs.every((x) => repeatIsValid(x, limit))
    default:
      return true
  }
}

class Parser {
  readonly src: string
  readonly cps: number[]
  pos = 0
  flags: Flags = { fold: false, multiLine: false, dotNL: false, ungreedy: false }
  names: string[] = ['']

  constructor(src: string) {
    this.src = src
    this.cps = Array.from(src, (c) => c.codePointAt(0) ?? 0xfffd)
  }

  error(code: string, arg: string): never {
    throw new RegexpSyntaxError(`error parsing regexp: ${code}: \`${arg}\``)
  }

  peek(off = 0): number | undefined {
    return this.cps[this.pos + off]
  }

  text(from: number, to = this.pos): string {
    return String.fromCodePoint(...this.cps.slice(from, to))
  }

  lookingAt(s: string): boolean {
    const cs = Array.from(s, (c) => c.codePointAt(0) ?? 0)
    return cs.every((c, i) => this.cps[this.pos + i] === c)
  }

  /** Parses up to the end or an unmatched ')' at depth > 0. */
  parseAlternation(depth: number): Node {
    const branches: Node[] = []
    let items: Node[] = []
    // The previous item: none (start of a branch), an atom, or a repetition (with its text).
    let last: Last = 'none'
    const addAtom = (n: Node): void => {
      items.push(n)
      last = 'atom'
    }
    const endBranch = (): void => {
      branches.push(items.length === 1 ? (items[0] ?? EMPTY) : { t: 'cat', subs: items })
      items = []
      last = 'none'
    }
    const repeat = (op: string, min: number, max: number, start: number): void => {
      const braces = op === '{'
      let greedy = !this.flags.ungreedy
      if (this.peek() === 0x3f) {
        this.pos++
        greedy = !greedy
      }
      const text = this.text(start)
      if (typeof last === 'object') this.error('invalid nested repetition operator', last.rep + text)
      if (last === 'none') this.error('missing argument to repetition operator', text)
      const sub = items.pop() ?? EMPTY
      const node: Node = { t: 'rep', sub, min, max, greedy, braces }
      // Nested counted repetitions may not multiply beyond 1000, as in Go.
      if (braces && (min >= 2 || max >= 2) && !repeatIsValid(node, 1000)) this.error('invalid repeat count', text.replace(/\?$/, ''))
      items.push(node)
      last = { rep: text }
    }
    while (this.pos < this.cps.length) {
      const c = this.peek() ?? 0
      const start = this.pos
      switch (c) {
        case 0x7c: // |
          this.pos++
          endBranch()
          continue
        case 0x29: // )
          if (depth === 0) this.error('unexpected )', this.src)
          endBranch()
          return branches.length === 1 ? (branches[0] ?? EMPTY) : { t: 'alt', subs: branches }
        case 0x28: {
          // (
          const n = this.parseGroup(depth)
          // A bare flag group such as (?i) adds nothing to repeat.
          if (n === undefined) {
            if (typeof last === 'object') last = 'atom'
          } else addAtom(n)
          continue
        }
        case 0x2a: // *
          this.pos++
          repeat('*', 0, -1, start)
          continue
        case 0x2b: // +
          this.pos++
          repeat('+', 1, -1, start)
          continue
        case 0x3f: // ?
          this.pos++
          repeat('?', 0, 1, start)
          continue
        case 0x7b: {
          // {
          const rep = this.tryRepeatBraces()
          if (rep !== undefined) {
            repeat('{', rep.min, rep.max, start)
            continue
          }
          this.pos++
          addAtom(literal(c, this.flags.fold))
          continue
        }
        case 0x5b: // [
          addAtom(this.parseClass())
          continue
        case 0x2e: {
          // .
          this.pos++
          const dotNL = this.flags.dotNL
          addAtom({ t: 'char', test: dotNL ? () => true : (x) => x !== 0x0a })
          continue
        }
        case 0x5e: // ^
          this.pos++
          addAtom({ t: 'assert', kind: this.flags.multiLine ? 'bol' : 'bot' })
          continue
        case 0x24: // $
          this.pos++
          addAtom({ t: 'assert', kind: this.flags.multiLine ? 'eol' : 'eot' })
          continue
        case 0x5c: {
          // backslash
          const n = this.parseEscapeOutside()
          if (n !== undefined) addAtom(n)
          continue
        }
        default:
          this.pos++
          addAtom(literal(c, this.flags.fold))
      }
    }
    if (depth > 0) this.error('missing closing )', this.src)
    endBranch()
    return branches.length === 1 ? (branches[0] ?? EMPTY) : { t: 'alt', subs: branches }
  }

  /** {n}, {n,} or {n,m} at pos; undefined (pos unchanged) when it is a literal brace. */
  tryRepeatBraces(): { min: number; max: number } | undefined {
    const rest = this.text(this.pos, Math.min(this.cps.length, this.pos + 32))
    const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(rest)
    if (!m) return undefined
    const whole = m[0]
    const min = Number(m[1])
    const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3])
    if (min > 1000 || max > 1000 || (max >= 0 && min > max)) this.error('invalid repeat count', whole)
    this.pos += whole.length
    return { min, max }
  }

  /** A group; undefined for a flag-only group such as (?i). */
  parseGroup(depth: number): Node | undefined {
    const start = this.pos
    this.pos++ // (
    const saved = { ...this.flags }
    let index = -1
    if (this.peek() === 0x3f) {
      // (?
      // Go (1.22+) reads (?P<name> and (?<name>; so lookbehind (?<= and (?<! is
      // an invalid named capture, and a name may repeat.
      const rest = this.cps.length - start
      const isP = rest > 4 && this.lookingAt('?P<')
      if (isP || (rest > 3 && this.lookingAt('?<'))) {
        this.pos += isP ? 3 : 2
        const nameStart = this.pos
        while (this.pos < this.cps.length && this.peek() !== 0x3e) this.pos++
        if (this.pos >= this.cps.length) this.error('invalid named capture', this.text(start, this.pos))
        const name = this.text(nameStart)
        this.pos++ // >
        if (!/^[A-Za-z0-9_]+$/.test(name)) this.error('invalid named capture', this.text(start))
        index = this.names.length
        this.names.push(name)
      } else {
        this.pos++ // ?
        const f = { ...this.flags }
        let sign = 1
        let sawFlag = false
        for (;;) {
          const c = this.peek()
          if (c === undefined) this.error('invalid or unsupported Perl syntax', this.text(start))
          this.pos++
          const ch = String.fromCodePoint(c)
          if (ch === 'i' || ch === 'm' || ch === 's' || ch === 'U') {
            const on = sign > 0
            if (ch === 'i') f.fold = on
            else if (ch === 'm') f.multiLine = on
            else if (ch === 's') f.dotNL = on
            else f.ungreedy = on
            sawFlag = true
            continue
          }
          if (ch === '-') {
            if (sign < 0) this.error('invalid or unsupported Perl syntax', this.text(start))
            sign = -1
            sawFlag = false
            continue
          }
          if (ch === ':' || ch === ')') {
            if (sign < 0 && !sawFlag) this.error('invalid or unsupported Perl syntax', this.text(start))
            this.flags = f
            // (?flags) changes the flags for the rest of the enclosing group.
            if (ch === ')') return undefined
            const body = this.parseAlternation(depth + 1)
            this.pos++ // )
            this.flags = saved
            return body
          }
          this.error('invalid or unsupported Perl syntax', this.text(start))
        }
      }
    } else {
      index = this.names.length
      this.names.push('')
    }
    const body = this.parseAlternation(depth + 1)
    this.pos++ // )
    this.flags = saved
    return { t: 'cap', index, sub: body }
  }

  /** An escape outside a class; undefined for \Q...\E with no text. */
  parseEscapeOutside(): Node | undefined {
    const start = this.pos
    const c = this.peek(1)
    if (c === undefined) this.error('trailing backslash at end of expression', '')
    const ch = String.fromCodePoint(c)
    const assert = (kind: AssertKind): Node => {
      this.pos += 2
      return { t: 'assert', kind }
    }
    switch (ch) {
      case 'A':
        return assert('bot')
      case 'z':
        return assert('eot')
      case 'b':
        return assert('wb')
      case 'B':
        return assert('nwb')
      case 'Q': {
        this.pos += 2
        const subs: Node[] = []
        while (this.pos < this.cps.length && !this.lookingAt('\\E')) {
          // A backslash before another backslash stays literal text inside \Q.
          if (this.peek() === 0x5c && this.peek(1) === 0x5c) this.pos++
          subs.push(literal(this.peek() ?? 0, this.flags.fold))
          this.pos++
        }
        if (this.lookingAt('\\E')) this.pos += 2
        return subs.length === 0 ? undefined : { t: 'cat', subs }
      }
      case 'C':
        this.error('invalid escape sequence', '\\C')
    }
    const cls = this.tryClassEscape()
    if (cls !== undefined) return classNode(cls.items, cls.negated, this.flags.fold)
    this.pos = start
    return literal(this.parseEscapeChar(), this.flags.fold)
  }

  /** \d \D \s \S \w \W \pX \p{..} \PX \P{..} at pos. */
  tryClassEscape(): { items: ClassItem[]; negated: boolean } | undefined {
    const c = this.peek(1)
    if (c === undefined) return undefined
    const ch = String.fromCodePoint(c)
    const perl = perlClasses[ch.toLowerCase()]
    if (perl && 'dswDSW'.includes(ch)) {
      this.pos += 2
      const ranges = ch === ch.toLowerCase() ? perl : complement(perl)
      return { items: ranges.map(([lo, hi]) => ({ lo, hi })), negated: false }
    }
    if (ch === 'p' || ch === 'P') {
      const start = this.pos
      this.pos += 2
      let name: string
      if (this.peek() === 0x7b) {
        const close = this.cps.indexOf(0x7d, this.pos)
        if (close < 0) this.error('invalid character class range', this.text(start, this.cps.length))
        name = this.text(this.pos + 1, close)
        this.pos = close + 1
      } else {
        const n = this.peek()
        if (n === undefined) this.error('invalid character class range', this.text(start))
        name = String.fromCodePoint(n)
        this.pos++
      }
      let neg = ch === 'P'
      if (name.startsWith('^')) {
        neg = !neg
        name = name.slice(1)
      }
      const whole = this.text(start)
      if (name === 'Any') return { items: neg ? [] : [{ lo: 0, hi: MAX_RUNE }], negated: false }
      let prop: string
      if (generalCategories.has(name)) prop = name
      else {
        prop = 'Script=' + name
        try {
          new NativeRegExp(`\\p{${prop}}`, 'u')
        } catch {
          this.error('invalid character class range', whole)
        }
      }
      return { items: [{ prop, neg }], negated: false }
    }
    return undefined
  }

  /** A single-rune escape at pos (after checking class escapes). */
  parseEscapeChar(): number {
    const start = this.pos
    this.pos++ // backslash
    const c = this.peek()
    if (c === undefined) this.error('trailing backslash at end of expression', '')
    this.pos++
    const ch = String.fromCodePoint(c)
    const bad: () => never = () => this.error('invalid escape sequence', this.text(start))
    switch (ch) {
      case 'a':
        return 7
      case 'f':
        return 12
      case 't':
        return 9
      case 'n':
        return 10
      case 'r':
        return 13
      case 'v':
        return 11
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        // A single non-zero digit is a backreference, which RE2 does not support.
        const n = this.peek()
        if (ch !== '0' && (n === undefined || n < 0x30 || n > 0x37)) bad()
        let r = c - 0x30
        for (let i = 1; i < 3; i++) {
          const d = this.peek()
          if (d === undefined || d < 0x30 || d > 0x37) break
          r = r * 8 + (d - 0x30)
          this.pos++
        }
        return r
      }
      case 'x': {
        const n = this.peek()
        if (n === undefined) bad()
        if (n === 0x7b) {
          this.pos++
          let r = 0
          let digits = 0
          for (;;) {
            const d = this.peek()
            if (d === undefined) bad()
            this.pos++
            if (d === 0x7d) break
            const v = parseInt(String.fromCodePoint(d), 16)
            if (Number.isNaN(v)) bad()
            r = r * 16 + v
            digits++
            if (r > MAX_RUNE) bad()
          }
          if (digits === 0) bad()
          return r
        }
        const a = parseInt(String.fromCodePoint(n), 16)
        this.pos++
        const bc = this.peek()
        if (bc === undefined) bad()
        const b = parseInt(String.fromCodePoint(bc), 16)
        this.pos++
        if (Number.isNaN(a) || Number.isNaN(b)) bad()
        return a * 16 + b
      }
    }
    // Escaped ASCII punctuation is the character itself.
    if (c < 0x80 && !/[0-9A-Za-z]/.test(ch)) return c
    return bad()
  }

  parseClass(): Node {
    const start = this.pos
    this.pos++ // [
    let negated = false
    if (this.peek() === 0x5e) {
      negated = true
      this.pos++
    }
    const items: ClassItem[] = []
    let first = true
    for (;;) {
      const c = this.peek()
      if (c === undefined) this.error('missing closing ]', this.text(start, this.cps.length))
      if (c === 0x5d && !first) {
        this.pos++
        break
      }
      first = false
      const itemStart = this.pos
      if (c === 0x5b && this.peek(1) === 0x3a) {
        const close = this.src.indexOf(':]', 0) >= 0 ? this.findPosixEnd() : -1
        if (close >= 0) {
          let name = this.text(this.pos + 2, close)
          this.pos = close + 2
          let neg = false
          if (name.startsWith('^')) {
            neg = true
            name = name.slice(1)
          }
          const ranges = posixClasses[name]
          if (!ranges) this.error('invalid character class range', this.text(itemStart))
          for (const [lo, hi] of neg ? complement(ranges) : ranges) items.push({ lo, hi })
          continue
        }
      }
      if (c === 0x5c) {
        const cls = this.tryClassEscape()
        if (cls !== undefined) {
          items.push(...cls.items)
          continue
        }
      }
      const lo = this.classChar()
      let hi = lo
      if (this.peek() === 0x2d && this.peek(1) !== undefined && this.peek(1) !== 0x5d) {
        this.pos++
        if (this.peek() === 0x5c && this.tryClassEscapePeek())
          this.error('invalid character class range', this.text(itemStart, this.pos + 2))
        hi = this.classChar()
        if (hi < lo) this.error('invalid character class range', this.text(itemStart))
      }
      items.push({ lo, hi })
    }
    return classNode(items, negated, this.flags.fold)
  }

  findPosixEnd(): number {
    for (let i = this.pos + 2; i + 1 < this.cps.length; i++) {
      if (this.cps[i] === 0x3a && this.cps[i + 1] === 0x5d) return i
      if (this.cps[i] === 0x5d) return -1
    }
    return -1
  }

  tryClassEscapePeek(): boolean {
    const c = this.peek(1)
    return c !== undefined && 'dDsSwWpP'.includes(String.fromCodePoint(c))
  }

  classChar(): number {
    const c = this.peek()
    if (c === undefined) this.error('missing closing ]', this.src)
    if (c === 0x5c) return this.parseEscapeChar()
    this.pos++
    return c
  }
}

// The program: Thompson's construction with ordered alternatives.
type Inst =
  | { op: 'char'; test: (r: number) => boolean; x: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'save'; n: number; x: number }
  | { op: 'assert'; kind: AssertKind; x: number }
  | { op: 'match' }

export interface Prog {
  readonly insts: readonly Inst[]
  readonly ncap: number
  readonly start: number
}

// Go refuses programs beyond a size limit ("expression too large"); so does this.
const MAX_INSTS = 100_000

type Simple =
  | { readonly t: 'char'; readonly test: (r: number) => boolean }
  | { readonly t: 'assert'; readonly kind: AssertKind }
  | { readonly t: 'empty' }
  | { readonly t: 'cat'; readonly subs: readonly Simple[] }
  | { readonly t: 'alt'; readonly subs: readonly Simple[] }
  | { readonly t: 'star' | 'plus' | 'quest'; readonly sub: Simple; readonly greedy: boolean }
  | { readonly t: 'cap'; readonly index: number; readonly sub: Simple }

// Go's Simplify: counted repetitions become copies, x{2,5} = xx(x(x(x)?)?)?,
// and a star of a star (same greediness) is one star.
function simplify(n: Node): Simple {
  switch (n.t) {
    case 'char':
    case 'assert':
      return n
    case 'cat':
      return n.subs.length === 0 ? { t: 'empty' } : { t: 'cat', subs: n.subs.map(simplify) }
    case 'alt':
      return { t: 'alt', subs: n.subs.map(simplify) }
    case 'cap':
      return { t: 'cap', index: n.index, sub: simplify(n.sub) }
    case 'rep': {
      const sub = simplify(n.sub)
      const one = (t: 'star' | 'plus' | 'quest', x: Simple): Simple => {
        if (x.t === 'empty') return x
        if (x.t === t && x.greedy === n.greedy) return x
        return { t, sub: x, greedy: n.greedy }
      }
      const { min, max } = n
      if (!n.braces) return one(max === 1 ? 'quest' : min === 1 ? 'plus' : 'star', sub)
      if (min === 0 && max === 0) return { t: 'empty' }
      if (max === -1) {
        if (min === 0) return one('star', sub)
        if (min === 1) return one('plus', sub)
        return { t: 'cat', subs: [...Array.from({ length: min - 1 }, () => sub), one('plus', sub)] }
      }
      if (min === 1 && max === 1) return sub
      const prefix: Simple[] = Array.from({ length: min }, () => sub)
      if (max > min) {
        let suffix = one('quest', sub)
        for (let i = min + 1; i < max; i++) suffix = one('quest', { t: 'cat', subs: [sub, suffix] })
        prefix.push(suffix)
      }
      return prefix.length === 1 ? (prefix[0] as Simple) : { t: 'cat', subs: prefix }
    }
  }
}

interface Frag {
  readonly i: number
  readonly out: readonly (readonly [number, 'x' | 'y'])[]
  readonly nullable: boolean
}

// Go's compiler (regexp/syntax/compile.go): fragments with patch lists, and a
// star over something that can match empty compiled as (x+)? so that the
// priorities of the threads, and so the matches, are Go's.
function compileProg(root: Node, ngroups: number, expr: string): Prog {
  const insts: Inst[] = []
  const inst = (i: Inst): number => {
    if (insts.length >= MAX_INSTS) throw new RegexpSyntaxError(`error parsing regexp: expression too large: \`${expr}\``)
    insts.push(i)
    return insts.length - 1
  }
  const patch = (out: Frag['out'], to: number): void => {
    for (const [at, field] of out) {
      const i = insts[at] as Record<string, unknown> | undefined
      if (i !== undefined) i[field] = to
    }
  }
  const split = (x: number, y: number): number => inst({ op: 'split', x, y })
  const cat = (f1: Frag, f2: Frag): Frag => {
    patch(f1.out, f2.i)
    return { i: f1.i, out: f2.out, nullable: f1.nullable && f2.nullable }
  }
  const quest = (f1: Frag, greedy: boolean): Frag => {
    const at = greedy ? split(f1.i, -1) : split(-1, f1.i)
    return { i: at, out: [[at, greedy ? 'y' : 'x'], ...f1.out], nullable: true }
  }
  const loop = (f1: Frag, greedy: boolean): Frag => {
    const at = greedy ? split(f1.i, -1) : split(-1, f1.i)
    patch(f1.out, at)
    return { i: at, out: [[at, greedy ? 'y' : 'x']], nullable: true }
  }
  const plus = (f1: Frag, greedy: boolean): Frag => ({ i: f1.i, out: loop(f1, greedy).out, nullable: f1.nullable })
  const star = (f1: Frag, greedy: boolean): Frag => (f1.nullable ? quest(plus(f1, greedy), greedy) : loop(f1, greedy))
  const single = (i: Inst, nullable: boolean): Frag => {
    const at = inst(i)
    return { i: at, out: [[at, 'x']], nullable }
  }
  const comp = (n: Simple): Frag => {
    switch (n.t) {
      case 'char':
        return single({ op: 'char', test: n.test, x: -1 }, false)
      case 'assert':
        return single({ op: 'assert', kind: n.kind, x: -1 }, true)
      case 'empty':
        return single({ op: 'jmp', x: -1 }, true)
      case 'cap': {
        const bra = single({ op: 'save', n: 2 * n.index, x: -1 }, true)
        const sub = comp(n.sub)
        const ket = single({ op: 'save', n: 2 * n.index + 1, x: -1 }, true)
        return cat(cat(bra, sub), ket)
      }
      case 'cat': {
        let f = comp(n.subs[0] as Simple)
        for (const sub of n.subs.slice(1)) f = cat(f, comp(sub))
        return f
      }
      case 'alt': {
        let f = comp(n.subs[0] as Simple)
        for (const sub of n.subs.slice(1)) {
          const f2 = comp(sub)
          const at = split(f.i, f2.i)
          f = { i: at, out: [...f.out, ...f2.out], nullable: f.nullable || f2.nullable }
        }
        return f
      }
      case 'star':
        return star(comp(n.sub), n.greedy)
      case 'plus':
        return plus(comp(n.sub), n.greedy)
      case 'quest':
        return quest(comp(n.sub), n.greedy)
    }
  }
  const start = single({ op: 'save', n: 0, x: -1 }, true)
  const body = cat(start, comp(simplify(root)))
  const end = single({ op: 'save', n: 1, x: -1 }, true)
  const whole = cat(body, end)
  patch(whole.out, inst({ op: 'match' }))
  return { insts, ncap: 2 * ngroups, start: whole.i }
}

interface Thread {
  readonly pc: number
  readonly caps: number[]
}

class ThreadList {
  threads: Thread[] = []
  readonly seen: Int32Array
  gen = 1
  constructor(size: number) {
    this.seen = new Int32Array(size)
  }
  clear(): void {
    this.threads = []
    this.gen++
  }
}

const isWordRune = (r: number): boolean => (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f

function assertHolds(kind: AssertKind, s: string, pos: number): boolean {
  switch (kind) {
    case 'bot':
      return pos === 0
    case 'eot':
      return pos === s.length
    case 'bol':
      return pos === 0 || s.charCodeAt(pos - 1) === 0x0a
    case 'eol':
      return pos === s.length || s.charCodeAt(pos) === 0x0a
    default: {
      const before = pos > 0 && isWordRune(s.charCodeAt(pos - 1))
      const after = pos < s.length && isWordRune(s.charCodeAt(pos))
      return (before !== after) === (kind === 'wb')
    }
  }
}

function addThread(prog: Prog, list: ThreadList, pc0: number, pos: number, caps0: number[], s: string): void {
  const stack: Thread[] = [{ pc: pc0, caps: caps0 }]
  while (stack.length > 0) {
    const { pc, caps } = stack.pop() as Thread
    if (list.seen[pc] === list.gen) continue
    list.seen[pc] = list.gen
    const inst = prog.insts[pc]
    if (inst === undefined) continue
    switch (inst.op) {
      case 'jmp':
        stack.push({ pc: inst.x, caps })
        break
      case 'split':
        stack.push({ pc: inst.y, caps })
        stack.push({ pc: inst.x, caps })
        break
      case 'save': {
        const c = caps.slice()
        if (inst.n < c.length) c[inst.n] = pos
        stack.push({ pc: inst.x, caps: c })
        break
      }
      case 'assert':
        if (assertHolds(inst.kind, s, pos)) stack.push({ pc: inst.x, caps })
        break
      default:
        list.threads.push({ pc, caps })
    }
  }
}

export interface Match {
  readonly start: number
  readonly end: number
  /** Start and end offsets (UTF-16) of each group; -1 when a group did not take part. */
  readonly caps: readonly number[]
}

/** The leftmost-first match starting the search at pos (the whole string stays visible to assertions). */
export function execAt(g: GoRegexp, s: string, pos: number): Match | null {
  const prog = g.prog
  let clist = new ThreadList(prog.insts.length)
  let nlist = new ThreadList(prog.insts.length)
  const fresh = new Array<number>(prog.ncap).fill(-1)
  let matched: number[] | null = null
  for (let i = pos; ; ) {
    if (matched === null) addThread(prog, clist, prog.start, i, fresh, s)
    else if (clist.threads.length === 0) break
    const r = i < s.length ? (s.codePointAt(i) ?? -1) : -1
    const w = r > 0xffff ? 2 : 1
    for (const t of clist.threads) {
      const inst = prog.insts[t.pc]
      if (inst === undefined) continue
      if (inst.op === 'match') {
        matched = t.caps
        // Lower-priority threads can only find worse matches.
        break
      }
      if (inst.op === 'char' && r >= 0 && inst.test(r)) addThread(prog, nlist, inst.x, i + w, t.caps, s)
    }
    if (i >= s.length) break
    i += w
    ;[clist, nlist] = [nlist, clist]
    nlist.clear()
  }
  if (matched === null) return null
  return { start: matched[0] ?? 0, end: matched[1] ?? 0, caps: matched }
}

/** regexp.Compile. Throws RegexpSyntaxError with Go's message. */
export function compileGo(expr: string): GoRegexp {
  const p = new Parser(expr)
  const root = p.parseAlternation(0)
  return { expr, prog: compileProg(root, p.names.length, expr), names: p.names }
}

const cache = new Map<string, GoRegexp | RegexpSyntaxError>()

export function compileCached(expr: string): GoRegexp {
  let hit = cache.get(expr)
  if (hit === undefined) {
    try {
      hit = compileGo(expr)
    } catch (e) {
      if (!(e instanceof RegexpSyntaxError)) throw e
      hit = e
    }
    if (cache.size >= 256) cache.clear()
    cache.set(expr, hit)
  }
  if (hit instanceof RegexpSyntaxError) throw hit
  return hit
}

const runeWidth = (s: string, pos: number): number => {
  const c = s.charCodeAt(pos)
  return c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length ? 2 : 1
}

/** Go's allMatches: successive non-overlapping matches, no empty match right after a match. */
export function allMatches(g: GoRegexp, s: string, n: number): Match[] {
  const out: Match[] = []
  if (n < 0) n = s.length + 1
  let pos = 0
  let prevEnd = -1
  while (out.length < n && pos <= s.length) {
    const m = execAt(g, s, pos)
    if (m === null) break
    let accept = true
    if (m.end === pos) {
      if (m.start === prevEnd) accept = false
      pos += pos < s.length ? runeWidth(s, pos) : 1
    } else pos = m.end
    prevEnd = m.end
    if (accept) out.push(m)
  }
  return out
}

function group(s: string, m: Match, i: number): string {
  const a = m.caps[2 * i] ?? -1
  const b = m.caps[2 * i + 1] ?? -1
  return a >= 0 && b >= 0 ? s.slice(a, b) : ''
}

function expand(g: GoRegexp, template: string, src: string, m: Match): string {
  let out = ''
  while (template.length > 0) {
    const i = template.indexOf('$')
    if (i < 0) break
    out += template.slice(0, i)
    template = template.slice(i + 1)
    if (template.startsWith('$')) {
      out += '$'
      template = template.slice(1)
      continue
    }
    const ex = extractName(template)
    if (ex === undefined) {
      out += '$'
      continue
    }
    template = ex.rest
    if (ex.num >= 0) {
      if (ex.num < g.names.length) out += group(src, m, ex.num)
    } else {
      // With repeated names, the first group of that name that took part in the match.
      const idx = g.names.findIndex((n, i) => i > 0 && n === ex.name && (m.caps[2 * i] ?? -1) >= 0)
      if (idx > 0) out += group(src, m, idx)
    }
  }
  return out + template
}

function extractName(str: string): { name: string; num: number; rest: string } | undefined {
  if (str === '') return undefined
  let brace = false
  if (str[0] === '{') {
    brace = true
    str = str.slice(1)
  }
  const m = /^[\p{L}\p{Nd}_]+/u.exec(str)
  if (!m) return undefined
  const name = m[0]
  let i = name.length
  if (brace) {
    if (str[i] !== '}') return undefined
    i++
  }
  let num = /^[0-9]+$/.test(name) && name.length <= 8 ? Number(name) : -1
  if (name[0] === '0' && name.length > 1) num = -1
  return { name, num, rest: str.slice(i) }
}

/** ReplaceAllString (expand = true) or ReplaceAllLiteralString. */
export function replaceAll(g: GoRegexp, src: string, repl: string, expandTemplate: boolean): string {
  let out = ''
  let lastEnd = 0
  let searchPos = 0
  while (searchPos <= src.length) {
    const m = execAt(g, src, searchPos)
    if (m === null) break
    out += src.slice(lastEnd, m.start)
    // No replacement for an empty match right after the previous match.
    if (m.end > lastEnd || m.start === 0) out += expandTemplate && repl.includes('$') ? expand(g, repl, src, m) : repl
    lastEnd = m.end
    const width = searchPos < src.length ? runeWidth(src, searchPos) : 1
    if (searchPos + width > m.end) searchPos += width
    else if (searchPos + 1 > m.end) searchPos++
    else searchPos = m.end
  }
  return out + src.slice(lastEnd)
}

/** Regexp.Split; undefined stands for Go's nil slice. */
export function split(g: GoRegexp, s: string, n: number): string[] | undefined {
  if (n === 0) return undefined
  if (g.expr.length > 0 && s.length === 0) return ['']
  const matches = allMatches(g, s, n)
  const out: string[] = []
  let beg = 0
  let end = 0
  for (const m of matches) {
    if (n > 0 && out.length === n - 1) break
    end = m.start
    if (m.end !== 0) out.push(s.slice(beg, end))
    beg = m.end
  }
  if (end !== s.length) out.push(s.slice(beg))
  return out
}

export function matchString(g: GoRegexp, s: string): boolean {
  return execAt(g, s, 0) !== null
}

export function findString(g: GoRegexp, s: string): string {
  const m = execAt(g, s, 0)
  return m === null ? '' : s.slice(m.start, m.end)
}

const metaChars = new Set('\\.+*?()|[]{}^$')

export function quoteMeta(s: string): string {
  let out = ''
  for (const c of s) out += metaChars.has(c) ? '\\' + c : c
  return out
}
