// Parser for Go text/template: builds the trees of one template set (the
// top-level template plus every {{define}} and {{block}}) with Go's grammar,
// variable scoping and error messages.

import type {
  ArgNode,
  BranchNode,
  CommandNode,
  IdentifierNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  StringNode,
  TemplateNode,
  Tree,
  VariableNode,
} from './ast.ts'
import { nodeString } from './ast.ts'
import { ParseError, locate } from './errors.ts'
import { isKeyword, lex, Tok } from './lex.ts'
import type { Token } from './lex.ts'
import { maxParseDepth } from './limits.ts'
import { byteLength } from './sprig/utf8.ts'
import { parseFloat64, parseInt64, parseUint64, quote, unquote, unquoteChar } from './strconv.ts'
import type { GoFuncSpec } from './value.ts'

/** Looks a function name up in the template's function map (user functions first, then built-ins). */
export type FuncLookup = (name: string) => GoFuncSpec | undefined

interface Marker {
  readonly kind: 'end' | 'else'
  readonly pos: number
}

const markerString = (m: Marker): string => `{{${m.kind}}}`
const isMarker = (n: Node | Marker): n is Marker => n.kind === 'end' || n.kind === 'else'

// Go's unicode.IsSpace, which decides whether a tree is empty.
const reBlank = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/

function isEmptyTree(list: ListNode): boolean {
  return list.nodes.every((n) => n.kind === 'text' && reBlank.test(n.text))
}

const int64Min = -(2 ** 63)
const int64Limit = 2 ** 63
const uint64Limit = 2 ** 64

class Parser {
  readonly name: string
  readonly text: string
  readonly tokens: Token[]
  readonly last: number
  readonly funcs: FuncLookup
  readonly trees = new Map<string, Tree>()
  i = 0
  maxRead = 0
  vars: string[] = ['$']
  rangeDepth = 0
  depth = 0
  /** Offset of the {{ of the action being parsed, or -1. */
  actionPos = -1

  constructor(name: string, text: string, funcs: FuncLookup) {
    this.name = name
    this.text = text
    this.funcs = funcs
    this.tokens = lex(text)
    this.last = this.tokens.length - 1
  }

  // ---- token access ----

  token(i: number): Token {
    const t = this.tokens[Math.min(i, this.last)]
    if (t === undefined) throw new Error('empty token stream')
    return t
  }

  next(): Token {
    const t = this.token(this.i)
    if (this.i > this.maxRead) this.maxRead = Math.min(this.i, this.last)
    this.i++
    return t
  }

  backup(): void {
    this.i--
  }

  peek(): Token {
    const t = this.next()
    this.backup()
    return t
  }

  nextNonSpace(): Token {
    let t: Token
    do t = this.next()
    while (t.type === Tok.Space)
    return t
  }

  peekNonSpace(): Token {
    const t = this.nextNonSpace()
    this.backup()
    return t
  }

  // ---- errors ----

  errorf(detail: string): never {
    // Like Go, report the line of the furthest token read.
    const where = locate(this.text, this.token(this.maxRead).pos)
    let action: string | undefined
    if (this.actionPos >= 0) {
      const end = this.text.indexOf('}}', this.actionPos)
      action = end < 0 ? this.text.slice(this.actionPos) : this.text.slice(this.actionPos, end + 2)
      if (action.length > 200) action = action.slice(0, 200) + '...'
    }
    throw new ParseError({ templateName: this.name, line: where.line, column: where.column, detail, action })
  }

  unexpected(tok: Token, context: string): never {
    if (tok.type === Tok.Error) {
      let extra = ''
      if (this.actionPos >= 0) {
        const actionLine = locate(this.text, this.actionPos).line
        if (actionLine !== locate(this.text, tok.pos).line) {
          extra = ` in action started at ${this.name}:${actionLine}`
          if (tok.val.endsWith(' action')) extra = extra.slice(' in action'.length)
        }
      }
      this.errorf(tok.val + extra)
    }
    this.errorf(`unexpected ${tokenString(tok)} in ${context}`)
  }

  expect(type: Tok, context: string): Token {
    const t = this.nextNonSpace()
    if (t.type !== type) this.unexpected(t, context)
    return t
  }

  enter(): void {
    if (++this.depth > maxParseDepth) this.errorf('max expression depth exceeded')
  }

  // ---- structure ----

  parse(): Map<string, Tree> {
    const nodes: Node[] = []
    const root: ListNode = { kind: 'list', pos: this.peek().pos, nodes }
    while (this.peek().type !== Tok.EOF) {
      if (this.peek().type === Tok.LeftDelim) {
        const save = this.i
        this.next()
        if (this.nextNonSpace().type === Tok.Define) {
          this.parseDefinition()
          continue
        }
        this.i = save
      }
      const n = this.textOrAction()
      if (isMarker(n)) this.errorf(`unexpected ${markerString(n)}`)
      else nodes.push(n)
    }
    this.add(this.name, root)
    return this.trees
  }

  add(name: string, root: ListNode): void {
    const existing = this.trees.get(name)
    if (existing === undefined || isEmptyTree(existing.root)) {
      this.trees.set(name, { name, root, parseName: this.name, text: this.text })
      return
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${quote(name)}`)
  }

  /** Parses a body in a fresh variable scope, as {{define}} and {{block}} bodies are. */
  subTree(context: string): ListNode {
    const vars = this.vars
    const rangeDepth = this.rangeDepth
    this.vars = ['$']
    this.rangeDepth = 0
    const [list, end] = this.itemList()
    if (end.kind !== 'end') this.errorf(`unexpected ${markerString(end)} in ${context}`)
    this.vars = vars
    this.rangeDepth = rangeDepth
    return list
  }

  parseDefinition(): void {
    const context = 'define clause'
    const tok = this.nextNonSpace()
    if (tok.type !== Tok.String && tok.type !== Tok.RawString) this.unexpected(tok, context)
    const name = this.unquoteToken(tok)
    this.expect(Tok.RightDelim, context)
    this.add(name, this.subTree(context))
  }

  itemList(): [ListNode, Marker] {
    const nodes: Node[] = []
    const list: ListNode = { kind: 'list', pos: this.peekNonSpace().pos, nodes }
    while (this.peekNonSpace().type !== Tok.EOF) {
      const n = this.textOrAction()
      if (isMarker(n)) return [list, n]
      else nodes.push(n)
    }
    this.errorf('unexpected EOF')
  }

  textOrAction(): Node | Marker {
    const tok = this.nextNonSpace()
    if (tok.type === Tok.Text) return { kind: 'text', pos: tok.pos, text: tok.val }
    if (tok.type === Tok.LeftDelim) {
      this.actionPos = tok.pos
      const n = this.action()
      this.actionPos = -1
      return n
    }
    this.unexpected(tok, 'input')
  }

  action(): Node | Marker {
    const tok = this.nextNonSpace()
    switch (tok.type) {
      case Tok.Block:
        return this.blockControl()
      case Tok.Break:
      case Tok.Continue:
        return this.breakControl(tok)
      case Tok.Else:
        return this.elseControl()
      case Tok.End:
        return { kind: 'end', pos: this.expect(Tok.RightDelim, 'end').pos }
      case Tok.If:
        return this.control('if')
      case Tok.Range:
        return this.control('range')
      case Tok.Template:
        return this.templateControl()
      case Tok.With:
        return this.control('with')
    }
    this.backup()
    const start = this.peek()
    return { kind: 'action', pos: start.pos, pipe: this.pipeline('command', Tok.RightDelim) }
  }

  breakControl(tok: Token): Node {
    const word = tok.type === Tok.Break ? 'break' : 'continue'
    const t = this.nextNonSpace()
    if (t.type !== Tok.RightDelim) this.unexpected(t, `{{${word}}}`)
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`)
    return { kind: word, pos: tok.pos }
  }

  elseControl(): Marker {
    const peek = this.peekNonSpace()
    // "{{else if" and "{{else with" leave the keyword for control() to pick up.
    if (peek.type === Tok.If || peek.type === Tok.With) return { kind: 'else', pos: peek.pos }
    return { kind: 'else', pos: this.expect(Tok.RightDelim, 'else').pos }
  }

  control(context: 'if' | 'range' | 'with'): BranchNode {
    this.enter()
    const mark = this.vars.length
    const pipe = this.pipeline(context, Tok.RightDelim)
    if (context === 'range') this.rangeDepth++
    const [list, next] = this.itemList()
    if (context === 'range') this.rangeDepth--
    let elseList: ListNode | null = null
    if (next.kind === 'else') {
      // {{if a}}x{{else if b}}y{{end}} is {{if a}}x{{else}}{{if b}}y{{end}}{{end}};
      // the inner control consumes the single {{end}}.
      const kw = this.peek().type
      if ((context === 'if' && kw === Tok.If) || (context === 'with' && kw === Tok.With)) {
        this.next()
        elseList = { kind: 'list', pos: next.pos, nodes: [this.control(context)] }
      } else {
        const [l, end] = this.itemList()
        if (end.kind !== 'end') this.errorf(`expected end; found ${markerString(end)}`)
        elseList = l
      }
    }
    this.vars.length = mark
    this.depth--
    return { kind: context, pos: pipe.pos, pipe, list, elseList }
  }

  templateControl(): TemplateNode {
    const context = 'template clause'
    const tok = this.nextNonSpace()
    const name = this.templateName(tok, context)
    let pipe: PipeNode | null = null
    if (this.nextNonSpace().type !== Tok.RightDelim) {
      this.backup()
      pipe = this.pipeline(context, Tok.RightDelim)
    }
    return { kind: 'template', pos: tok.pos, name, pipe }
  }

  blockControl(): TemplateNode {
    const context = 'block clause'
    const tok = this.nextNonSpace()
    const name = this.templateName(tok, context)
    const pipe = this.pipeline(context, Tok.RightDelim)
    this.enter()
    this.add(name, this.subTree(context))
    this.depth--
    return { kind: 'template', pos: tok.pos, name, pipe }
  }

  templateName(tok: Token, context: string): string {
    if (tok.type !== Tok.String && tok.type !== Tok.RawString) this.unexpected(tok, context)
    return this.unquoteToken(tok)
  }

  unquoteToken(tok: Token): string {
    try {
      return unquote(tok.val)
    } catch {
      this.errorf('invalid syntax')
    }
  }

  // ---- pipelines ----

  pipeline(context: string, end: Tok): PipeNode {
    const start = this.peekNonSpace()
    const decl: VariableNode[] = []
    let isAssign = false
    for (;;) {
      const v = this.peekNonSpace()
      if (v.type !== Tok.Variable) break
      const save = this.i
      this.next()
      const nx = this.peekNonSpace()
      if (nx.type === Tok.Assign || nx.type === Tok.Declare) {
        isAssign = nx.type === Tok.Assign
        this.nextNonSpace()
        decl.push(variableNode(v.pos, [v.val]))
        this.vars.push(v.val)
      } else if (nx.type === Tok.Char && nx.val === ',') {
        this.nextNonSpace()
        decl.push(variableNode(v.pos, [v.val]))
        this.vars.push(v.val)
        if (context === 'range' && decl.length < 2) {
          const p = this.peekNonSpace().type
          if (p === Tok.Variable || p === Tok.RightDelim || p === Tok.RightParen) continue
          this.errorf('range can only initialize variables')
        }
        this.errorf(`too many declarations in ${context}`)
      } else {
        this.i = save
      }
      break
    }
    const cmds: CommandNode[] = []
    const pipe: PipeNode = { kind: 'pipe', pos: start.pos, isAssign, decl, cmds }
    for (;;) {
      const tok = this.nextNonSpace()
      if (tok.type === end) {
        this.checkPipeline(pipe, context)
        return pipe
      }
      switch (tok.type) {
        case Tok.Bool:
        case Tok.CharConstant:
        case Tok.Complex:
        case Tok.Dot:
        case Tok.Field:
        case Tok.Identifier:
        case Tok.Number:
        case Tok.Nil:
        case Tok.RawString:
        case Tok.String:
        case Tok.Variable:
        case Tok.LeftParen:
          this.backup()
          cmds.push(this.command())
          break
        default:
          this.unexpected(tok, context)
      }
    }
  }

  checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`)
    for (let i = 1; i < pipe.cmds.length; i++) {
      const first = pipe.cmds[i]?.args[0]
      switch (first?.kind) {
        case 'bool':
        case 'dot':
        case 'nil':
        case 'number':
        case 'string':
          this.errorf(`non executable command in pipeline stage ${i + 1}`)
      }
    }
  }

  command(): CommandNode {
    const args: ArgNode[] = []
    const cmd: CommandNode = { kind: 'command', pos: this.peekNonSpace().pos, args }
    for (;;) {
      this.peekNonSpace()
      const op = this.operand()
      if (op !== null) args.push(op)
      const tok = this.next()
      if (tok.type === Tok.Space) continue
      if (tok.type === Tok.RightDelim || tok.type === Tok.RightParen) this.backup()
      else if (tok.type !== Tok.Pipe) this.unexpected(tok, 'operand')
      break
    }
    if (args.length === 0) this.errorf('empty command')
    return cmd
  }

  operand(): ArgNode | null {
    const node = this.term()
    if (node === null) return null
    if (this.peek().type !== Tok.Field) return node
    const pos = this.peek().pos
    const fields: string[] = []
    while (this.peek().type === Tok.Field) fields.push(this.next().val.slice(1))
    switch (node.kind) {
      case 'field':
        return { kind: 'field', pos, ident: [...node.ident, ...fields] }
      case 'variable':
        return variableNode(pos, [...node.ident, ...fields])
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.errorf(`unexpected . after term ${quote(nodeString(node))}`)
    }
    return { kind: 'chain', pos, node, field: fields }
  }

  term(): ArgNode | null {
    const tok = this.nextNonSpace()
    switch (tok.type) {
      case Tok.Identifier: {
        const spec = this.funcs(tok.val)
        if (spec === undefined) this.errorf(`function ${quote(tok.val)} not defined`)
        const n: IdentifierNode = { kind: 'identifier', pos: tok.pos, name: tok.val, spec }
        return n
      }
      case Tok.Dot:
        return { kind: 'dot', pos: tok.pos }
      case Tok.Nil:
        return { kind: 'nil', pos: tok.pos }
      case Tok.Variable:
        if (!this.vars.includes(tok.val)) this.errorf(`undefined variable ${quote(tok.val)}`)
        return variableNode(tok.pos, [tok.val])
      case Tok.Field:
        return { kind: 'field', pos: tok.pos, ident: [tok.val.slice(1)] }
      case Tok.Bool:
        return { kind: 'bool', pos: tok.pos, value: tok.val === 'true' }
      case Tok.CharConstant:
      case Tok.Complex:
      case Tok.Number:
        return this.number(tok)
      case Tok.LeftParen: {
        this.enter()
        const p = this.pipeline('parenthesized pipeline', Tok.RightParen)
        this.depth--
        return p
      }
      case Tok.String:
      case Tok.RawString: {
        const n: StringNode = { kind: 'string', pos: tok.pos, quoted: tok.val, text: this.unquoteToken(tok) }
        return n
      }
    }
    this.backup()
    return null
  }

  number(tok: Token): NumberNode {
    const text = tok.val
    const base = { kind: 'number', pos: tok.pos, text } as const
    if (tok.type === Tok.CharConstant) {
      let r: { value: number; next: number }
      try {
        r = unquoteChar(text, 1, 0x27)
      } catch {
        this.errorf('invalid syntax')
      }
      if (text.slice(r.next) !== "'") this.errorf(`malformed character constant: ${text}`)
      return { ...base, isInt: true, isUint: true, isFloat: true, int: BigInt(r.value), uint: BigInt(r.value), float: r.value }
    }
    if (tok.type === Tok.Complex || text.endsWith('i')) {
      // The value model has no complex numbers; no Kubernetes manifest needs one.
      this.errorf(`complex number ${quote(text)} is not supported`)
    }
    const u = parseUint64(text)
    const i = parseInt64(text)
    let isUint = u !== undefined || i === 0n
    let isInt = i !== undefined
    let int = i ?? 0n
    let uint = u ?? 0n
    let isFloat = false
    let float = 0
    if (i !== undefined) {
      isFloat = true
      float = Number(i)
    } else if (u !== undefined) {
      isFloat = true
      float = Number(u)
    } else {
      const f = parseFloat64(text)
      if (f !== undefined) {
        // Integer syntax that only parses as a float is an int too large for 64 bits.
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${quote(text)}`)
        isFloat = true
        float = f
        if (Number.isInteger(f) && f >= int64Min && f < int64Limit) {
          isInt = true
          int = BigInt(f)
        }
        if (Number.isInteger(f) && f >= 0 && f < uint64Limit) {
          isUint = true
          uint = BigInt(f)
        }
      }
    }
    if (!isInt && !isUint && !isFloat) this.errorf(`illegal number syntax: ${quote(text)}`)
    return { ...base, isInt, isUint, isFloat, int, uint, float }
  }
}

function variableNode(pos: number, ident: string[]): VariableNode {
  return { kind: 'variable', pos, ident, fields: ident.slice(1) }
}

function tokenString(t: Token): string {
  if (t.type === Tok.EOF) return 'EOF'
  if (t.type === Tok.Error) return t.val
  if (isKeyword(t.type)) return `<${t.val}>`
  if (byteLength(t.val) > 10) return quote([...t.val].slice(0, 10).join('')) + '...'
  return quote(t.val)
}

/** Parses text into the trees of one template set; throws ParseError. */
export function parseTrees(name: string, text: string, funcs: FuncLookup): Map<string, Tree> {
  const p = new Parser(name, text, funcs)
  try {
    return p.parse()
  } catch (e) {
    // A safety net below maxParseDepth: report an exhausted JS stack as Go reports deep nesting.
    if (e instanceof RangeError && /call stack/i.test(e.message)) p.errorf('max expression depth exceeded')
    throw e
  }
}
