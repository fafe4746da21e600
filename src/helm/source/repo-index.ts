// A chart repository's index.yaml and how Helm picks a chart from it
// (pkg/repo IndexFile.Get, ResolveReferenceURL): JSON when the bytes are
// JSON, YAML otherwise; entries that fail chart validation are dropped;
// versions sorted newest first; an exact version string wins, then a
// version equal by SemVer precedence (so "v1.2.3" finds "1.2.3").
//
// The YAML is read with js-yaml's YAML 1.1 scalar tags (what go-yaml v2
// resolves) but without src/encoding/yaml.ts's node budget: an index of a big
// public repository has millions of nodes, and only a few fields of each
// entry are read. Aliases are not expanded into copies, and the size of the
// document is bounded by the download limit.

import { StructDecodeError, StructReader } from '../chart/decode.ts'
import { ChartValidationError, readMetadata, validateMetadata } from '../chart/metadata.ts'
import { compareSemver, parseSemver, type SemVer } from '../chart/semver.ts'
import { boolYaml11Tag, FAILSAFE_SCHEMA, floatYaml11Tag, intYaml11Tag, load, nullYaml11Tag, Schema, YAMLException } from 'js-yaml'

export interface IndexEntry {
  readonly name: string
  readonly version: string
  readonly urls: readonly string[]
  /** sha256 of the .tgz as lowercase hex; "" when the index gives none. */
  readonly digest: string
}

export interface RepositoryIndex {
  readonly apiVersion: string
  /** Per chart name, valid entries newest first. */
  readonly entries: ReadonlyMap<string, readonly IndexEntry[]>
}

export class IndexError extends Error {
  override readonly name = 'IndexError'
}

/** Timestamps (`created:`) stay strings, as go-yaml v2 leaves them when decoding into interface{}. */
const INDEX_SCHEMA = new Schema([...FAILSAFE_SCHEMA.tags, nullYaml11Tag, boolYaml11Tag, intYaml11Tag, floatYaml11Tag])

function decode(bytes: Buffer): unknown {
  const text = bytes.toString('utf8')
  try {
    return JSON.parse(text)
  } catch {
    // Not JSON: YAML, as Helm falls back to.
  }
  try {
    return load(text, { schema: INDEX_SCHEMA, json: true, maxDepth: 64 })
  } catch (err) {
    if (err instanceof YAMLException) throw new IndexError(`index.yaml is not valid YAML: ${err.reason || err.message}`)
    throw err
  }
}

function readEntry(name: string, v: unknown, path: string): IndexEntry | undefined {
  if (v === null) return undefined
  const r = StructReader.of(v, path)
  try {
    // The entry is chart metadata inline; Helm drops entries whose metadata does not validate.
    const md = readMetadata(v)
    validateMetadata(md.apiVersion === '' ? { ...md, apiVersion: 'v1' } : md)
  } catch (err) {
    if (!(err instanceof ChartValidationError) || !err.message.startsWith('validation: more than one dependency')) return undefined
  }
  const digest = r.string('digest').toLowerCase()
  return { name, version: r.string('version'), urls: r.strings('urls'), digest }
}

export function parseRepositoryIndex(bytes: Buffer): RepositoryIndex {
  if (bytes.length === 0) throw new IndexError('index.yaml is empty')
  const doc = decode(bytes)
  try {
    const r = StructReader.of(doc, '')
    const apiVersion = r.string('apiVersion')
    const raw = r.raw('entries')
    const entries = new Map<string, IndexEntry[]>()
    if (raw !== null && raw !== undefined) {
      if (typeof raw !== 'object' || Array.isArray(raw)) throw new StructDecodeError('entries', 'expected a mapping')
      for (const [name, list] of Object.entries(raw)) {
        const versions = StructReader.of({ list }, 'entries')
          .list('list', (v, path) => {
            try {
              return readEntry(name, v, path.replace(/^entries\.list/, `entries.${name}`))
            } catch (err) {
              if (err instanceof StructDecodeError) return undefined
              throw err
            }
          })
          .filter((e): e is IndexEntry => e !== undefined)
        entries.set(name, sortNewestFirst(versions))
      }
    }
    if (apiVersion === '') throw new IndexError('no API version specified')
    return { apiVersion, entries }
  } catch (err) {
    if (err instanceof StructDecodeError) throw new IndexError(`index.yaml: ${err.message}`)
    throw err
  }
}

function sortNewestFirst(list: IndexEntry[]): IndexEntry[] {
  const parsed = list.map((e) => ({ e, v: parseSemver(e.version) }))
  // Helm sorts with semver where both parse; unparsable versions sort last.
  parsed.sort((a, b) => {
    if (a.v === undefined || b.v === undefined) return a.v === undefined ? (b.v === undefined ? 0 : 1) : -1
    return compareSemver(b.v, a.v)
  })
  return parsed.map((p) => p.e)
}

export type IndexLookup =
  | { readonly found: true; readonly entry: IndexEntry }
  | { readonly found: false; readonly reason: 'no-chart' | 'no-version'; readonly available: readonly string[] }

/** The entry for an exact version ("1.2.3" or "v1.2.3"); ranges are not accepted by the API, so none are tried. */
export function findChartVersion(index: RepositoryIndex, name: string, version: string): IndexLookup {
  const list = index.entries.get(name)
  if (list === undefined) return { found: false, reason: 'no-chart', available: [] }
  const exact = list.find((e) => e.version === version)
  if (exact !== undefined) return { found: true, entry: exact }
  const want: SemVer | undefined = parseSemver(version)
  const equal =
    want === undefined
      ? undefined
      : list.find((e) => {
          const v = parseSemver(e.version)
          return v !== undefined && compareSemver(v, want) === 0
        })
  if (equal !== undefined) return { found: true, entry: equal }
  return { found: false, reason: list.length === 0 ? 'no-chart' : 'no-version', available: list.slice(0, 5).map((e) => e.version) }
}

/**
 * Helm's ResolveReferenceURL: an absolute chart URL is used as it is; a
 * relative one resolves against the repository URL with a trailing "/", and
 * the repository URL's query string is carried over.
 */
export function resolveChartUrl(repoUrl: string, chartUrl: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(chartUrl)) return chartUrl
  const base = new URL(repoUrl)
  const query = base.search
  base.pathname = `${base.pathname.replace(/\/+$/, '')}/`
  base.search = ''
  const resolved = new URL(chartUrl, base)
  resolved.search = query
  return resolved.toString()
}
