// Chart.yaml, requirements.yaml and Chart.lock: decoding into Helm's
// Metadata, Dependency and Lock structs, and Metadata.Validate (which also
// sanitises the strings). Messages follow Helm's, prefixed with what failed.

import { StructDecodeError, StructReader } from './decode.ts'
import { parseSemver } from './semver.ts'
import type { ChartDependency, ChartLock, ChartMaintainer, ChartMetadata } from './types.ts'

/** A chart that Helm's Metadata.Validate rejects ("validation: ..."). */
export class ChartValidationError extends Error {
  override readonly name = 'ChartValidationError'
  constructor(detail: string) {
    super(`validation: ${detail}`)
  }
}

export const EMPTY_METADATA: ChartMetadata = Object.freeze({
  name: '',
  home: '',
  sources: [],
  version: '',
  description: '',
  keywords: [],
  maintainers: [],
  icon: '',
  apiVersion: '',
  condition: '',
  tags: '',
  appVersion: '',
  deprecated: false,
  annotations: undefined,
  kubeVersion: '',
  dependencies: [],
  type: '',
})

/** null stands for a nil pointer element (`- ~` in the list), which validation rejects. */
type Nullable<T> = T | null

interface DecodedMetadata extends Omit<ChartMetadata, 'maintainers' | 'dependencies'> {
  readonly maintainers: readonly Nullable<ChartMaintainer>[]
  readonly dependencies: readonly Nullable<ChartDependency>[]
}

function decodeDependency(v: unknown, path: string): Nullable<ChartDependency> {
  if (v === null) return null
  const r = StructReader.of(v, path)
  return {
    name: r.string('name'),
    version: r.string('version'),
    repository: r.string('repository'),
    condition: r.string('condition'),
    tags: r.strings('tags'),
    enabled: r.bool('enabled'),
    importValues: r.anyList('import-values'),
    alias: r.string('alias'),
  }
}

function decodeMaintainer(v: unknown, path: string): Nullable<ChartMaintainer> {
  if (v === null) return null
  const r = StructReader.of(v, path)
  return { name: r.string('name'), email: r.string('email'), url: r.string('url') }
}

/**
 * Decodes a document into Metadata the way json.Unmarshal fills an existing
 * struct: fields present in the document replace those of `base`; a null
 * keeps a string or bool and clears a list; annotations merge into the
 * existing map.
 */
function decodeMetadata(value: unknown, base: DecodedMetadata): DecodedMetadata {
  const r = StructReader.of(value, '')
  const has = (f: string) => r.raw(f) !== undefined
  const keep = (f: string) => !has(f) || r.raw(f) === null
  const str = (f: keyof DecodedMetadata & string, current: string) => (keep(f) ? current : r.string(f))
  const list = <T>(f: string, current: readonly T[], read: () => T[]): readonly T[] => (!has(f) ? current : read())
  const annotations = has('annotations') ? r.stringMap('annotations') : base.annotations
  return {
    name: str('name', base.name),
    home: str('home', base.home),
    sources: list('sources', base.sources, () => r.strings('sources')),
    version: str('version', base.version),
    description: str('description', base.description),
    keywords: list('keywords', base.keywords, () => r.strings('keywords')),
    maintainers: list('maintainers', base.maintainers, () => r.list('maintainers', decodeMaintainer)),
    icon: str('icon', base.icon),
    apiVersion: str('apiVersion', base.apiVersion),
    condition: str('condition', base.condition),
    tags: str('tags', base.tags),
    appVersion: str('appVersion', base.appVersion),
    deprecated: keep('deprecated') ? base.deprecated : r.bool('deprecated'),
    annotations:
      annotations !== undefined && base.annotations !== undefined && r.raw('annotations') !== null
        ? { ...base.annotations, ...annotations }
        : annotations,
    kubeVersion: str('kubeVersion', base.kubeVersion),
    dependencies: list('dependencies', base.dependencies, () => r.list('dependencies', decodeDependency)),
    type: str('type', base.type),
  }
}

/**
 * A decoded Chart.yaml or requirements.yaml document read over `base`, as
 * Helm unmarshals both into the same Metadata. The "v1" default for a
 * missing apiVersion is the caller's (Helm applies it after Chart.yaml only).
 */
export function readMetadata(doc: unknown, base: DecodedMetadata = EMPTY_METADATA): DecodedMetadata {
  return decodeMetadata(doc, base)
}

/** Just Chart.yaml's apiVersion, as Helm 4 reads it to pick a loader. */
export function readApiVersion(doc: unknown): string {
  return StructReader.of(doc, '').string('apiVersion')
}

/** Chart.lock / requirements.lock. */
export function readLock(doc: unknown): ChartLock {
  const r = StructReader.of(doc, '')
  const generated = r.string('generated')
  // time.Time's JSON form is RFC 3339; anything else fails to unmarshal.
  if (generated !== '' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(generated)) {
    throw new StructDecodeError('generated', `${JSON.stringify(generated)} is not an RFC 3339 time`)
  }
  const dependencies = r.list('dependencies', decodeDependency).map((d) => d ?? decodeDependencyZero())
  return { generated, digest: r.string('digest'), dependencies }
}

function decodeDependencyZero(): ChartDependency {
  return { name: '', version: '', repository: '', condition: '', tags: [], enabled: false, importValues: [], alias: '' }
}

const ALIAS = /^[a-zA-Z0-9_-]+$/

/** Go's path/filepath.Base on a non-empty Unix path. */
function goBase(p: string): string {
  const trimmed = p.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed.slice(trimmed.lastIndexOf('/') + 1)
}

/** Go's unicode.IsSpace. */
const SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u
/** Characters Go's unicode.IsPrint rejects: controls, format, unassigned, surrogates, and spaces other than U+0020. */
const NON_PRINT = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

/** Helm's sanitizeString: every space character becomes " ", non-printable characters are dropped. */
export function sanitize(s: string): string {
  let out = ''
  for (const ch of s) {
    if (SPACE.test(ch)) out += ' '
    else if (!NON_PRINT.test(ch)) out += ch
  }
  return out
}

function validateDependency(d: Nullable<ChartDependency>): ChartDependency {
  if (d === null) throw new ChartValidationError('dependencies must not contain empty or null nodes')
  const clean: ChartDependency = {
    ...d,
    name: sanitize(d.name),
    version: sanitize(d.version),
    repository: sanitize(d.repository),
    condition: sanitize(d.condition),
    tags: d.tags.map(sanitize),
  }
  if (clean.alias !== '' && !ALIAS.test(clean.alias)) {
    throw new ChartValidationError(`dependency ${JSON.stringify(clean.name)} has disallowed characters in the alias`)
  }
  return clean
}

/** Metadata.Validate: sanitises and checks, in Helm's order, so the first problem reported is Helm's. */
export function validateMetadata(md: DecodedMetadata): ChartMetadata {
  const s = {
    ...md,
    name: sanitize(md.name),
    description: sanitize(md.description),
    home: sanitize(md.home),
    icon: sanitize(md.icon),
    condition: sanitize(md.condition),
    tags: sanitize(md.tags),
    appVersion: sanitize(md.appVersion),
    kubeVersion: sanitize(md.kubeVersion),
    sources: md.sources.map(sanitize),
    keywords: md.keywords.map(sanitize),
  }
  if (s.apiVersion === '') throw new ChartValidationError('chart.metadata.apiVersion is required')
  if (s.name === '') throw new ChartValidationError('chart.metadata.name is required')
  if (s.name === '.' || s.name === '..') throw new ChartValidationError(`chart.metadata.name ${JSON.stringify(s.name)} is not allowed`)
  if (goBase(s.name) !== s.name) throw new ChartValidationError(`chart.metadata.name ${JSON.stringify(s.name)} is invalid`)
  if (s.version === '') throw new ChartValidationError('chart.metadata.version is required')
  if (parseSemver(s.version) === undefined) throw new ChartValidationError(`chart.metadata.version ${JSON.stringify(s.version)} is invalid`)
  if (s.type !== '' && s.type !== 'application' && s.type !== 'library') {
    throw new ChartValidationError('chart.metadata.type must be application or library')
  }
  const maintainers = s.maintainers.map((m) => {
    if (m === null) throw new ChartValidationError('maintainers must not contain empty or null nodes')
    return { name: sanitize(m.name), email: sanitize(m.email), url: sanitize(m.url) }
  })
  const seen = new Set<string>()
  const dependencies = s.dependencies.map((raw) => {
    const d = validateDependency(raw)
    const key = d.alias !== '' ? d.alias : d.name
    if (seen.has(key)) throw new ChartValidationError(`more than one dependency with name or alias ${JSON.stringify(key)}`)
    seen.add(key)
    return d
  })
  return { ...s, maintainers, dependencies }
}

export type { DecodedMetadata }
