// The in-memory chart: what Helm's loader (pkg/chart/loader) produces, as
// plain typed data. Loading sorts the files into these buckets and checks
// Chart.yaml; everything that depends on values (enabling dependencies,
// aliases, import-values, coalescing, schema validation) happens later, at
// render time, on this model.

import type { HelmVersion } from '../../api/types.ts'

export type { HelmVersion }

/** JSON data as sigs.k8s.io/yaml decodes it: every number a float64, maps with string keys. */
export type JsonMap = { [key: string]: unknown }

export interface ChartFile {
  /** '/'-separated path relative to the chart root, e.g. "templates/deployment.yaml". */
  readonly name: string
  /** Contents with a leading UTF-8 byte order mark removed, as Helm stores them. */
  readonly data: Buffer
}

export interface ChartMaintainer {
  readonly name: string
  readonly email: string
  readonly url: string
}

/** A `dependencies[]` entry of Chart.yaml (or requirements.yaml for apiVersion v1). */
export interface ChartDependency {
  readonly name: string
  /** A version or range matched against the subchart's version. */
  readonly version: string
  readonly repository: string
  /** Comma-separated dotted value paths; the first one that holds a bool decides. */
  readonly condition: string
  readonly tags: readonly string[]
  /** As written in the file; Helm sets it during dependency processing. */
  readonly enabled: boolean
  /** Each item a string (an `exports.<name>` table) or a {child, parent} map, unchecked as in Helm. */
  readonly importValues: readonly unknown[]
  readonly alias: string
}

/**
 * Chart.yaml. String fields are sanitised as Helm does (whitespace becomes a
 * space, non-printable characters are dropped). A field that was absent is
 * its zero value, as in Go; `annotations` is undefined when absent.
 */
export interface ChartMetadata {
  readonly name: string
  readonly home: string
  readonly sources: readonly string[]
  readonly version: string
  readonly description: string
  readonly keywords: readonly string[]
  readonly maintainers: readonly ChartMaintainer[]
  readonly icon: string
  /** "v1" when Chart.yaml has none (Helm 2 charts); "v2" for current charts. */
  readonly apiVersion: string
  readonly condition: string
  readonly tags: string
  readonly appVersion: string
  readonly deprecated: boolean
  readonly annotations: Readonly<Record<string, string>> | undefined
  /** A SemVer constraint on the cluster version, checked at render time. */
  readonly kubeVersion: string
  readonly dependencies: readonly ChartDependency[]
  /** "", "application" or "library". */
  readonly type: string
}

/** Chart.lock (or requirements.lock). */
export interface ChartLock {
  /** RFC 3339 text, "" when absent. */
  readonly generated: string
  readonly digest: string
  readonly dependencies: readonly ChartDependency[]
}

export interface Chart {
  readonly metadata: ChartMetadata
  readonly lock: ChartLock | undefined
  /** values.yaml as written (comments and all); undefined when the chart has none. */
  readonly valuesRaw: string | undefined
  /**
   * values.yaml decoded as the selected Helm major reads it: Helm 3 reads the
   * first YAML document only, Helm 4 merges all documents in order. `{}`
   * when there is no values.yaml.
   */
  readonly values: JsonMap
  /** values.schema.json as written; undefined when absent. */
  readonly schema: Buffer | undefined
  /** templates/**, partials (_*.tpl) and NOTES.txt included, in load order. */
  readonly templates: readonly ChartFile[]
  /** The files of crds/ with a .yaml, .yml or .json extension (they are in `files` too, as in Helm). */
  readonly crds: readonly ChartFile[]
  /** Everything `.Files` sees: all files that are not Chart.yaml, values, schema, lock, templates or subcharts. */
  readonly files: readonly ChartFile[]
  /** Charts found in charts/, as directories or .tgz archives, sorted by their entry name there. */
  readonly subcharts: readonly Subchart[]
}

export interface Subchart {
  /** The entry under charts/ it was loaded from: "redis-17.3.0.tgz" or "common". */
  readonly entry: string
  readonly chart: Chart
}
