// semver and semverCompare with the rules of Masterminds/semver v3.3.0, the
// version Sprig v3.3.0 requires: loose version parsing (v prefix, missing
// minor/patch), and constraints with ranges, wildcards, ~, ^ and ||.
//
// semver returns a *semver.Version whose methods (.Major, .IncPatch,
// .LessThan ...) templates call as in Go.

import { GoInt, GoObject } from '../value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from '../value.ts'
import { fail, fn, str } from './spec.ts'
import { bytesValue } from './types.ts'

export interface Version {
  readonly major: bigint
  readonly minor: bigint
  readonly patch: bigint
  readonly pre: string
  readonly metadata: string
  readonly original: string
}

const MAX_U64 = (1n << 64n) - 1n

const versionRe = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/

class SemverError extends Error {}

function parseSegment(s: string): bigint {
  const n = BigInt(s)
  if (n > MAX_U64) throw new SemverError(`Error parsing version segment: strconv.ParseUint: parsing "${s}": value out of range`)
  return n
}

const onlyDigits = (s: string): boolean => /^[0-9]*$/.test(s)

export function newVersion(v: string): Version {
  const m = versionRe.exec(v)
  if (!m) throw new SemverError('Invalid Semantic Version')
  const pre = m[5] ?? ''
  const metadata = m[8] ?? ''
  const version: Version = {
    major: parseSegment(m[1] ?? '0'),
    minor: m[2] ? parseSegment(m[2].slice(1)) : 0n,
    patch: m[3] ? parseSegment(m[3].slice(1)) : 0n,
    pre,
    metadata,
    original: v,
  }
  if (pre !== '') {
    for (const p of pre.split('.')) {
      if (onlyDigits(p) && p.length > 1 && p[0] === '0') throw new SemverError('Version segment starts with 0')
    }
  }
  return version
}

export function versionString(v: Version): string {
  let s = `${v.major}.${v.minor}.${v.patch}`
  if (v.pre !== '') s += '-' + v.pre
  if (v.metadata !== '') s += '+' + v.metadata
  return s
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0
  if (s === '') return o !== '' ? -1 : 1
  if (o === '') return s !== '' ? 1 : -1
  const sn = /^[0-9]+$/.test(s) && BigInt(s) <= MAX_U64
  const on = /^[0-9]+$/.test(o) && BigInt(o) <= MAX_U64
  if (!sn && !on) return s > o ? 1 : -1
  if (!on) return -1
  if (!sn) return 1
  return BigInt(s) > BigInt(o) ? 1 : -1
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split('.')
  const op = o.split('.')
  const l = Math.max(sp.length, op.length)
  for (let i = 0; i < l; i++) {
    const d = comparePrePart(sp[i] ?? '', op[i] ?? '')
    if (d !== 0) return d
  }
  return 0
}

export function compareVersions(v: Version, o: Version): number {
  const d = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch)
  if (d !== 0) return d
  if (v.pre === '' && o.pre === '') return 0
  if (v.pre === '') return 1
  if (o.pre === '') return -1
  return comparePrerelease(v.pre, o.pre)
}

// The constraint grammar, with Go's \s (ASCII space, \t \n \f \r) spelled out.
const S = '[\\t\\n\\f\\r ]'
const cv =
  'v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?' +
  '(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?' +
  '(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?'
const ops = '=||!=|>|<|>=|=>|<=|=<|~|~>|\\^'
const constraintRe = new RegExp(`^${S}*(${ops})${S}*(${cv})${S}*$`)
const rangeRe = new RegExp(`${S}*(${cv})${S}+-${S}+(${cv})${S}*`, 'g')
const findRe = new RegExp(`(${ops})${S}*(${cv})`, 'g')
const validRe = new RegExp(`^(${S}*(${ops})${S}*(${cv})${S}*)((?:${S}+|,${S}*)(${ops})${S}*(${cv})${S}*)*$`)

interface Constraint {
  readonly con: Version
  readonly orig: string
  readonly op: string
  readonly minorDirty: boolean
  readonly dirty: boolean
  readonly patchDirty: boolean
}

const isX = (x: string): boolean => x === 'x' || x === '*' || x === 'X'

function rewriteRange(i: string): string {
  let o = i
  for (const m of i.matchAll(rangeRe)) o = o.replace(m[0], `>= ${m[1] ?? ''}, <= ${m[11] ?? ''} `)
  return o
}

function parseConstraint(c: string): Constraint {
  if (c.length > 0) {
    const m = constraintRe.exec(c)
    if (!m) throw new SemverError(`improper constraint: ${c}`)
    const g = (k: number): string => m[k] ?? ''
    let ver = g(2)
    let minorDirty = false
    let patchDirty = false
    let dirty = false
    if (isX(g(3)) || g(3) === '') {
      ver = `0.0.0${g(6)}`
      dirty = true
    } else if (isX(g(4).replace(/^\./, '')) || g(4) === '') {
      minorDirty = true
      dirty = true
      ver = `${g(3)}.0.0${g(6)}`
    } else if (isX(g(5).replace(/^\./, '')) || g(5) === '') {
      dirty = true
      patchDirty = true
      ver = `${g(3)}${g(4)}.0${g(6)}`
    }
    let con: Version
    try {
      con = newVersion(ver)
    } catch {
      throw new SemverError('constraint Parser Error')
    }
    return { con, orig: g(2), op: g(1), minorDirty, dirty, patchDirty }
  }
  return { con: newVersion('0.0.0'), orig: c, op: '', minorDirty: false, patchDirty: false, dirty: true }
}

function newConstraint(c: string): Constraint[][] {
  c = rewriteRange(c)
  return c.split('||').map((v) => {
    if (!validRe.test(v)) throw new SemverError(`improper constraint: ${v}`)
    const found = [...v.matchAll(findRe)].map((m) => m[0])
    return (found.length === 0 ? [v] : found).map(parseConstraint)
  })
}

const hasPre = (v: Version): boolean => v.pre !== ''

function tilde(v: Version, c: Constraint): boolean {
  if (hasPre(v) && !hasPre(c.con)) return false
  if (compareVersions(v, c.con) < 0) return false
  if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true
  if (v.major !== c.con.major) return false
  if (v.minor !== c.con.minor && !c.minorDirty) return false
  return true
}

const checks: Record<string, (v: Version, c: Constraint) => boolean> = {
  '': tildeOrEqual,
  '=': tildeOrEqual,
  '!=': (v, c) => {
    if (c.dirty) {
      if (hasPre(v) && !hasPre(c.con)) return false
      if (c.con.major !== v.major) return true
      if (c.con.minor !== v.minor && !c.minorDirty) return true
      else if (c.minorDirty) return false
      else if (c.con.patch !== v.patch && !c.patchDirty) return true
      else if (c.patchDirty) {
        if (hasPre(v) || hasPre(c.con)) return comparePrerelease(v.pre, c.con.pre) !== 0
        return false
      }
    }
    return compareVersions(v, c.con) !== 0
  },
  '>': (v, c) => {
    if (hasPre(v) && !hasPre(c.con)) return false
    if (!c.dirty) return compareVersions(v, c.con) === 1
    if (v.major > c.con.major) return true
    if (v.major < c.con.major) return false
    if (c.minorDirty) return false
    if (c.patchDirty) return v.minor > c.con.minor
    return compareVersions(v, c.con) === 1
  },
  '<': (v, c) => !(hasPre(v) && !hasPre(c.con)) && compareVersions(v, c.con) < 0,
  '>=': gte,
  '=>': gte,
  '<=': lte,
  '=<': lte,
  '~': tilde,
  '~>': tilde,
  '^': (v, c) => {
    if (hasPre(v) && !hasPre(c.con)) return false
    if (compareVersions(v, c.con) < 0) return false
    if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major
    if (c.con.major === 0n && v.major > 0n) return false
    if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor
    if (c.con.minor === 0n && v.minor > 0n) return false
    return c.con.patch === v.patch
  },
}

function tildeOrEqual(v: Version, c: Constraint): boolean {
  if (hasPre(v) && !hasPre(c.con)) return false
  if (c.dirty) return tilde(v, c)
  return compareVersions(v, c.con) === 0
}

function gte(v: Version, c: Constraint): boolean {
  if (hasPre(v) && !hasPre(c.con)) return false
  return compareVersions(v, c.con) >= 0
}

function lte(v: Version, c: Constraint): boolean {
  if (hasPre(v) && !hasPre(c.con)) return false
  if (!c.dirty) return compareVersions(v, c.con) <= 0
  if (v.major > c.con.major) return false
  if (v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty) return false
  return true
}

export function semverCompare(constraint: string, version: string): boolean {
  const cs = newConstraint(constraint)
  const v = newVersion(version)
  return cs.some((and) => and.every((c) => (checks[c.op] ?? tildeOrEqual)(v, c)))
}

const ptrOnly = new Set(['Compare', 'Equal', 'GreaterThan', 'GreaterThanEqual', 'LessThan', 'LessThanEqual', 'Original'])

// Methods that change the version in place; a template value never changes here.
const mutators = new Set(['Scan', 'UnmarshalJSON', 'UnmarshalText'])

const uint64 = (v: bigint): GoInt => new GoInt(v, 'uint64')

const versionArg = (o: GoValue): Version => {
  if (!(o instanceof SemverVersion)) throw new Error('runtime error: invalid memory address or nil pointer dereference')
  return o.version
}

/**
 * A *semver.Version (from semver) or a semver.Version value (from IncPatch and
 * the other methods that return one). The value has the methods Go gives it:
 * a pointer all of them, a value only those with a value receiver.
 */
export class SemverVersion extends GoObject {
  readonly goKind: 'ptr' | 'struct'
  readonly goType: string
  readonly version: Version
  constructor(version: Version, pointer: boolean) {
    super()
    this.version = version
    this.goKind = pointer ? 'ptr' : 'struct'
    this.goType = pointer ? '*semver.Version' : 'semver.Version'
  }

  method(name: string): GoFuncSpec | undefined {
    if (this.goKind === 'struct' && (ptrOnly.has(name) || mutators.has(name))) return undefined
    const v = this.version
    const m = (params: GoFuncSpec['params'], f: GoFuncSpec['fn']): GoFuncSpec => ({ fn: f, params })
    switch (name) {
      case 'String':
        return m([], () => versionString(v))
      case 'Original':
        return m([], () => v.original)
      case 'Major':
        return m([], () => uint64(v.major))
      case 'Minor':
        return m([], () => uint64(v.minor))
      case 'Patch':
        return m([], () => uint64(v.patch))
      case 'Prerelease':
        return m([], () => v.pre)
      case 'Metadata':
        return m([], () => v.metadata)
      case 'IncPatch':
        return m([], () => derived(v, v.pre !== '' ? { pre: '', metadata: '' } : { pre: '', metadata: '', patch: v.patch + 1n }))
      case 'IncMinor':
        return m([], () => derived(v, { pre: '', metadata: '', patch: 0n, minor: v.minor + 1n }))
      case 'IncMajor':
        return m([], () => derived(v, { pre: '', metadata: '', patch: 0n, minor: 0n, major: v.major + 1n }))
      case 'SetPrerelease':
        return m(['string'], (p) => {
          if (p !== '') validatePart(p as string, true)
          return derived(v, { pre: p as string })
        })
      case 'SetMetadata':
        return m(['string'], (md) => {
          if (md !== '') validatePart(md as string, false)
          return derived(v, { metadata: md as string })
        })
      case 'MarshalJSON':
        return m([], () => bytesValue(new TextEncoder().encode(JSON.stringify(versionString(v)))))
      case 'MarshalText':
        return m([], () => bytesValue(new TextEncoder().encode(versionString(v))))
      case 'Value':
        return m([], () => versionString(v))
      case 'Compare':
        return m(['type:*semver.Version'], (o) => BigInt(compareVersions(v, versionArg(o))))
      case 'LessThan':
        return m(['type:*semver.Version'], (o) => compareVersions(v, versionArg(o)) < 0)
      case 'LessThanEqual':
        return m(['type:*semver.Version'], (o) => compareVersions(v, versionArg(o)) <= 0)
      case 'GreaterThan':
        return m(['type:*semver.Version'], (o) => compareVersions(v, versionArg(o)) > 0)
      case 'GreaterThanEqual':
        return m(['type:*semver.Version'], (o) => compareVersions(v, versionArg(o)) >= 0)
      case 'Equal':
        return m(['type:*semver.Version'], (o) => o === this || (o instanceof SemverVersion && compareVersions(v, o.version) === 0))
      case 'Scan':
      case 'UnmarshalJSON':
      case 'UnmarshalText':
        return {
          fn: () => null,
          params: [name === 'Scan' ? 'any' : 'bytes'],
          unsupported: `method ${name} of *semver.Version changes the version in place, which template-sync does not support`,
        }
    }
    return undefined
  }

  /** copystructure sees only unexported fields in a Version: the copy is 0.0.0. */
  override deepCopy(): GoObject {
    return new SemverVersion({ major: 0n, minor: 0n, patch: 0n, pre: '', metadata: '', original: '' }, this.goKind === 'ptr')
  }

  override structFields(): ReadonlyArray<readonly [string, GoValue]> {
    const v = this.version
    return [
      ['major', uint64(v.major)],
      ['minor', uint64(v.minor)],
      ['patch', uint64(v.patch)],
      ['pre', v.pre],
      ['metadata', v.metadata],
      ['original', v.original],
    ]
  }
}

const allowedPart = /^[0-9A-Za-z-]*$/

/** validatePrerelease / validateMetadata of semver v3.3.0. */
function validatePart(s: string, pre: boolean): void {
  for (const p of s.split('.')) {
    if (pre && onlyDigits(p)) {
      if (p.length > 1 && p[0] === '0') throw new SemverError('Version segment starts with 0')
    } else if (!allowedPart.test(p)) throw new SemverError(pre ? 'Invalid Prerelease string' : 'Invalid Metadata string')
  }
}

/** A semver.Version value derived from v, with original rewritten as Go's Inc and Set methods do. */
function derived(v: Version, change: Partial<Version>): SemverVersion {
  const next = { ...v, ...change }
  const prefix = v.original !== '' && v.original[0] === 'v' ? 'v' : ''
  return new SemverVersion({ ...next, original: prefix + versionString(next) }, false)
}

function wrap<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof SemverError) fail(e.message)
    throw e
  }
}

export const semverFuncs: FuncMap = {
  semver: fn(['string'], (v) => wrap(() => new SemverVersion(newVersion(str(v)), true))),
  semverCompare: fn(['string', 'string'], (c, v) => wrap(() => semverCompare(str(c), str(v)))),
}
