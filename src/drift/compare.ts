// The one drift comparison, shared by the webhook, the reconciler and the diff
// command. It walks both objects and the compiled ignore trie together:
//
// - an equal subtree costs a walk and no allocation; strings for a path are
//   built only when a change is recorded;
// - a change is reported at the deepest node that differs: an added or removed
//   map or array is one change, not one per leaf;
// - arrays are compared position by position; a length change is a change of
//   the array itself, reported even when every element is ignored;
// - a property whose value is undefined counts as absent (JSON has no
//   undefined); null is a value, so null versus absent is a change;
// - order is document order: `before`'s keys first, then keys only `after` has;
// - integers beyond 2^53 may arrive as BigInt (the webhook parses such bodies
//   losslessly); `===` compares them by value like every other primitive.

import type { CompiledIgnore } from '../fieldpath/compile.ts'
import { formatPath } from '../fieldpath/format.ts'
import { toPointer } from '../fieldpath/pointer.ts'
import { buildTrie, PLAIN, type TrieNode } from '../fieldpath/trie.ts'
import type { PathStep } from '../fieldpath/types.ts'
import { SERVER_MANAGED_RULES } from './server-managed.ts'
import type { Change, ChangeKind } from './types.ts'

type Obj = Record<string, unknown>

interface Walk {
  readonly steps: PathStep[]
  readonly changes: Change[]
  /** Stop once this many changes are recorded. */
  readonly max: number
}

export interface CompareOptions {
  /**
   * Stop walking once this many changes are recorded. A judge that only needs
   * to know whether something changed, and a few paths to show, must not pay
   * for every difference of two huge objects that differ everywhere.
   */
  readonly maxChanges?: number
}

// Thrown by record() when the walk has enough; one shared instance, so no stack is captured.
const ENOUGH = new Error('compare: change limit reached')

// The user's rules plus the server-managed fields, built once per CompiledIgnore.
const tries = new WeakMap<CompiledIgnore, TrieNode>()

function trieFor(ignore: CompiledIgnore): TrieNode {
  let root = tries.get(ignore)
  if (root === undefined) {
    root = buildTrie([...ignore.rules, ...SERVER_MANAGED_RULES])
    tries.set(ignore, root)
  }
  return root
}

/**
 * The changes from `before` to `after` outside `ignore` and the server-managed
 * fields; with `maxChanges`, the first that many in document order.
 */
export function compare(before: unknown, after: unknown, ignore: CompiledIgnore, options?: CompareOptions): Change[] {
  const max = options?.maxChanges ?? Number.POSITIVE_INFINITY
  if (max <= 0) throw new RangeError(`compare: maxChanges must be at least 1, got ${max}`)
  const walk: Walk = { steps: [], changes: [], max }
  try {
    walkRuled(before, after, trieFor(ignore), walk)
  } catch (err) {
    if (err !== ENOUGH) throw err
  }
  return walk.changes
}

function record(walk: Walk, kind: ChangeKind): void {
  walk.changes.push({ pointer: toPointer(walk.steps), path: formatPath(walk.steps), kind })
  // The limit is checked here, where a change is rare, instead of in every loop of the walk.
  if (walk.changes.length >= walk.max) throw ENOUGH
}

/** The own value of a key, or undefined; inherited members such as "constructor" never count. */
function own(o: Obj, k: string): unknown {
  const v = o[k]
  // What plain objects inherit is a function, or Object.prototype itself for "__proto__".
  // A JSON value is neither, so only those two cases pay for the own-property check.
  if (v === undefined || (typeof v !== 'function' && v !== Object.prototype)) return v
  return Object.hasOwn(o, k) ? v : undefined
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Values that are not both maps or both arrays (and not identical): a change of this node, or two NaNs. */
function recordLeaf(a: unknown, b: unknown, walk: Walk): void {
  if (a === undefined) return record(walk, 'added')
  if (b === undefined) return record(walk, 'removed')
  if (Number.isNaN(a) && Number.isNaN(b)) return
  record(walk, 'changed')
}

/** No rules below: compare everything. Callers have already checked a !== b. */
function walkFull(a: unknown, b: unknown, walk: Walk): void {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return recordLeaf(a, b, walk)
  const aIsArray = Array.isArray(a)
  if (aIsArray !== Array.isArray(b)) return record(walk, 'changed')
  const steps = walk.steps
  if (aIsArray) {
    const bArr = b as unknown[]
    const n = a.length
    if (n !== bArr.length) return record(walk, 'changed')
    for (let i = 0; i < n; i++) {
      const av: unknown = a[i]
      const bv = bArr[i]
      if (av === bv) continue
      steps.push(i)
      walkFull(av, bv, walk)
      steps.pop()
    }
    return
  }
  const ao = a as Obj
  const bo = b as Obj
  let shared = 0
  for (const k in ao) {
    const av = own(ao, k)
    if (av === undefined) continue
    const bv = own(bo, k)
    if (bv !== undefined) shared++
    if (av === bv) continue
    steps.push(k)
    walkFull(av, bv, walk)
    steps.pop()
  }
  addedKeys(ao, bo, shared, walk)
}

function countKeys(o: Obj): number {
  let n = 0
  for (const k in o) if (own(o, k) !== undefined) n++
  return n
}

/**
 * Records keys only `b` has. `shared` counts the keys both have; when `b` has
 * no others, which is the usual case, the second pass is skipped.
 */
function addedKeys(ao: Obj, bo: Obj, shared: number, walk: Walk): void {
  if (countKeys(bo) === shared) return
  for (const k in bo) {
    if (own(bo, k) === undefined || own(ao, k) !== undefined) continue
    walk.steps.push(k)
    record(walk, 'added')
    walk.steps.pop()
  }
}

function walkRuled(a: unknown, b: unknown, node: TrieNode, walk: Walk): void {
  if (a === b) return
  if (node.plain) return walkFull(a, b, walk)
  if (node.ignored) {
    if (node.live) walkLive(a, b, node, walk)
    return
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return recordLeaf(a, b, walk)
  const aIsArray = Array.isArray(a)
  if (aIsArray !== Array.isArray(b)) return record(walk, 'changed')
  const steps = walk.steps
  if (aIsArray) {
    const bArr = b as unknown[]
    const n = a.length
    if (n !== bArr.length) return record(walk, 'changed')
    const indexes = node.indexes
    const rest = node.wildcard ?? PLAIN
    for (let i = 0; i < n; i++) {
      const av: unknown = a[i]
      const bv = bArr[i]
      if (av === bv) continue
      steps.push(i)
      walkRuled(av, bv, (indexes === undefined ? undefined : indexes.get(i)) ?? rest, walk)
      steps.pop()
    }
    return
  }
  const ao = a as Obj
  const bo = b as Obj
  const keys = node.keys
  let shared = 0
  for (const k in ao) {
    const av = own(ao, k)
    if (av === undefined) continue
    const bv = own(bo, k)
    if (bv !== undefined) shared++
    if (av === bv) continue
    steps.push(k)
    walkRuled(av, bv, (keys === undefined ? undefined : keys.get(k)) ?? PLAIN, walk)
    steps.pop()
  }
  if (countKeys(bo) === shared) return
  for (const k in bo) {
    const bv = own(bo, k)
    if (bv === undefined || own(ao, k) !== undefined) continue
    steps.push(k)
    // An added key still goes through the trie: it may be ignored, or hold protected keys.
    walkRuled(undefined, bv, (keys === undefined ? undefined : keys.get(k)) ?? PLAIN, walk)
    steps.pop()
  }
}

/**
 * An ignored node with protected keys below: only the live children are
 * compared. A side that is not a map (absent, null, another type) has none of
 * them, so a removed or nulled labels map reports each protected key it held.
 */
function walkLive(a: unknown, b: unknown, node: TrieNode, walk: Walk): void {
  const keys = node.keys
  if (keys === undefined) return
  const ao = isObj(a) ? a : undefined
  const bo = isObj(b) ? b : undefined
  const steps = walk.steps
  if (ao !== undefined) {
    for (const k in ao) {
      const child = keys.get(k)
      if (child === undefined || !child.live) continue
      const av = own(ao, k)
      const bv = bo === undefined ? undefined : own(bo, k)
      if (av === bv) continue
      steps.push(k)
      walkRuled(av, bv, child, walk)
      steps.pop()
    }
  }
  if (bo !== undefined) {
    for (const k in bo) {
      const child = keys.get(k)
      if (child === undefined || !child.live) continue
      const bv = own(bo, k)
      if (bv === undefined || (ao !== undefined && own(ao, k) !== undefined)) continue
      steps.push(k)
      walkRuled(undefined, bv, child, walk)
      steps.pop()
    }
  }
}
