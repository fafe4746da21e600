// Dependency processing before a render (chartutil.processDependencyEnabled):
// charts in charts/ are matched to Chart.yaml entries by name and version
// range, aliased copies replace them, then tags and conditions, read from the
// values coalesced at each level, drop the disabled ones from the tree and
// from Chart.yaml's list. Unmatched charts stay, first, always enabled.

import { semverCompare } from '../../gotemplate/sprig/semver.ts'
import { coalesceValues } from './coalesce.ts'
import { isTable, type JsonMap, pathValue, table } from './data.ts'
import { HelmRenderError } from './errors.ts'
import { aliasCopy, type DependencyEntry, type RenderChart } from './model.ts'
import type { HelmMajor } from './types.ts'

/** chartutil.IsCompatibleRange: false when either side does not parse. */
export function isCompatibleRange(constraint: string, version: string): boolean {
  try {
    return semverCompare(constraint, version)
  } catch {
    return false
  }
}

/** action.CheckDependencies for the chart being rendered. */
export function checkDependencies(helm: HelmMajor, c: RenderChart): void {
  const missing = c.dependencyEntries.filter((r) => !c.dependencies.some((d) => d.name === r.name)).map((r) => r.name)
  if (missing.length > 0) {
    throw new HelmRenderError(
      'MissingDependency',
      `${helm === 'v3' ? 'An error occurred while checking for chart dependencies. You may need to run `helm dependency build`' : "an error occurred while checking for chart dependencies. You may need to run 'helm dependency build'"} to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: ${missing.join(', ')}`,
    )
  }
}

function processTags(reqs: readonly DependencyEntry[], cvals: JsonMap): void {
  const vt = table(cvals, 'tags')
  if (vt === undefined) return
  for (const r of reqs) {
    let hasTrue = false
    let hasFalse = false
    for (const k of r.tags) {
      if (!Object.hasOwn(vt, k)) continue
      const b = vt[k]
      if (b === true) hasTrue = true
      else if (b === false) hasFalse = true
    }
    if (!hasTrue && hasFalse) r.enabled = false
    else r.enabled = true
  }
}

function processConditions(reqs: readonly DependencyEntry[], cvals: JsonMap, cpath: string): void {
  for (const r of reqs) {
    for (const c of r.condition.trim().split(',')) {
      if (c.length === 0) continue
      const vv = pathValue(cvals, cpath + c)
      if (vv !== undefined && typeof vv.value === 'boolean') {
        r.enabled = vv.value
        break
      }
    }
  }
}

export function processDependencyEnabled(helm: HelmMajor, c: RenderChart, v: JsonMap, path: string): void {
  if (c.dependencyEntries.length === 0 && c.source.metadata.dependencies.length === 0) return
  const deps: RenderChart[] = []
  for (const existing of c.dependencies) {
    const matched = c.dependencyEntries.some(
      (req) => existing.name === req.name && isCompatibleRange(req.version, existing.metadata.version),
    )
    if (!matched) deps.push(existing)
  }
  for (const req of c.dependencyEntries) {
    const found = c.dependencies.find((ch) => ch.name === req.name && isCompatibleRange(req.version, ch.metadata.version))
    if (found !== undefined) deps.push(aliasCopy(found, req.alias !== '' ? req.alias : found.name))
    if (req.alias !== '') req.name = req.alias
  }
  c.dependencies = deps
  for (const r of c.dependencyEntries) r.enabled = true
  const cvals = coalesceValues(helm, c, v)
  processTags(c.dependencyEntries, cvals)
  processConditions(c.dependencyEntries, cvals, path)
  const removed = new Set(c.dependencyEntries.filter((r) => !r.enabled).map((r) => r.name))
  c.dependencies = c.dependencies.filter((d) => !removed.has(d.name))
  c.dependencyEntries = c.dependencyEntries.filter((r) => !removed.has(r.name))
  for (const t of c.dependencies) processDependencyEnabled(helm, t, cvals, `${path}${t.name}.`)
}

export { isTable }
