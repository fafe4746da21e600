// A block-style YAML emitter with the choices of go-yaml's emitter (the
// libyaml port both go-yaml v2 and v3 carry): which scalar style a string
// gets, where long lines fold at 80 columns, literal blocks with their
// chomping hints, flow `{}` / `[]` for empty collections, and how far
// sequences are indented. Helm's toYaml (go-yaml v2 through
// sigs.k8s.io/yaml) and toYamlPretty (go-yaml v3, indent 2) differ only in
// the node tree they hand over and in `indentSequences`.

export type YamlNode =
  | { readonly t: 'map'; readonly entries: readonly (readonly [YamlNode, YamlNode])[] }
  | { readonly t: 'seq'; readonly items: readonly YamlNode[] }
  /** `style` is what the encoder asks for; the emitter may fall back to a quoted style. */
  | { readonly t: 'scalar'; readonly value: string; readonly style: 'plain' | 'double' | 'literal' }

export interface EmitOptions {
  /** go-yaml v3 indents a sequence under its mapping key; v2 does not. */
  readonly indentSequences: boolean
  /** Column after which a space may break a long scalar: 80 in go-yaml v2; v3 never folds. */
  readonly width: number
}

const BEST_INDENT = 2

interface Analysis {
  readonly multiline: boolean
  readonly flowPlain: boolean
  readonly blockPlain: boolean
  readonly singleQuoted: boolean
  readonly block: boolean
}

const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029
const isSpace = (c: number): boolean => c === 0x20
const isBlankz = (c: number | undefined): boolean => c === undefined || c === 0x20 || c === 0x09 || isBreak(c) || c === 0

/** go-yaml's is_printable, on code points (the emitter runs with unicode on). */
function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff)
}

function codePoints(s: string): number[] {
  const out: number[] = []
  for (const ch of s) out.push(ch.codePointAt(0) ?? 0)
  return out
}

/** yaml_emitter_analyze_scalar. */
function analyze(cps: readonly number[], text: string): Analysis {
  if (cps.length === 0) return { multiline: false, flowPlain: false, blockPlain: true, singleQuoted: true, block: false }
  let blockIndicators = false
  let flowIndicators = false
  let lineBreaks = false
  let specialCharacters = false
  let leadingSpace = false
  let leadingBreak = false
  let trailingSpace = false
  let trailingBreak = false
  let breakSpace = false
  let spaceBreak = false
  let previousSpace = false
  let previousBreak = false
  if (text.startsWith('---') || text.startsWith('...')) {
    blockIndicators = true
    flowIndicators = true
  }
  let precededByWhitespace = true
  let followedByWhitespace = isBlankz(cps[1])
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as number
    const ch = String.fromCodePoint(c)
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowIndicators = true
        blockIndicators = true
      }
      if (ch === '?' || ch === ':') {
        flowIndicators = true
        if (followedByWhitespace) blockIndicators = true
      }
      if (ch === '-' && followedByWhitespace) {
        flowIndicators = true
        blockIndicators = true
      }
    } else {
      if (',?[]{}'.includes(ch)) flowIndicators = true
      if (ch === ':') {
        flowIndicators = true
        if (followedByWhitespace) blockIndicators = true
      }
      if (ch === '#' && precededByWhitespace) {
        flowIndicators = true
        blockIndicators = true
      }
    }
    if (!isPrintable(c)) specialCharacters = true
    if (isBreak(c)) lineBreaks = true
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true
      if (i === cps.length - 1) trailingSpace = true
      if (previousBreak) breakSpace = true
      previousSpace = true
      previousBreak = false
    } else if (isBreak(c)) {
      if (i === 0) leadingBreak = true
      if (i === cps.length - 1) trailingBreak = true
      if (previousSpace) spaceBreak = true
      previousBreak = true
      previousSpace = false
    } else {
      previousSpace = false
      previousBreak = false
    }
    precededByWhitespace = isBlankz(c)
    followedByWhitespace = isBlankz(cps[i + 2])
  }
  let flowPlain = true
  let blockPlain = true
  let singleQuoted = true
  let block = true
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    flowPlain = false
    blockPlain = false
  }
  if (trailingSpace) block = false
  if (breakSpace) {
    flowPlain = false
    blockPlain = false
    singleQuoted = false
  }
  if (spaceBreak || specialCharacters) {
    flowPlain = false
    blockPlain = false
    singleQuoted = false
    block = false
  }
  if (lineBreaks) {
    flowPlain = false
    blockPlain = false
  }
  if (flowIndicators) flowPlain = false
  if (blockIndicators) blockPlain = false
  return { multiline: lineBreaks, flowPlain, blockPlain, singleQuoted, block }
}

type Style = 'plain' | 'single' | 'double' | 'literal'

const ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
])

const hex = (c: number, width: number): string => c.toString(16).toUpperCase().padStart(width, '0')

class Emitter {
  readonly out: string[] = []
  column = 0
  whitespace = true
  indention = true
  indent = -1
  readonly indents: number[] = []
  readonly opts: EmitOptions

  constructor(opts: EmitOptions) {
    this.opts = opts
  }

  put(s: string): void {
    this.out.push(s)
    this.column += s.length
  }

  putBreak(): void {
    this.out.push('\n')
    this.column = 0
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0)
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak()
    if (this.column < indent) this.put(' '.repeat(indent - this.column))
    this.whitespace = true
    this.indention = true
  }

  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ')
    this.put(ind)
    this.whitespace = isWhitespace
    this.indention = this.indention && isIndention
  }

  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent)
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0
    else if (!indentless) this.indent += BEST_INDENT
  }

  popIndent(): void {
    this.indent = this.indents.pop() ?? -1
  }

  node(n: YamlNode, ctx: { root: boolean; sequence: boolean; mapping: boolean; simpleKey: boolean }): void {
    if (n.t === 'scalar') return this.scalar(n.value, n.style, ctx.simpleKey)
    const empty = n.t === 'map' ? n.entries.length === 0 : n.items.length === 0
    if (empty) {
      this.writeIndicator(n.t === 'map' ? '{' : '[', true, true, false)
      this.writeIndicator(n.t === 'map' ? '}' : ']', false, false, false)
      return
    }
    if (n.t === 'seq') {
      const indentless = ctx.mapping && !this.indention && !this.opts.indentSequences
      this.increaseIndent(false, indentless)
      for (const item of n.items) {
        this.writeIndent()
        this.writeIndicator('-', true, false, true)
        this.node(item, { root: false, sequence: true, mapping: false, simpleKey: false })
      }
      this.popIndent()
      return
    }
    this.increaseIndent(false, false)
    for (const [k, v] of n.entries) {
      this.writeIndent()
      if (this.isSimpleKey(k)) {
        this.node(k, { root: false, sequence: false, mapping: true, simpleKey: true })
        this.writeIndicator(':', false, false, false)
      } else {
        this.writeIndicator('?', true, false, true)
        this.node(k, { root: false, sequence: false, mapping: true, simpleKey: false })
        this.writeIndent()
        this.writeIndicator(':', true, false, true)
      }
      this.node(v, { root: false, sequence: false, mapping: true, simpleKey: false })
    }
    this.popIndent()
  }

  isSimpleKey(k: YamlNode): boolean {
    if (k.t !== 'scalar') return (k.t === 'map' ? k.entries.length : k.items.length) === 0
    if (analyze(codePoints(k.value), k.value).multiline) return false
    return Buffer.byteLength(k.value, 'utf8') <= 128
  }

  selectStyle(value: string, a: Analysis, requested: 'plain' | 'double' | 'literal', simpleKey: boolean): Style {
    let style: Style = requested
    if (style === 'plain') {
      if (!a.blockPlain) style = 'single'
      else if (value.length === 0 && simpleKey) style = 'single'
    }
    if (style === 'single' && !a.singleQuoted) style = 'double'
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double'
    return style
  }

  scalar(value: string, requested: 'plain' | 'double' | 'literal', simpleKey: boolean): void {
    const cps = codePoints(value)
    const a = analyze(cps, value)
    const style = this.selectStyle(value, a, requested, simpleKey)
    this.increaseIndent(true, false)
    const allowBreaks = !simpleKey
    switch (style) {
      case 'plain':
        this.plain(cps, allowBreaks)
        break
      case 'single':
        this.single(cps, allowBreaks)
        break
      case 'double':
        this.double(cps, allowBreaks)
        break
      case 'literal':
        this.literal(cps)
        break
    }
    this.popIndent()
  }

  plain(cps: readonly number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ')
    let spaces = false
    let breaks = false
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > this.opts.width && !isSpace(cps[i + 1] ?? -1)) this.writeIndent()
        else this.put(' ')
        spaces = true
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak()
        this.putBreak()
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        this.put(String.fromCodePoint(c))
        this.indention = false
        spaces = false
        breaks = false
      }
    }
    this.whitespace = false
    this.indention = false
  }

  single(cps: readonly number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false)
    let spaces = false
    let breaks = false
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > this.opts.width && i !== 0 && i !== cps.length - 1 && !isSpace(cps[i + 1] ?? -1)) {
          this.writeIndent()
        } else this.put(' ')
        spaces = true
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak()
        this.putBreak()
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        this.put(c === 0x27 ? "''" : String.fromCodePoint(c))
        this.indention = false
        spaces = false
        breaks = false
      }
    }
    this.writeIndicator("'", false, false, false)
  }

  double(cps: readonly number[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false)
    let spaces = false
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number
      if (!isPrintable(c) || c === 0xfeff || isBreak(c) || c === 0x22 || c === 0x5c) {
        const esc = ESCAPES.get(c)
        if (esc !== undefined) this.put('\\' + esc)
        else if (c <= 0xff) this.put('\\x' + hex(c, 2))
        else if (c <= 0xffff) this.put('\\u' + hex(c, 4))
        else this.put('\\U' + hex(c, 8))
        spaces = false
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > this.opts.width && i !== 0 && i !== cps.length - 1) {
          this.writeIndent()
          if (isSpace(cps[i + 1] ?? -1)) this.put('\\')
        } else this.put(' ')
        spaces = true
      } else {
        this.put(String.fromCodePoint(c))
        spaces = false
      }
    }
    this.writeIndicator('"', false, false, false)
  }

  literal(cps: readonly number[]): void {
    this.writeIndicator('|', true, false, false)
    const first = cps[0]
    if (first !== undefined && (isSpace(first) || isBreak(first))) this.writeIndicator(String(BEST_INDENT), false, false, false)
    let chomp = ''
    const last = cps[cps.length - 1]
    if (last === undefined || !isBreak(last)) chomp = '-'
    else if (cps.length === 1 || isBreak(cps[cps.length - 2] as number)) chomp = '+'
    if (chomp !== '') this.writeIndicator(chomp, false, false, false)
    this.putBreak()
    this.indention = true
    this.whitespace = true
    let breaks = true
    for (const c of cps) {
      if (isBreak(c)) {
        this.putBreak()
        this.indention = true
        breaks = true
      } else {
        if (breaks) this.writeIndent()
        this.put(String.fromCodePoint(c))
        this.indention = false
        breaks = false
      }
    }
  }
}

/** One YAML document for the node, ending in a newline, as yaml.Marshal returns it. */
export function emitYaml(root: YamlNode, opts: EmitOptions): string {
  const e = new Emitter(opts)
  e.node(root, { root: true, sequence: false, mapping: false, simpleKey: false })
  // Document end: go-yaml writes an indent, which ends the last line.
  e.writeIndent()
  return e.out.join('')
}
