// The chart tree a render works on. The loaded Chart is frozen and shared
// between renders; dependency processing renames (alias), removes
// (condition, tags) and re-values (import-values) charts, so each render
// builds its own mutable tree over the frozen one.

import type { Chart, ChartDependency, ChartMetadata, JsonMap } from '../chart/types.ts'
import { deepCopy } from './data.ts'

export interface DependencyEntry extends Omit<ChartDependency, 'importValues'> {
  enabled: boolean
  name: string
  importValues: unknown[]
}

export interface RenderChart {
  readonly source: Chart
  /** Metadata.Name: the alias for an aliased subchart. */
  name: string
  metadata: ChartMetadata
  /** Chart.yaml dependencies as processing leaves them (disabled ones removed, names replaced by aliases). */
  dependencyEntries: DependencyEntry[]
  /** The chart's default values; import-values replaces them. */
  values: JsonMap
  dependencies: RenderChart[]
  parent: RenderChart | undefined
}

export function renderTree(chart: Chart, parent?: RenderChart): RenderChart {
  const node: RenderChart = {
    source: chart,
    name: chart.metadata.name,
    metadata: chart.metadata,
    dependencyEntries: chart.metadata.dependencies.map((d) => ({ ...d, importValues: [...d.importValues] })),
    values: deepCopy(chart.values),
    dependencies: [],
    parent,
  }
  node.dependencies = chart.subcharts.map((s) => renderTree(s.chart, node))
  return node
}

/** A copy of a subchart under another name (Helm's getAliasDependency copies the chart struct). */
export function aliasCopy(c: RenderChart, name: string): RenderChart {
  const copy: RenderChart = { ...c, name, metadata: { ...c.metadata, name }, values: deepCopy(c.values) }
  copy.dependencyEntries = c.dependencyEntries.map((d) => ({ ...d, importValues: [...d.importValues] }))
  copy.dependencies = c.dependencies.map((d) => reparent(d, copy))
  return copy
}

function reparent(c: RenderChart, parent: RenderChart): RenderChart {
  const copy: RenderChart = { ...c, parent, values: deepCopy(c.values) }
  copy.dependencyEntries = c.dependencyEntries.map((d) => ({ ...d, importValues: [...d.importValues] }))
  copy.dependencies = c.dependencies.map((d) => reparent(d, copy))
  return copy
}

export function isRoot(c: RenderChart): boolean {
  return c.parent === undefined
}

/** ChartFullPath: "root/charts/sub/charts/subsub", with names (aliases), never directory names. */
export function chartFullPath(c: RenderChart): string {
  return c.parent === undefined ? c.name : `${chartFullPath(c.parent)}/charts/${c.name}`
}

export function isLibrary(c: RenderChart): boolean {
  return c.metadata.type.toLowerCase() === 'library'
}
