// Executor: walks the parse trees with Go's evaluation rules. Where Go's
// reflection decides a behaviour, the rule is restated on the value model:
//
// - null is a nil interface{} (from a map or list); when a pipeline ends on
//   it, Go digs into the interface and finds no value, so it prints
//   <no value>, while print/printf receive it as <nil>.
// - undefined is "no value" (reflect's invalid Value).
// - Values read out of a map or list have the static type interface {}; Go's
//   error messages name that type instead of the dynamic one, so the
//   executor tracks that bit for the dot and for variables.
//
// The current node (`this.node`) is updated at the same evaluation steps as
// Go's state.at(), because error messages name it.

import type {
  ActionNode,
  AnyNode,
  ArgNode,
  BranchNode,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  Node,
  NumberNode,
  PipeNode,
  TemplateNode,
  Tree,
  VariableNode,
} from './ast.ts'
import { nodeString } from './ast.ts'
import { andSpec, callSpec, orSpec, sliceOf, sliceSpec } from './builtins.ts'
import { isTrue } from './compare.ts'
import { ExecError, locate } from './errors.ts'
import type { ExecErrorCode } from './errors.ts'
import { formatValue } from './fmt.ts'
import type { ExecLimits } from './limits.ts'
import { goTypeOf } from './sprig/types.ts'
import { compareGoStrings } from './sprig/utf8.ts'
import { quote } from './strconv.ts'
import { fieldOf, methodOf } from './methods.ts'
import { asUnnamedMap, nilSlice, underlyingTypeOf } from './sprig/types.ts'
import { GoFuncError, GoInt, GoTime, goInt, isMap, isUnsignedKind, wrapInt } from './value.ts'
import type { ArgKind, GoFuncSpec, GoMap, GoValue, IntKind } from './value.ts'

/** What a missing map key yields: Go's Option("missingkey=...") values. */
export type MissingKey = 'error' | 'default' | 'zero'

export interface ExecSet {
  readonly name: string
  readonly trees: ReadonlyMap<string, Tree>
  /** The tree to run as `name` when the set holds another one by that name (see ExecuteOptions.root). */
  readonly root?: Tree
}

// Marks "no piped value", which differs from a piped value that is undefined.
const MISSING: unique symbol = Symbol('missing')
type Final = GoValue | typeof MISSING

// walk() results: how control leaves a list.
const NEXT = 0
const BREAK = 1
const CONTINUE = 2
type Flow = typeof NEXT | typeof BREAK | typeof CONTINUE

interface Variable {
  readonly name: string
  value: GoValue
  /** Whether the value's static Go type is interface {} (read from a container). */
  iface: boolean
}

interface Frame {
  readonly tree: Tree
  readonly vars: Variable[]
  readonly depth: number
}

/** Thrown inside the executor; carries the node that was current. */
class Failure {
  readonly detail: string
  readonly code: ExecErrorCode
  readonly cause: unknown
  constructor(detail: string, code: ExecErrorCode, cause?: unknown) {
    this.detail = detail
    this.code = code
    this.cause = cause
  }
}

const kindTypeNames: Readonly<Record<string, string>> = {
  any: 'interface {}',
  value: 'reflect.Value',
  float64: 'float64',
  duration: 'time.Duration',
  time: 'time.Time',
  list: '[]interface {}',
  map: 'map[string]interface {}',
  strings: '[]string',
  bytes: '[]uint8',
}

/** Go's name of a parameter type. */
const kindTypeName = (k: ArgKind): string => kindTypeNames[k] ?? (k.startsWith('type:') ? k.slice(5) : k)

const intKinds: ReadonlySet<string> = new Set<IntKind>([
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uintptr',
])

const isIntKind = (k: ArgKind): k is IntKind => intKinds.has(k)

const canBeNil = (k: ArgKind): boolean =>
  k === 'any' ||
  k === 'value' ||
  k === 'list' ||
  k === 'map' ||
  k === 'strings' ||
  k === 'bytes' ||
  (k.startsWith('type:') && (k[5] === '*' || k.startsWith('type:[]') || k.startsWith('type:map[')))

/** Go's type name of a value as seen through an interface{}: a nil interface is "interface {}". */
const dynamicType = (v: GoValue): string => (v === null || v === undefined ? 'interface {}' : goTypeOf(v))

/** Elements of []interface{} and map[string]interface{} have the static type interface {}. */
function elemIsIface(container: GoValue): boolean {
  const t = goTypeOf(container)
  return t === '[]interface {}' || t === 'map[string]interface {}' || underlyingTypeOf(container) === 'map[string]interface {}'
}

const isHexInt = (s: string): boolean => s.length > 2 && s[0] === '0' && (s[1] === 'x' || s[1] === 'X') && !/[pP]/.test(s)

export class Executor {
  readonly set: ExecSet
  readonly limits: ExecLimits
  readonly missingKey: MissingKey
  readonly chunks: string[] = []
  /** Output size in UTF-16 units, then in UTF-8 bytes once near the limit. */
  size = 0
  exact = false
  iterations = 0
  calls = 0
  node: AnyNode | null = null
  frame: Frame | null = null
  /** Whether the last evaluated argument had the static type interface {} (see sliceOf). */
  lastIface = false

  constructor(set: ExecSet, limits: ExecLimits, missingKey: MissingKey) {
    this.set = set
    this.limits = limits
    this.missingKey = missingKey
  }

  run(data: GoValue): string {
    const tree = this.set.root ?? this.set.trees.get(this.set.name)
    if (tree === undefined) {
      throw new ExecError({
        code: 'TEMPLATE_EXEC',
        templateName: this.set.name,
        executing: this.set.name,
        line: 0,
        column: 0,
        action: undefined,
        detail: `${quote(this.set.name)} is an incomplete or empty template`,
      })
    }
    // Execute(nil) has no value as dot, like reflect.ValueOf(nil).
    const dot = data === null ? undefined : data
    const frame: Frame = { tree, vars: [{ name: '$', value: dot, iface: false }], depth: 0 }
    try {
      this.walk(frame, dot, false, tree.root)
    } catch (e) {
      throw this.toExecError(e)
    }
    return this.chunks.join('')
  }

  toExecError(e: unknown): unknown {
    let f: Failure
    if (e instanceof Failure) f = e
    else if (e instanceof RangeError && /call stack/i.test(e.message)) {
      // Deeply nested data or templates exhausted the JS stack.
      f = new Failure('template or data nested too deeply', 'TEMPLATE_DEPTH_LIMIT', e)
    } else return e
    const frame = this.frame
    const node = this.node
    const tree = frame?.tree
    if (node === null || tree === undefined) {
      return new ExecError({
        code: f.code,
        templateName: this.set.name,
        executing: tree?.name ?? this.set.name,
        line: 0,
        column: 0,
        action: undefined,
        detail: f.detail,
        cause: f.cause,
      })
    }
    const { line, column } = locate(tree.text, node.pos)
    let action = nodeString(node)
    // Only the output limit can fail on plain text; a long text is cut for the message.
    if (node.kind === 'text' && action.length > 40) action = action.slice(0, 40) + '...'
    return new ExecError({
      code: f.code,
      templateName: tree.parseName,
      executing: tree.name,
      line,
      column,
      action,
      detail: f.detail,
      cause: f.cause,
    })
  }

  checkDeadline(): void {
    const deadline = this.limits.deadline
    if (deadline !== undefined && performance.now() > deadline) this.fail('execution exceeded its time limit', 'TEMPLATE_TIME_LIMIT')
  }

  fail(detail: string, code: ExecErrorCode = 'TEMPLATE_EXEC', cause?: unknown): never {
    throw new Failure(detail, code, cause)
  }

  // ---- output ----

  write(s: string): void {
    this.chunks.push(s)
    const max = this.limits.maxOutputBytes
    if (!this.exact) {
      this.size += s.length
      // Each UTF-16 unit is at most 3 UTF-8 bytes: count exactly only near the limit.
      if (this.size * 3 <= max) return
      this.exact = true
      this.size = 0
      for (const c of this.chunks) this.size += Buffer.byteLength(c, 'utf8')
    } else this.size += Buffer.byteLength(s, 'utf8')
    if (this.size > max) this.fail(`output exceeds the limit of ${max} bytes`, 'TEMPLATE_OUTPUT_LIMIT')
  }

  printValue(node: ActionNode, v: GoValue): void {
    this.node = node
    if (typeof v === 'string') this.write(v)
    else this.write(v === undefined || v === null ? '<no value>' : formatValue(v))
  }

  // ---- statements ----

  walk(f: Frame, dot: GoValue, dotIface: boolean, node: Node): Flow {
    this.frame = f
    this.node = node
    switch (node.kind) {
      case 'text':
        this.write(node.text)
        return NEXT
      case 'list': {
        const nodes = node.nodes
        for (let i = 0; i < nodes.length; i++) {
          const n = nodes[i] as Node
          const flow = this.walk(f, dot, dotIface, n)
          if (flow !== NEXT) return flow
        }
        return NEXT
      }
      case 'action': {
        // Declarations persist until the enclosing {{end}}; a declaring action prints nothing.
        const v = this.evalPipeline(f, dot, dotIface, node.pipe)
        if (node.pipe.decl.length === 0) this.printValue(node, v)
        return NEXT
      }
      case 'if':
      case 'with':
        return this.walkIfOrWith(f, dot, dotIface, node)
      case 'range':
        return this.walkRange(f, dot, dotIface, node)
      case 'template':
        return this.walkTemplate(f, dot, dotIface, node)
      case 'break':
        return BREAK
      case 'continue':
        return CONTINUE
    }
  }

  walkIfOrWith(f: Frame, dot: GoValue, dotIface: boolean, node: BranchNode): Flow {
    const mark = f.vars.length
    const val = this.evalPipeline(f, dot, dotIface, node.pipe)
    let flow: Flow = NEXT
    if (isTrue(val)) {
      flow = node.kind === 'with' ? this.walk(f, val, false, node.list) : this.walk(f, dot, dotIface, node.list)
    } else if (node.elseList !== null) {
      flow = this.walk(f, dot, dotIface, node.elseList)
    }
    f.vars.length = mark
    return flow
  }

  walkRange(f: Frame, dot: GoValue, dotIface: boolean, r: BranchNode): Flow {
    this.node = r
    const mark = f.vars.length
    const val = this.evalPipeline(f, dot, dotIface, r.pipe)
    const body = f.vars.length
    const decl = r.pipe.decl
    const assign = r.pipe.isAssign
    const max = this.limits.maxRangeIterations
    const one = (index: GoValue, elem: GoValue, elemIface: boolean): Flow => {
      if (++this.iterations > max) {
        this.node = r.pipe
        this.fail(`range loops exceeded the limit of ${max} iterations`, 'TEMPLATE_RANGE_LIMIT')
      }
      if ((this.iterations & 1023) === 0) this.checkDeadline()
      if (decl.length > 0) {
        const first = decl[0] as VariableNode
        if (assign) this.setVar(f, first.ident[0] ?? '', decl.length > 1 ? index : elem, decl.length > 1 ? false : elemIface)
        else this.setTopVar(f, 1, elem, elemIface)
      }
      if (decl.length > 1) {
        const second = decl[1] as VariableNode
        if (assign) this.setVar(f, second.ident[0] ?? '', elem, elemIface)
        else this.setTopVar(f, 2, index, false)
      }
      const flow = this.walk(f, elem, elemIface, r.list)
      f.vars.length = body
      return flow
    }
    let ran = false
    if (Array.isArray(val)) {
      const list = val as readonly GoValue[]
      const iface = elemIsIface(list)
      for (let i = 0; i < list.length; i++) {
        ran = true
        if (one(BigInt(i), list[i] ?? null, iface) === BREAK) break
      }
    } else if (isMap(val)) {
      const iface = elemIsIface(val)
      const keys = Object.keys(val).sort(compareGoStrings)
      for (const k of keys) {
        ran = true
        if (one(k, (val as GoMap)[k] ?? null, iface) === BREAK) break
      }
    } else if (typeof val === 'bigint') {
      if (decl.length > 1) this.fail(`can't use ${val} to iterate over more than one variable`)
      for (let i = 0n; i < val; i++) {
        ran = true
        if (one(undefined, i, false) === BREAK) break
      }
    } else if (val instanceof GoInt) {
      // Go 1.22 ranges over any integer type; the elements have that type.
      if (decl.length > 1) this.fail(`can't use ${formatValue(val)} to iterate over more than one variable`)
      for (let i = 0n; i < val.value; i++) {
        ran = true
        if (one(undefined, goInt(i, val.kind, val.type), false) === BREAK) break
      }
    } else if (val !== undefined) {
      this.fail(`range can't iterate over ${formatValue(val)}`)
    }
    let flow: Flow = NEXT
    if (!ran && r.elseList !== null) {
      flow = this.walk(f, dot, dotIface, r.elseList)
      // Go's range recovers every {{break}} raised under it, its else branch included.
      if (flow === BREAK) flow = NEXT
    }
    f.vars.length = mark
    return flow
  }

  walkTemplate(f: Frame, dot: GoValue, dotIface: boolean, t: TemplateNode): Flow {
    this.node = t
    const tree = this.set.trees.get(t.name)
    if (tree === undefined) this.fail(`template ${quote(t.name)} not defined`)
    const maxDepth = this.limits.maxTemplateDepth
    if (f.depth >= maxDepth) this.fail(`exceeded maximum template depth (${maxDepth})`, 'TEMPLATE_DEPTH_LIMIT')
    this.checkDeadline()
    if (++this.calls > this.limits.maxTemplateCalls) {
      this.fail(`template calls exceeded the limit of ${this.limits.maxTemplateCalls}`, 'TEMPLATE_CALL_LIMIT')
    }
    const newDot = t.pipe === null ? undefined : this.evalPipeline(f, dot, dotIface, t.pipe)
    // No dynamic scoping: the called template sees only $ (its dot).
    const inner: Frame = { tree, vars: [{ name: '$', value: newDot, iface: false }], depth: f.depth + 1 }
    this.walk(inner, newDot, false, tree.root)
    this.frame = f
    return NEXT
  }

  // ---- variables ----

  setVar(f: Frame, name: string, value: GoValue, iface: boolean): void {
    for (let i = f.vars.length - 1; i >= 0; i--) {
      const v = f.vars[i] as Variable
      if (v.name === name) {
        v.value = value
        v.iface = iface
        return
      }
    }
    this.fail(`undefined variable: ${name}`)
  }

  setTopVar(f: Frame, n: number, value: GoValue, iface: boolean): void {
    const v = f.vars[f.vars.length - n] as Variable
    v.value = value
    v.iface = iface
  }

  lookupVar(f: Frame, name: string): Variable {
    for (let i = f.vars.length - 1; i >= 0; i--) {
      const v = f.vars[i] as Variable
      if (v.name === name) return v
    }
    return this.fail(`undefined variable: ${name}`)
  }

  // ---- expressions ----

  evalPipeline(f: Frame, dot: GoValue, dotIface: boolean, pipe: PipeNode): GoValue {
    this.node = pipe
    let value: Final = MISSING
    const cmds = pipe.cmds
    for (let i = 0; i < cmds.length; i++) {
      let v = this.evalCommand(f, dot, dotIface, cmds[i] as CommandNode, value)
      // A nil interface{} result holds no value once the pipeline digs into it.
      if (v === null) v = undefined
      value = v
    }
    const result = value === MISSING ? undefined : value
    for (const d of pipe.decl) {
      const name = d.ident[0] ?? ''
      if (pipe.isAssign) this.setVar(f, name, result, false)
      else f.vars.push({ name, value: result, iface: false })
    }
    return result
  }

  notAFunction(args: readonly ArgNode[] | null, final: Final): void {
    if ((args !== null && args.length > 1) || final !== MISSING) {
      const first = args?.[0]
      this.fail(`can't give argument to non-function ${first === undefined ? '' : nodeString(first)}`)
    }
  }

  evalCommand(f: Frame, dot: GoValue, dotIface: boolean, cmd: CommandNode, final: Final): GoValue {
    const first = cmd.args[0] as ArgNode
    switch (first.kind) {
      case 'field':
        return this.evalFieldNode(f, dot, dotIface, first, cmd.args, final)
      case 'chain':
        return this.evalChainNode(f, dot, dotIface, first, cmd.args, final)
      case 'identifier':
        return this.evalFunction(f, dot, dotIface, first, cmd, cmd.args, final)
      case 'pipe':
        this.notAFunction(cmd.args, final)
        return this.evalPipeline(f, dot, dotIface, first)
      case 'variable':
        return this.evalVariableNode(f, dot, dotIface, first, cmd.args, final)
    }
    this.node = first
    this.notAFunction(cmd.args, final)
    switch (first.kind) {
      case 'bool':
        return first.value
      case 'dot':
        return dot
      case 'nil':
        return this.fail('nil is not a command')
      case 'number':
        return this.idealConstant(first)
      case 'string':
        return first.text
    }
  }

  /** A number literal where no parameter type guides it: int unless written as a float. */
  idealConstant(n: NumberNode): GoValue {
    this.node = n
    if (n.isFloat && !isHexInt(n.text) && n.text[0] !== "'" && /[.eEpP]/.test(n.text)) return n.float
    if (n.isInt) return n.int
    if (n.isUint) this.fail(`${n.text} overflows int`)
    return undefined
  }

  evalFieldNode(f: Frame, dot: GoValue, dotIface: boolean, field: FieldNode, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.node = field
    return this.evalFieldChain(f, dot, dotIface, dot, dotIface, field, field.ident, args, final)
  }

  evalVariableNode(f: Frame, dot: GoValue, dotIface: boolean, node: VariableNode, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.node = node
    const v = this.lookupVar(f, node.ident[0] ?? '')
    if (node.fields.length === 0) {
      this.notAFunction(args, final)
      this.lastIface = v.iface
      return v.value
    }
    return this.evalFieldChain(f, dot, dotIface, v.value, v.iface, node, node.fields, args, final)
  }

  evalChainNode(f: Frame, dot: GoValue, dotIface: boolean, chain: ChainNode, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.node = chain
    if (chain.node.kind === 'nil') this.fail(`indirection through explicit nil in ${nodeString(chain)}`)
    let v: GoValue
    if (chain.node.kind === 'pipe') v = this.evalPipeline(f, dot, dotIface, chain.node)
    else if (chain.node.kind === 'identifier') v = this.evalFunction(f, dot, dotIface, chain.node, chain.node, null, MISSING)
    else v = this.evalArg(f, dot, dotIface, 'any', chain.node)
    return this.evalFieldChain(f, dot, dotIface, v, false, chain, chain.field, args, final)
  }

  evalFieldChain(
    f: Frame,
    dot: GoValue,
    dotIface: boolean,
    receiver: GoValue,
    iface: boolean,
    node: AnyNode,
    ident: readonly string[],
    args: readonly ArgNode[] | null,
    final: Final,
  ): GoValue {
    const n = ident.length
    for (let i = 0; i < n - 1; i++) {
      const container = receiver
      receiver = this.evalField(f, dot, dotIface, node, ident[i] ?? '', null, MISSING, receiver, iface)
      iface = elemIsIface(container)
    }
    const v = this.evalField(f, dot, dotIface, node, ident[n - 1] ?? '', args, final, receiver, iface)
    // A missing key (missingkey=default) is no value at all, not an interface {}.
    this.lastIface = v !== undefined && elemIsIface(receiver)
    return v
  }

  evalField(
    f: Frame,
    dot: GoValue,
    dotIface: boolean,
    node: AnyNode,
    name: string,
    args: readonly ArgNode[] | null,
    final: Final,
    receiver: GoValue,
    iface: boolean,
  ): GoValue {
    if (receiver === undefined) {
      if (this.missingKey === 'error') this.fail(`nil data; no entry for key ${quote(name)}`)
      return undefined
    }
    if (receiver === null) this.fail(`nil pointer evaluating interface {}.${name}`)
    const type = goTypeOf(receiver)
    if (!isMap(receiver)) {
      // Go looks for a method first, then for a struct field.
      const method = methodOf(receiver, name)
      if (method !== undefined) return this.evalCall(f, dot, dotIface, method, name, node, args, final)
      const hasArgs = (args !== null && args.length > 1) || final !== MISSING
      const shown = iface ? 'interface {}' : type
      const field = fieldOf(receiver, name)
      if (field === 'unexported') this.fail(`${name} is an unexported field of struct type ${shown}`)
      if (field !== undefined) {
        if (hasArgs) this.fail(`${name} has arguments but cannot be invoked as function`)
        return field.value
      }
      return this.fail(`can't evaluate field ${name} in type ${shown}`)
    }
    // A named map type's methods come before its keys.
    const mapMethod = methodOf(receiver, name)
    if (mapMethod !== undefined) return this.evalCall(f, dot, dotIface, mapMethod, name, node, args, final)
    if ((args !== null && args.length > 1) || final !== MISSING) this.fail(`${name} is not a method but has arguments`)
    // Own keys only: "constructor" or "__proto__" are data, never JS properties.
    if (Object.hasOwn(receiver, name)) return receiver[name]
    switch (this.missingKey) {
      case 'error':
        return this.fail(`map has no entry for key ${quote(name)}`)
      case 'zero':
        return type === 'map[string]string' ? '' : null
      default:
        return undefined
    }
  }

  evalFunction(
    f: Frame,
    dot: GoValue,
    dotIface: boolean,
    node: IdentifierNode,
    cmd: AnyNode,
    args: readonly ArgNode[] | null,
    final: Final,
  ): GoValue {
    this.node = node
    return this.evalCall(f, dot, dotIface, node.spec, node.name, cmd, args, final)
  }

  evalCall(
    f: Frame,
    dot: GoValue,
    dotIface: boolean,
    spec: GoFuncSpec,
    name: string,
    node: AnyNode,
    args: readonly ArgNode[] | null,
    final: Final,
  ): GoValue {
    // args[0] is the function name itself.
    const nArgs = args === null ? 0 : args.length - 1
    const hasFinal = final !== MISSING
    const numIn = nArgs + (hasFinal ? 1 : 0)
    const params = spec.params
    const variadic = spec.variadic
    if (variadic !== undefined) {
      if (numIn < params.length) this.fail(`wrong number of args for ${name}: want at least ${params.length} got ${nArgs}`)
    } else if (numIn !== params.length) {
      this.fail(`wrong number of args for ${name}: want ${params.length} got ${numIn}`)
    }
    if (spec.unsupported !== undefined) this.fail(spec.unsupported)

    if (spec === andSpec || spec === orSpec) {
      // Short circuit: stop at the first argument that decides the result.
      const isOr = spec === orSpec
      let v: GoValue
      for (let i = 1; i <= nArgs; i++) {
        v = this.evalArg(f, dot, dotIface, 'value', (args as readonly ArgNode[])[i] as ArgNode)
        if (isTrue(v) === isOr) return v
      }
      if (hasFinal) v = this.validateType(final, 'value')
      return v
    }

    const argv: GoValue[] = []
    const ifaces: boolean[] = []
    const numFixed = variadic !== undefined ? params.length : nArgs
    let i = 0
    for (; i < numFixed && i < nArgs; i++) {
      argv.push(this.evalArg(f, dot, dotIface, params[i] as ArgKind, (args as readonly ArgNode[])[i + 1] as ArgNode))
      ifaces.push(this.lastIface)
    }
    if (variadic !== undefined) {
      for (; i < nArgs; i++) {
        argv.push(this.evalArg(f, dot, dotIface, variadic, (args as readonly ArgNode[])[i + 1] as ArgNode))
        ifaces.push(this.lastIface)
      }
    }
    if (hasFinal) {
      let kind: ArgKind
      if (variadic === undefined) kind = params[params.length - 1] as ArgKind
      else kind = numIn - 1 < params.length ? (params[numIn - 1] as ArgKind) : variadic
      argv.push(this.validateType(final, kind))
    }

    if (spec === callSpec) {
      const fn = argv[0]
      this.node = node
      if (fn === null || fn === undefined) this.fail(`error calling call: call of nil`)
      const first = args !== null && args.length > 1 ? args[1] : undefined
      const callee = first !== undefined ? nodeString(first) : typeof final === 'string' ? final : `<${dynamicType(fn)} Value>`
      this.fail(`error calling call: non-function ${callee} of type ${goTypeOf(fn)}`)
    }

    let result: GoValue
    try {
      result = spec === sliceSpec ? sliceOf(argv[0], argv.slice(1), ifaces.slice(1)) : spec.fn(...argv)
    } catch (e) {
      this.node = node
      if (e instanceof Failure) throw e
      const message = e instanceof Error ? e.message : String(e)
      if (!(e instanceof GoFuncError) && e instanceof RangeError && /call stack/i.test(message)) {
        this.fail(`error calling ${name}: value nested too deeply`, 'TEMPLATE_DEPTH_LIMIT', e)
      }
      this.fail(`error calling ${name}: ${message}`, 'TEMPLATE_EXEC', e)
    }
    if (
      typeof result === 'string' &&
      result.length > this.limits.maxOutputBytes / 3 &&
      Buffer.byteLength(result) > this.limits.maxOutputBytes
    ) {
      this.node = node
      this.fail(`error calling ${name}: result exceeds the limit of ${this.limits.maxOutputBytes} bytes`, 'TEMPLATE_OUTPUT_LIMIT')
    }
    return result
  }

  /** An argument for a parameter of the given kind (Go's evalArg). */
  evalArg(f: Frame, dot: GoValue, dotIface: boolean, kind: ArgKind, n: ArgNode): GoValue {
    this.node = n
    const v = this.evalArgValue(f, dot, dotIface, kind, n)
    if (n.kind === 'dot') this.lastIface = dotIface
    else if (n.kind !== 'field' && n.kind !== 'variable' && n.kind !== 'chain') this.lastIface = false
    return v
  }

  evalArgValue(f: Frame, dot: GoValue, dotIface: boolean, kind: ArgKind, n: ArgNode): GoValue {
    switch (n.kind) {
      case 'dot':
        return this.validateType(dot, kind)
      case 'nil':
        if (canBeNil(kind)) return kind === 'value' ? undefined : kind === 'bytes' ? nilSlice('[]uint8') : null
        return this.fail(`cannot assign nil to ${kindTypeName(kind)}`)
      case 'field':
        return this.validateType(this.evalFieldNode(f, dot, dotIface, n, [n], MISSING), kind)
      case 'variable':
        return this.validateType(this.evalVariableNode(f, dot, dotIface, n, null, MISSING), kind)
      case 'pipe':
        return this.validateType(this.evalPipeline(f, dot, dotIface, n), kind)
      case 'identifier':
        return this.validateType(this.evalFunction(f, dot, dotIface, n, n, null, MISSING), kind)
      case 'chain':
        return this.validateType(this.evalChainNode(f, dot, dotIface, n, null, MISSING), kind)
    }
    // A literal: converted to the parameter type as a Go constant would be.
    if (isIntKind(kind)) {
      if (isUnsignedKind(kind)) {
        if (n.kind === 'number' && n.isUint) return wrapInt(n.uint, kind)
        return this.fail(`expected unsigned integer; found ${nodeString(n)}`)
      }
      if (n.kind === 'number' && n.isInt) return wrapInt(n.int, kind)
      return this.fail(`expected integer; found ${nodeString(n)}`)
    }
    switch (kind) {
      case 'bool':
        if (n.kind === 'bool') return n.value
        return this.fail(`expected bool; found ${nodeString(n)}`)
      case 'float64':
        if (n.kind === 'number' && n.isFloat) return n.float
        return this.fail(`expected float; found ${nodeString(n)}`)
      case 'duration':
        if (n.kind === 'number' && n.isInt) return n.int
        return this.fail(`expected integer; found ${nodeString(n)}`)
      case 'string':
        if (n.kind === 'string') return n.text
        return this.fail(`expected string; found ${nodeString(n)}`)
      case 'any':
      case 'value':
        if (n.kind === 'bool') return n.value
        if (n.kind === 'string') return n.text
        return this.idealConstant(n)
    }
    return this.fail(`can't handle ${nodeString(n)} for arg of type ${kindTypeName(kind)}`)
  }

  /**
   * Checks an evaluated value against a parameter kind (Go's validateType).
   * Integer kinds other than int and durations arrive as their bigint value.
   */
  validateType(value: Final, kind: ArgKind): GoValue {
    if (value === MISSING || value === undefined) {
      if (kind === 'value') return undefined
      if (kind === 'bytes') return nilSlice('[]uint8')
      if (canBeNil(kind)) return null
      return this.fail(`invalid value; expected ${kindTypeName(kind)}`)
    }
    switch (kind) {
      case 'any':
      case 'value':
        return value
      case 'string':
        if (typeof value === 'string') return value
        break
      case 'int':
        if (typeof value === 'bigint') return value
        break
      case 'float64':
        if (typeof value === 'number') return value
        break
      case 'bool':
        if (typeof value === 'boolean') return value
        break
      case 'duration':
        if (value instanceof GoInt && value.type === 'time.Duration') return value.value
        break
      case 'time':
        if (value instanceof GoTime) return value
        break
      case 'list':
        if (Array.isArray(value) && goTypeOf(value) === '[]interface {}') return value
        break
      case 'map':
        // A named type on map[string]interface{} (type Values map[string]interface{}) is assignable too.
        if (isMap(value) && underlyingTypeOf(value) === 'map[string]interface {}') return asUnnamedMap(value)
        break
      case 'strings':
        if (Array.isArray(value) && goTypeOf(value) === '[]string') return value
        break
      case 'bytes':
        if (Array.isArray(value) && goTypeOf(value) === '[]uint8') return value
        break
      default:
        if (isIntKind(kind)) {
          if (value instanceof GoInt && value.type === kind) return value.value
        } else if (value !== null && goTypeOf(value) === kind.slice(5)) return value
    }
    return this.fail(`wrong type for value; expected ${kindTypeName(kind)}; got ${dynamicType(value)}`)
  }
}

export function executeSet(set: ExecSet, data: GoValue, limits: ExecLimits, missingKey: MissingKey): string {
  return new Executor(set, limits, missingKey).run(data)
}
