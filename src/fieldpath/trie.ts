// The compiled form of a set of path rules: a trie walked in step with the
// objects being compared, so matching costs one map lookup per step and never
// re-reads the entries. Built once per rule set; every node is frozen.
//
// Two rule effects exist. "ignore" covers a whole subtree. "protect" punches a
// hole in any ignored subtree: the protected node and everything under it is
// compared in full, whatever the ignore rules say.

import type { PathStep, Segment } from './types.ts'

export interface TrieRule {
  readonly segments: readonly Segment[]
  readonly effect: 'ignore' | 'protect'
}

export interface TrieNode {
  /** No rule applies here or below: compare the subtree in full. */
  readonly plain: boolean
  /** Changes at this node and below are ignored, except inside live children. */
  readonly ignored: boolean
  /** Something at or below this node is still compared. */
  readonly live: boolean
  readonly keys: ReadonlyMap<string, TrieNode> | undefined
  readonly indexes: ReadonlyMap<number, TrieNode> | undefined
  /** Applies to array elements with no entry in `indexes`. */
  readonly wildcard: TrieNode | undefined
}

function node(
  plain: boolean,
  ignored: boolean,
  live: boolean,
  keys: ReadonlyMap<string, TrieNode> | undefined,
  indexes: ReadonlyMap<number, TrieNode> | undefined,
  wildcard: TrieNode | undefined,
): TrieNode {
  // One constructor keeps every node the same shape, which keeps the walk's property reads monomorphic.
  return Object.freeze({ plain, ignored, live, keys, indexes, wildcard })
}

export const PLAIN: TrieNode = node(true, false, true, undefined, undefined, undefined)
export const IGNORED: TrieNode = node(false, true, false, undefined, undefined, undefined)

export function keyChild(n: TrieNode, key: string): TrieNode {
  return n.keys?.get(key) ?? (n.ignored ? IGNORED : PLAIN)
}

export function indexChild(n: TrieNode, index: number): TrieNode {
  return n.indexes?.get(index) ?? n.wildcard ?? (n.ignored ? IGNORED : PLAIN)
}

/** Whether the rules ignore the node at this concrete path. */
export function ignoresPath(root: TrieNode, steps: readonly PathStep[]): boolean {
  let n = root
  for (const step of steps) {
    if (n.plain) return false
    if (n.ignored && !n.live) return true
    n = typeof step === 'number' ? indexChild(n, step) : keyChild(n, step)
  }
  return n.ignored
}

interface Draft {
  ignore: boolean
  protect: boolean
  readonly keys: Map<string, Draft>
  readonly indexes: Map<number, Draft>
  wildcard: Draft | undefined
}

const newDraft = (): Draft => ({ ignore: false, protect: false, keys: new Map(), indexes: new Map(), wildcard: undefined })

export function buildTrie(rules: readonly TrieRule[]): TrieNode {
  const root = newDraft()
  for (const rule of rules) {
    if (rule.effect === 'protect' && rule.segments.some((s) => s.kind !== 'key')) {
      // The compare walk only looks for protected nodes under map keys.
      throw new Error(`a protect rule may only contain map keys, got ${JSON.stringify(rule.segments)}`)
    }
    let d = root
    for (const seg of rule.segments) {
      if (seg.kind === 'key') d = getOrAdd(d.keys, seg.key)
      else if (seg.kind === 'index') d = getOrAdd(d.indexes, seg.index)
      else d = d.wildcard ??= newDraft()
    }
    if (rule.effect === 'ignore') d.ignore = true
    else d.protect = true
  }
  return finalize(root, false)
}

function getOrAdd<K>(m: Map<K, Draft>, k: K): Draft {
  let d = m.get(k)
  if (d === undefined) {
    d = newDraft()
    m.set(k, d)
  }
  return d
}

function finalize(d: Draft, inheritedIgnore: boolean): TrieNode {
  if (d.protect) return PLAIN
  const ignored = inheritedIgnore || d.ignore
  const fallback = ignored ? IGNORED : PLAIN
  let live = !ignored

  let keys: Map<string, TrieNode> | undefined
  for (const [k, child] of d.keys) {
    const n = finalize(child, ignored)
    if (n === fallback) continue
    ;(keys ??= new Map()).set(k, n)
    live ||= n.live
  }

  let wildcard: TrieNode | undefined
  if (d.wildcard !== undefined) {
    const n = finalize(d.wildcard, ignored)
    if (n !== fallback) wildcard = n
  }

  // An element with its own index rules is matched by those and by the [*] rules,
  // so the two are merged here rather than looked up twice per element.
  let indexes: Map<number, TrieNode> | undefined
  const indexFallback = wildcard ?? fallback
  for (const [i, child] of d.indexes) {
    const n = finalize(d.wildcard === undefined ? child : mergeDrafts(child, d.wildcard), ignored)
    if (n !== indexFallback) (indexes ??= new Map()).set(i, n)
  }

  if (ignored && !live) return IGNORED
  if (!ignored && keys === undefined && indexes === undefined && wildcard === undefined) return PLAIN
  return node(false, ignored, live, keys, indexes, wildcard)
}

function mergeDrafts(a: Draft, b: Draft): Draft {
  const m = newDraft()
  m.ignore = a.ignore || b.ignore
  m.protect = a.protect || b.protect
  mergeInto(m.keys, a.keys, b.keys)
  mergeInto(m.indexes, a.indexes, b.indexes)
  m.wildcard = a.wildcard && b.wildcard ? mergeDrafts(a.wildcard, b.wildcard) : (a.wildcard ?? b.wildcard)
  return m
}

function mergeInto<K>(into: Map<K, Draft>, a: ReadonlyMap<K, Draft>, b: ReadonlyMap<K, Draft>): void {
  for (const [k, d] of a) into.set(k, d)
  for (const [k, d] of b) {
    const x = into.get(k)
    into.set(k, x === undefined ? d : mergeDrafts(x, d))
  }
}
