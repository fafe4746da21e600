// Lexer for Go text/template source. It splits the input into text and the
// tokens inside {{ }} actions, applies the trim markers ({{- and -}}) and drops
// comments, exactly where Go does: the parser's error messages and the output's
// whitespace both depend on these boundaries.
//
// The whole input is tokenized up front. A lexical error becomes the last
// token, so the parser reports it only when it reaches it, as Go's lazily
// running lexer does.

import { quote } from './strconv.ts'

export const Tok = {
  Error: 0,
  EOF: 1,
  Text: 2,
  LeftDelim: 3,
  RightDelim: 4,
  Space: 5,
  Pipe: 6,
  Assign: 7,
  Declare: 8,
  Char: 9,
  LeftParen: 10,
  RightParen: 11,
  String: 12,
  RawString: 13,
  CharConstant: 14,
  Number: 15,
  Complex: 16,
  Bool: 17,
  Field: 18,
  Variable: 19,
  Identifier: 20,
  // Keywords: Go prints these as <word> in error messages.
  Dot: 21,
  Nil: 22,
  Block: 23,
  Break: 24,
  Continue: 25,
  Define: 26,
  Else: 27,
  End: 28,
  If: 29,
  Range: 30,
  Template: 31,
  With: 32,
} as const
export type Tok = (typeof Tok)[keyof typeof Tok]

const firstKeyword = Tok.Dot

export interface Token {
  readonly type: Tok
  /** Offset of the token in the source (UTF-16 index). */
  readonly pos: number
  readonly val: string
}

const keywords: ReadonlyMap<string, Tok> = new Map<string, Tok>([
  ['block', Tok.Block],
  ['break', Tok.Break],
  ['continue', Tok.Continue],
  ['define', Tok.Define],
  ['else', Tok.Else],
  ['end', Tok.End],
  ['if', Tok.If],
  ['range', Tok.Range],
  ['nil', Tok.Nil],
  ['template', Tok.Template],
  ['with', Tok.With],
])

const LEFT = '{{'
const RIGHT = '}}'
const LEFT_COMMENT = '/*'
const RIGHT_COMMENT = '*/'
const EOF = -1

// Go's isSpace inside actions: only these four.
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a

const reAlnum = /^[\p{L}\p{Nd}_]$/u

export function isAlphaNumeric(c: number): boolean {
  if (c < 0x80) {
    return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f
  }
  return c !== EOF && reAlnum.test(String.fromCodePoint(c))
}

const rePrint = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u

/** Go's %#U: U+002D '-' (the character only when printable). */
export function formatRuneU(c: number): string {
  const hex = 'U+' + c.toString(16).toUpperCase().padStart(4, '0')
  const ch = String.fromCodePoint(c)
  return c === 0x20 || rePrint.test(ch) ? `${hex} '${ch}'` : hex
}

/** Length of the trailing run of action whitespace in s. */
function rightTrimLength(s: string, from: number, to: number): number {
  let i = to
  while (i > from && isSpace(s.charCodeAt(i - 1))) i--
  return to - i
}

class Lexer {
  readonly input: string
  readonly tokens: Token[] = []
  pos = 0
  start = 0
  parenDepth = 0
  done = false

  constructor(input: string) {
    this.input = input
  }

  /** The code point at pos, advancing past it; EOF at the end. */
  next(): number {
    if (this.pos >= this.input.length) {
      this.pos = this.input.length + 1
      return EOF
    }
    const c = this.input.codePointAt(this.pos) ?? EOF
    this.pos += c > 0xffff ? 2 : 1
    return c
  }

  peek(): number {
    if (this.pos >= this.input.length) return EOF
    return this.input.codePointAt(this.pos) ?? EOF
  }

  /** Steps back over the code point just read by next(). */
  backup(c: number): void {
    this.pos -= c === EOF ? 1 : c > 0xffff ? 2 : 1
  }

  emit(type: Tok): void {
    this.tokens.push({ type, pos: this.start, val: this.input.slice(this.start, this.pos) })
    this.start = this.pos
  }

  ignore(): void {
    this.start = this.pos
  }

  error(message: string): void {
    this.tokens.push({ type: Tok.Error, pos: this.start, val: message })
    this.done = true
  }

  accept(valid: string): boolean {
    const c = this.peek()
    if (c !== EOF && c < 0x80 && valid.includes(String.fromCharCode(c))) {
      this.pos++
      return true
    }
    return false
  }

  acceptRun(valid: string): void {
    while (this.accept(valid));
  }

  hasLeftTrimMarker(at: number): boolean {
    return this.input.charCodeAt(at) === 0x2d && isSpace(this.input.charCodeAt(at + 1))
  }

  hasRightTrimMarker(at: number): boolean {
    return isSpace(this.input.charCodeAt(at)) && this.input.charCodeAt(at + 1) === 0x2d
  }

  /** Whether pos is at the closing delimiter, and whether it carries a trim marker. */
  atRightDelim(): { delim: boolean; trim: boolean } {
    if (this.hasRightTrimMarker(this.pos) && this.input.startsWith(RIGHT, this.pos + 2)) return { delim: true, trim: true }
    if (this.input.startsWith(RIGHT, this.pos)) return { delim: true, trim: false }
    return { delim: false, trim: false }
  }

  atTerminator(): boolean {
    const c = this.peek()
    if (isSpace(c)) return true
    switch (c) {
      case EOF:
      case 0x2e: // .
      case 0x2c: // ,
      case 0x7c: // |
      case 0x3a: // :
      case 0x29: // )
      case 0x28: // (
        return true
    }
    return this.input.startsWith(RIGHT, this.pos)
  }

  run(): Token[] {
    let inside = false
    while (!this.done) {
      inside = inside ? this.lexInsideAction() : this.lexText()
    }
    return this.tokens
  }

  /** Scans text up to the next left delimiter; returns true when an action starts. */
  lexText(): boolean {
    const x = this.input.indexOf(LEFT, this.pos)
    if (x < 0) {
      this.pos = this.input.length
      if (this.pos > this.start) this.emit(Tok.Text)
      this.tokens.push({ type: Tok.EOF, pos: this.pos, val: '' })
      this.done = true
      return false
    }
    if (x > this.pos) {
      this.pos = x
      const trim = this.hasLeftTrimMarker(x + LEFT.length) ? rightTrimLength(this.input, this.start, x) : 0
      this.pos = x - trim
      if (this.pos > this.start) this.emit(Tok.Text)
      this.pos = x
      this.ignore()
    }
    return this.lexLeftDelim()
  }

  lexLeftDelim(): boolean {
    this.pos += LEFT.length
    const trim = this.hasLeftTrimMarker(this.pos)
    const afterMarker = trim ? 2 : 0
    if (this.input.startsWith(LEFT_COMMENT, this.pos + afterMarker)) {
      this.pos += afterMarker
      this.ignore()
      this.lexComment()
      return false
    }
    const start = this.start
    this.tokens.push({ type: Tok.LeftDelim, pos: start, val: LEFT })
    this.pos += afterMarker
    this.ignore()
    this.parenDepth = 0
    return true
  }

  lexComment(): void {
    this.pos += LEFT_COMMENT.length
    const x = this.input.indexOf(RIGHT_COMMENT, this.pos)
    if (x < 0) {
      this.error('unclosed comment')
      return
    }
    this.pos = x + RIGHT_COMMENT.length
    const { delim, trim } = this.atRightDelim()
    if (!delim) {
      this.error('comment ends before closing delimiter')
      return
    }
    if (trim) this.pos += 2
    this.pos += RIGHT.length
    if (trim) this.skipLeadingSpace()
    this.ignore()
  }

  skipLeadingSpace(): void {
    while (isSpace(this.input.charCodeAt(this.pos))) this.pos++
  }

  lexRightDelim(): void {
    const { trim } = this.atRightDelim()
    if (trim) {
      this.pos += 2
      this.ignore()
    }
    this.pos += RIGHT.length
    this.emit(Tok.RightDelim)
    if (trim) {
      this.skipLeadingSpace()
      this.ignore()
    }
  }

  /** Lexes one token inside an action; returns whether still inside the action. */
  lexInsideAction(): boolean {
    const { delim } = this.atRightDelim()
    if (delim) {
      if (this.parenDepth === 0) {
        this.lexRightDelim()
        return false
      }
      this.error('unclosed left paren')
      return false
    }
    const c = this.next()
    if (c === EOF) {
      this.error('unclosed action')
      return false
    }
    if (isSpace(c)) {
      this.backup(c)
      return this.lexSpace()
    }
    switch (c) {
      case 0x3d: // =
        this.emit(Tok.Assign)
        return true
      case 0x3a: // :
        if (this.next() !== 0x3d) {
          this.error('expected :=')
          return false
        }
        this.emit(Tok.Declare)
        return true
      case 0x7c: // |
        this.emit(Tok.Pipe)
        return true
      case 0x22: // "
        return this.lexQuote()
      case 0x60: // `
        return this.lexRawQuote()
      case 0x24: // $
        return this.lexFieldOrVariable(Tok.Variable)
      case 0x27: // '
        return this.lexChar()
      case 0x2e: {
        // ".5" is a number; anything else starting with "." is a field or the dot.
        // At the very end of input Go lexes the dot as a number (and then rejects it).
        const d = this.input.charCodeAt(this.pos)
        if (this.pos < this.input.length && !(d >= 0x30 && d <= 0x39)) return this.lexFieldOrVariable(Tok.Field)
        this.backup(c)
        return this.lexNumber()
      }
      case 0x28: // (
        this.emit(Tok.LeftParen)
        this.parenDepth++
        return true
      case 0x29: // )
        // Go's lexer replaces the paren token with the error, so only the error is seen.
        if (this.parenDepth === 0) {
          this.error('unexpected right paren')
          return false
        }
        this.emit(Tok.RightParen)
        this.parenDepth--
        return true
    }
    if (c === 0x2b || c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.backup(c)
      return this.lexNumber()
    }
    if (isAlphaNumeric(c)) {
      this.backup(c)
      return this.lexIdentifier()
    }
    if (c < 0x7f && c >= 0x20) {
      this.emit(Tok.Char)
      return true
    }
    this.error(`unrecognized character in action: ${formatRuneU(c)}`)
    return false
  }

  lexSpace(): boolean {
    let n = 0
    while (isSpace(this.peek())) {
      this.pos++
      n++
    }
    // " -}}" is a trim-marked closing delimiter, not a space followed by a minus.
    if (this.hasRightTrimMarker(this.pos - 1) && this.input.startsWith(RIGHT, this.pos + 1)) {
      this.pos--
      if (n === 1) {
        this.lexRightDelim()
        return false
      }
    }
    this.emit(Tok.Space)
    return true
  }

  lexIdentifier(): boolean {
    let c: number
    do c = this.next()
    while (isAlphaNumeric(c))
    this.backup(c)
    if (!this.atTerminator()) {
      this.error(`bad character ${formatRuneU(c)}`)
      return false
    }
    const word = this.input.slice(this.start, this.pos)
    const kw = keywords.get(word)
    if (kw !== undefined) this.emit(kw)
    else if (word === 'true' || word === 'false') this.emit(Tok.Bool)
    else this.emit(Tok.Identifier)
    return true
  }

  lexFieldOrVariable(type: Tok): boolean {
    if (this.atTerminator()) {
      this.emit(type === Tok.Variable ? Tok.Variable : Tok.Dot)
      return true
    }
    let c: number
    do c = this.next()
    while (isAlphaNumeric(c))
    this.backup(c)
    if (!this.atTerminator()) {
      this.error(`bad character ${formatRuneU(c)}`)
      return false
    }
    this.emit(type)
    return true
  }

  lexChar(): boolean {
    for (;;) {
      let c = this.next()
      if (c === 0x5c) {
        c = this.next()
        if (c !== EOF && c !== 0x0a) continue
      }
      if (c === EOF || c === 0x0a) {
        this.error('unterminated character constant')
        return false
      }
      if (c === 0x27) break
    }
    this.emit(Tok.CharConstant)
    return true
  }

  lexQuote(): boolean {
    for (;;) {
      let c = this.next()
      if (c === 0x5c) {
        c = this.next()
        if (c !== EOF && c !== 0x0a) continue
      }
      if (c === EOF || c === 0x0a) {
        this.error('unterminated quoted string')
        return false
      }
      if (c === 0x22) break
    }
    this.emit(Tok.String)
    return true
  }

  lexRawQuote(): boolean {
    const x = this.input.indexOf('`', this.pos)
    if (x < 0) {
      this.error('unterminated raw quoted string')
      return false
    }
    this.pos = x + 1
    this.emit(Tok.RawString)
    return true
  }

  lexNumber(): boolean {
    if (!this.scanNumber()) {
      this.error(`bad number syntax: ${quote(this.input.slice(this.start, this.pos))}`)
      return false
    }
    const sign = this.peek()
    if (sign === 0x2b || sign === 0x2d) {
      // A complex constant such as 1+2i: no spaces, must end in 'i'.
      if (!this.scanNumber() || this.input.charCodeAt(this.pos - 1) !== 0x69) {
        this.error(`bad number syntax: ${quote(this.input.slice(this.start, this.pos))}`)
        return false
      }
      this.emit(Tok.Complex)
      return true
    }
    this.emit(Tok.Number)
    return true
  }

  scanNumber(): boolean {
    this.accept('+-')
    let digits = '0123456789_'
    if (this.accept('0')) {
      if (this.accept('xX')) digits = '0123456789abcdefABCDEF_'
      else if (this.accept('oO')) digits = '01234567_'
      else if (this.accept('bB')) digits = '01_'
    }
    this.acceptRun(digits)
    if (this.accept('.')) this.acceptRun(digits)
    if (digits.length === 11 && this.accept('eE')) {
      this.accept('+-')
      this.acceptRun('0123456789_')
    }
    if (digits.length === 23 && this.accept('pP')) {
      this.accept('+-')
      this.acceptRun('0123456789_')
    }
    this.accept('i')
    if (isAlphaNumeric(this.peek())) {
      this.next()
      return false
    }
    return true
  }
}

export function lex(input: string): Token[] {
  return new Lexer(input).run()
}

export function isKeyword(t: Tok): boolean {
  return t >= firstKeyword
}
