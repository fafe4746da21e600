// Checks compare against a slow reference on random object pairs and random
// ignore sets. The reference lists every node of both objects, works out for
// each one on its own whether it differs and whether it is covered, and keeps
// the topmost reportable ones. It shares no code with compare: its rules are
// plain segment lists, and compare receives them only as formatted text.

import t from 'tap'
import isEqual from 'lodash/isEqual.js'
import { PROTECTED_ANNOTATIONS, PROTECTED_LABELS } from '../../src/api/names.ts'
import { compare } from '../../src/drift/compare.ts'
import type { Change } from '../../src/drift/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { formatSegments } from '../../src/fieldpath/format.ts'
import { isIgnoredPath } from '../../src/fieldpath/match.ts'
import { parseFieldPath } from '../../src/fieldpath/parse.ts'
import type { PathStep, Segment } from '../../src/fieldpath/types.ts'

const SEED = 0x7e3a11
const PAIRS = 3000

// ---- seeded randomness (mulberry32) ----

function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), a | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
const rand = rng(SEED)
const chance = (p: number) => rand() < p
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T

// ---- random JSON-like values ----

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

const KEYS = [
  'a',
  'b',
  'c',
  'spec',
  'labels',
  'x.y',
  'a/b',
  '~',
  '~1',
  '0',
  '1',
  '',
  "q'uote",
  'back\\slash',
  'constructor',
  '__proto__',
  'toString',
  'é',
  'with space',
  'env',
]
const SCALARS: readonly unknown[] = [null, true, false, 0, 1, 1.5, -2, '', 'x', 'y', '1', 'true']

function setOwn(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

function randomValue(depth: number): unknown {
  const r = rand()
  if (depth <= 0 || r < 0.4) return pick(SCALARS)
  if (r < 0.75) {
    const o: Obj = {}
    const n = Math.floor(rand() * 4)
    for (let i = 0; i < n; i++) setOwn(o, pick(KEYS), randomValue(depth - 1))
    return o
  }
  return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(depth - 1))
}

function randomRoot(): unknown {
  if (chance(0.1)) return randomValue(3)
  const labels: Obj = {}
  for (const k of PROTECTED_LABELS) if (chance(0.7)) labels[k] = pick(['web', 'x', null, 1])
  if (chance(0.5)) labels['team'] = 'a'
  const annotations: Obj = {}
  for (const k of PROTECTED_ANNOTATIONS) if (chance(0.7)) annotations[k] = 'ns/web'
  if (chance(0.5)) annotations['example.com/owner'] = 'a'
  const metadata: Obj = { name: 'web' }
  if (chance(0.8)) metadata['labels'] = labels
  if (chance(0.8)) metadata['annotations'] = annotations
  if (chance(0.5)) metadata['resourceVersion'] = String(Math.floor(rand() * 100))
  if (chance(0.3)) metadata['managedFields'] = randomValue(2)
  const root: Obj = { kind: 'Thing' }
  if (chance(0.9)) root['metadata'] = metadata
  root['spec'] = randomValue(4)
  if (chance(0.5)) root['status'] = randomValue(2)
  if (chance(0.3)) root['x'] = randomValue(3)
  return root
}

function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone)
  if (!isObj(v)) return v
  const o: Obj = {}
  for (const k of Object.keys(v)) setOwn(o, k, clone(v[k]))
  return o
}

// ---- node listing, shared by mutation and rule generation ----

interface Node {
  readonly path: PathStep[]
  readonly value: unknown
}

function childSteps(v: unknown): PathStep[] {
  if (Array.isArray(v)) return v.map((_, i) => i)
  return isObj(v) ? Object.keys(v) : []
}

function childValue(v: unknown, step: PathStep): unknown {
  if (typeof step === 'number') return Array.isArray(v) ? v[step] : undefined
  return isObj(v) && Object.hasOwn(v, step) ? v[step] : undefined
}

function nodes(v: unknown, path: PathStep[] = [], out: Node[] = []): Node[] {
  out.push({ path, value: v })
  for (const s of childSteps(v)) nodes(childValue(v, s), [...path, s], out)
  return out
}

function mutate(root: unknown): unknown {
  if (chance(0.05)) return randomRoot()
  let r = clone(root)
  const count = Math.floor(rand() * 4)
  for (let i = 0; i < count; i++) {
    const all = nodes(r)
    const target = pick(all)
    if (target.path.length === 0) {
      if (chance(0.2)) r = randomValue(2)
      continue
    }
    const parent = all.find((n) => n.path.length === target.path.length - 1 && n.path.every((s, j) => s === target.path[j]))?.value
    const step = target.path[target.path.length - 1] as PathStep
    const op = rand()
    if (Array.isArray(parent) && typeof step === 'number') {
      if (op < 0.2) parent.splice(step, 1)
      else if (op < 0.35) parent.push(randomValue(2))
      else parent[step] = op < 0.5 ? null : randomValue(2)
    } else if (isObj(parent) && typeof step === 'string') {
      if (op < 0.25) delete parent[step]
      else if (op < 0.4) setOwn(parent, pick(KEYS), randomValue(2))
      else if (op < 0.5) setOwn(parent, step, null)
      else if (op < 0.55 && typeof target.value === 'number') setOwn(parent, step, target.value * 1.0)
      else setOwn(parent, step, randomValue(2))
    }
  }
  return r
}

// ---- random ignore rules, as plain segment lists ----

function randomRule(sources: Node[]): Segment[] {
  if (chance(0.15))
    return parseFieldPath(pick(['metadata', 'metadata.labels', 'metadata.annotations', 'spec', 'status', 'spec[*]', 'x[0]']))
  const withPath = sources.filter((n) => n.path.length > 0)
  if (withPath.length === 0) return [{ kind: 'key', key: pick(KEYS) }]
  const path = pick(withPath).path
  const keep = 1 + Math.floor(rand() * path.length)
  return path.slice(0, keep).map((s): Segment => {
    if (typeof s === 'number') return chance(0.5) ? { kind: 'wildcard' } : { kind: 'index', index: chance(0.2) ? s + 1 : s }
    return { kind: 'key', key: s }
  })
}

// ---- the reference ----

const SERVER_MANAGED: PathStep[][] = [
  ['status'],
  ...[
    'resourceVersion',
    'managedFields',
    'generation',
    'uid',
    'creationTimestamp',
    'selfLink',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ].map((k) => ['metadata', k]),
]
const PROTECTED: PathStep[][] = [
  ...PROTECTED_LABELS.map((k) => ['metadata', 'labels', k]),
  ...PROTECTED_ANNOTATIONS.map((k) => ['metadata', 'annotations', k]),
]

const startsWith = (path: PathStep[], prefix: PathStep[]) => prefix.length <= path.length && prefix.every((s, i) => path[i] === s)

function ruleCovers(rule: Segment[], path: PathStep[]): boolean {
  if (rule.length > path.length) return false
  return rule.every((seg, i) => {
    const step = path[i]
    if (seg.kind === 'wildcard') return typeof step === 'number'
    if (seg.kind === 'index') return step === seg.index
    return step === seg.key
  })
}

function refIgnoredByRules(rules: Segment[][], path: PathStep[]): boolean {
  return !PROTECTED.some((p) => startsWith(path, p)) && rules.some((r) => ruleCovers(r, path))
}

function refCovered(rules: Segment[][], path: PathStep[]): boolean {
  return (
    !PROTECTED.some((p) => startsWith(path, p)) &&
    (rules.some((r) => ruleCovers(r, path)) || SERVER_MANAGED.some((p) => startsWith(path, p)))
  )
}

function typeOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

/** How this node differs, looking at this node only. */
function localDiff(a: unknown, b: unknown): Change['kind'] | undefined {
  if (a === undefined && b === undefined) return undefined
  if (a === undefined) return 'added'
  if (b === undefined) return 'removed'
  if (typeOf(a) !== typeOf(b)) return 'changed'
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length ? undefined : 'changed'
  if (isObj(a)) return undefined
  return a === b ? undefined : 'changed'
}

function reference(before: unknown, after: unknown, rules: Segment[][]): [string, string][] {
  const out: [string, string][] = []
  const visit = (a: unknown, b: unknown, path: PathStep[], underReported: boolean) => {
    const diff = localDiff(a, b)
    const report = diff !== undefined && !underReported && !refCovered(rules, path)
    if (report) out.push([diff, refPointer(path)])
    const fromA = childSteps(a)
    const steps = [...fromA, ...childSteps(b).filter((s) => !fromA.includes(s))]
    for (const s of steps) visit(childValue(a, s), childValue(b, s), [...path, s], underReported || report)
  }
  visit(before, after, [], false)
  return out
}

const refPointer = (path: PathStep[]) => path.map((s) => '/' + String(s).split('~').join('~0').split('/').join('~1')).join('')

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Obj)[k])
  }
  return v
}

// ---- the run ----

interface Mismatch {
  readonly pair: number
  readonly entries: string[]
  readonly before: unknown
  readonly after: unknown
  readonly got: unknown
  readonly want: unknown
}

t.test(`compare agrees with the reference on ${PAIRS} random pairs (seed ${SEED})`, async (t) => {
  const mismatches: Mismatch[] = []
  let reported = 0
  let withChanges = 0
  for (let pair = 0; pair < PAIRS; pair++) {
    const before = randomRoot()
    const after = chance(0.1) ? randomRoot() : mutate(before)
    const sources = [...nodes(before), ...nodes(after)]
    const rules = Array.from({ length: Math.floor(rand() * 5) }, () => randomRule(sources))
    const entries = rules.map(formatSegments)
    deepFreeze(before)
    deepFreeze(after)

    const ignore = compileIgnoreFields(entries)
    const got = compare(before, after, ignore).map((c): [string, string] => [c.kind, c.pointer])
    const want = reference(before, after, rules)
    reported += got.length
    if (want.length > 0) withChanges++
    if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push({ pair, entries, before, after, got, want })

    // The same rules answer single-path questions the same way.
    for (const n of sources) {
      if (isIgnoredPath(ignore, n.path) !== refIgnoredByRules(rules, n.path)) {
        mismatches.push({
          pair,
          entries,
          before,
          after,
          got: `isIgnoredPath ${JSON.stringify(n.path)}`,
          want: !isIgnoredPath(ignore, n.path),
        })
        break
      }
    }

    // With no rules and no server-managed keys at the top, "no changes" means deep-equal.
    if (
      rules.length === 0 &&
      isObj(before) &&
      isObj(after) &&
      !('status' in before) &&
      !('metadata' in before) &&
      !('status' in after) &&
      !('metadata' in after)
    ) {
      if ((got.length === 0) !== isEqual(before, after))
        mismatches.push({ pair, entries, before, after, got, want: 'agreement with lodash isEqual' })
    }
  }
  t.ok(withChanges > PAIRS / 2, `most pairs differ (${withChanges} of ${PAIRS}), so the check has teeth`)
  t.ok(reported > PAIRS, `many changes were reported (${reported})`)
  t.equal(mismatches.length, 0, 'no pair disagrees')
  const first = mismatches[0]
  if (first !== undefined)
    t.strictSame(
      first.got,
      first.want,
      `first mismatch: pair ${first.pair}, ignore ${JSON.stringify(first.entries)}\nbefore ${JSON.stringify(first.before)}\nafter  ${JSON.stringify(first.after)}`,
    )
})
