// Parse tree of a Go template. Node kinds and their fields follow
// text/template/parse; nodeString renders a node the way Go's Node.String
// does, because execution errors quote it ("executing "x" at <.a.b>: ...").

import type { GoFuncSpec } from './value.ts'
import { quote } from './strconv.ts'

export interface ListNode {
  readonly kind: 'list'
  readonly pos: number
  readonly nodes: Node[]
}

export interface TextNode {
  readonly kind: 'text'
  readonly pos: number
  readonly text: string
}

export interface ActionNode {
  readonly kind: 'action'
  readonly pos: number
  readonly pipe: PipeNode
}

export interface BranchNode {
  readonly kind: 'if' | 'range' | 'with'
  readonly pos: number
  readonly pipe: PipeNode
  readonly list: ListNode
  readonly elseList: ListNode | null
}

export interface TemplateNode {
  readonly kind: 'template'
  readonly pos: number
  readonly name: string
  readonly pipe: PipeNode | null
}

export interface BreakNode {
  readonly kind: 'break' | 'continue'
  readonly pos: number
}

export type Node = ListNode | TextNode | ActionNode | BranchNode | TemplateNode | BreakNode

export interface PipeNode {
  readonly kind: 'pipe'
  readonly pos: number
  readonly isAssign: boolean
  readonly decl: VariableNode[]
  readonly cmds: CommandNode[]
}

export interface CommandNode {
  readonly kind: 'command'
  readonly pos: number
  readonly args: ArgNode[]
}

export interface FieldNode {
  readonly kind: 'field'
  readonly pos: number
  readonly ident: readonly string[]
}

export interface VariableNode {
  readonly kind: 'variable'
  readonly pos: number
  /** ident[0] is the variable name with its $, the rest are field names. */
  readonly ident: readonly string[]
  /** ident without the variable name. */
  readonly fields: readonly string[]
}

export interface ChainNode {
  readonly kind: 'chain'
  readonly pos: number
  readonly node: ArgNode
  readonly field: readonly string[]
}

export interface IdentifierNode {
  readonly kind: 'identifier'
  readonly pos: number
  readonly name: string
  /** Resolved at parse time: Go rejects unknown functions while parsing. */
  readonly spec: GoFuncSpec
}

export interface DotNode {
  readonly kind: 'dot'
  readonly pos: number
}

export interface NilNode {
  readonly kind: 'nil'
  readonly pos: number
}

export interface BoolNode {
  readonly kind: 'bool'
  readonly pos: number
  readonly value: boolean
}

export interface NumberNode {
  readonly kind: 'number'
  readonly pos: number
  /** The literal as written. */
  readonly text: string
  readonly isInt: boolean
  readonly isUint: boolean
  readonly isFloat: boolean
  readonly int: bigint
  /** The value as a uint64 when isUint. */
  readonly uint: bigint
  readonly float: number
}

export interface StringNode {
  readonly kind: 'string'
  readonly pos: number
  /** The literal as written, quotes included. */
  readonly quoted: string
  readonly text: string
}

export type ArgNode =
  | FieldNode
  | VariableNode
  | ChainNode
  | IdentifierNode
  | PipeNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode

export type AnyNode = Node | ArgNode | CommandNode

export interface Tree {
  readonly name: string
  readonly root: ListNode
  /** Name given to parse(); error locations use it for every tree of the set. */
  readonly parseName: string
  /** The whole source; node positions index into it. */
  readonly text: string
}

function pipeString(p: PipeNode): string {
  let s = ''
  if (p.decl.length > 0) {
    s = p.decl.map((v) => v.ident.join('.')).join(', ') + (p.isAssign ? ' = ' : ' := ')
  }
  return s + p.cmds.map(commandString).join(' | ')
}

function commandString(c: CommandNode): string {
  return c.args.map((a) => (a.kind === 'pipe' ? '(' + pipeString(a) + ')' : nodeString(a))).join(' ')
}

function listString(l: ListNode): string {
  return l.nodes.map(nodeString).join('')
}

/** Go's Node.String(). */
export function nodeString(n: AnyNode): string {
  switch (n.kind) {
    case 'list':
      return listString(n)
    case 'text':
      return n.text
    case 'action':
      return '{{' + pipeString(n.pipe) + '}}'
    case 'if':
    case 'range':
    case 'with':
      return (
        `{{${n.kind} ${pipeString(n.pipe)}}}${listString(n.list)}` +
        (n.elseList !== null ? `{{else}}${listString(n.elseList)}` : '') +
        '{{end}}'
      )
    case 'template':
      return n.pipe === null ? `{{template ${quote(n.name)}}}` : `{{template ${quote(n.name)} ${pipeString(n.pipe)}}}`
    case 'break':
    case 'continue':
      return `{{${n.kind}}}`
    case 'pipe':
      return pipeString(n)
    case 'command':
      return commandString(n)
    case 'field':
      return '.' + n.ident.join('.')
    case 'variable':
      return n.ident.join('.')
    case 'chain':
      return (n.node.kind === 'pipe' ? '(' + pipeString(n.node) + ')' : nodeString(n.node)) + n.field.map((f) => '.' + f).join('')
    case 'identifier':
      return n.name
    case 'dot':
      return '.'
    case 'nil':
      return 'nil'
    case 'bool':
      return n.value ? 'true' : 'false'
    case 'number':
      return n.text
    case 'string':
      return n.quoted
  }
}
