// import-values (chartutil.processDependencyImportValues, merge mode as
// helm install/template run it): bottom-up, each chart's defaults become
// its defaults merged with every subchart's (MergeValues, no user values),
// plus the tables its dependencies export:
//   "name"                 the child's exports.name table, at the parent's root
//   {child: a.b, parent: c} the child's a.b table, at the parent's c
// The parent's own values win over imported ones. Only tables import; a
// missing one is skipped (Helm logs a warning).

import { formatValue } from '../../gotemplate/fmt.ts'
import { toGoValue } from '../../gotemplate/index.ts'
import { coalesceTables, mergeValues } from './coalesce.ts'
import { deepCopy, isTable, type JsonMap, setKey, table } from './data.ts'
import type { RenderChart } from './model.ts'
import type { HelmMajor } from './types.ts'

function pathToMap(path: string, data: JsonMap): JsonMap {
  if (path === '.') return data
  let cur: JsonMap = data
  for (const part of path.split('.').reverse()) {
    const m: JsonMap = {}
    setKey(m, part, cur)
    cur = m
  }
  return cur
}

/** fmt's %v of a map entry, as Helm formats the child and parent paths. */
function sprintV(v: unknown): string {
  if (v === undefined) return '<nil>'
  return formatValue(toGoValue(v))
}

function processImportValues(helm: HelmMajor, c: RenderChart): void {
  if (c.dependencyEntries.length === 0 && c.source.metadata.dependencies.length === 0) return
  const cvals = mergeValues(helm, c, undefined)
  let b: JsonMap = {}
  for (const r of c.dependencyEntries) {
    const out: unknown[] = []
    for (const riv of r.importValues) {
      if (isTable(riv)) {
        const child = sprintV(riv.child)
        const parent = sprintV(riv.parent)
        out.push({ child, parent })
        const vv = table(cvals, `${r.name}.${child}`)
        if (vv === undefined) continue
        b = coalesceTables(b, pathToMap(parent, vv), true)
      } else if (typeof riv === 'string') {
        const child = `exports.${riv}`
        out.push({ child, parent: '.' })
        const vm = table(cvals, `${r.name}.${child}`)
        if (vm === undefined) continue
        b = coalesceTables(b, vm, true)
      }
    }
    r.importValues = out
  }
  c.values = coalesceTables(deepCopy(cvals), b, true)
}

export function processDependencyImportValues(helm: HelmMajor, c: RenderChart): void {
  for (const d of c.dependencies) processDependencyImportValues(helm, d)
  processImportValues(helm, c)
}
