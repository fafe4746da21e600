// Helm's value coalescing (chartutil CoalesceValues / MergeValues, Helm 4's
// common/util): user values over the chart's defaults, then each subchart's
// defaults under the parent's table for it, with globals copied downwards.
//
//  - Maps merge recursively; lists and scalars are replaced whole; a table
//    never overwrites a scalar nor the other way round (Helm warns, we too
//    stay silent and keep the higher-priority side).
//  - Coalesce mode (the render): a user null deletes a key the defaults
//    have; inside nested tables only when the default was not null. Keys
//    naming a subchart switch to merge mode, so the null reaches the
//    subchart and deletes its default there.
//  - Merge mode (import-values): nulls are kept.
//  - Helm 4 drops nulls of a chart's own defaults (cleanNilValues); Helm 3
//    keeps `x: null` from values.yaml as a present key.

import { toGoValue } from '../../gotemplate/index.ts'
import { sprintf } from '../../gotemplate/fmt.ts'
import type { HelmMajor } from './types.ts'
import { copyMap, deepCopy, hasKey, isTable, type JsonMap, setKey } from './data.ts'
import type { RenderChart } from './model.ts'
import { HelmRenderError } from './errors.ts'

const GLOBAL = 'global'

export function coalesceValues(helm: HelmMajor, chart: RenderChart, vals: JsonMap | undefined): JsonMap {
  return coalesce(helm, chart, deepCopy(vals ?? {}), false)
}

export function mergeValues(helm: HelmMajor, chart: RenderChart, vals: JsonMap | undefined): JsonMap {
  return coalesce(helm, chart, deepCopy(vals ?? {}), true)
}

function coalesce(helm: HelmMajor, ch: RenderChart, dest: JsonMap, merge: boolean): JsonMap {
  coalesceChartValues(helm, ch, dest, merge)
  for (const sub of ch.dependencies) {
    if (!hasKey(dest, sub.name)) setKey(dest, sub.name, {})
    const dv = dest[sub.name]
    if (!isTable(dv)) {
      throw new HelmRenderError('ValuesInvalid', `type mismatch on ${sub.name}: ${sprintf('%t', [toGoValue(dv)])}`)
    }
    coalesceGlobals(dv, dest)
    setKey(dest, sub.name, coalesce(helm, sub, dv, merge))
  }
  return dest
}

/** coalesceGlobals: the parent's globals copied into the subchart's, parent winning. */
function coalesceGlobals(dest: JsonMap, src: JsonMap): void {
  let dg: JsonMap
  let sg: JsonMap
  if (!hasKey(dest, GLOBAL)) dg = {}
  else {
    const g = dest[GLOBAL]
    if (!isTable(g)) return
    dg = g
  }
  if (!hasKey(src, GLOBAL)) sg = {}
  else {
    const g = src[GLOBAL]
    if (!isTable(g)) return
    sg = g
  }
  for (const [key, val] of Object.entries(sg)) {
    if (isTable(val)) {
      const vv = copyMap(val)
      if (!hasKey(dg, key)) setKey(dg, key, vv)
      else {
        const destv = dg[key]
        if (isTable(destv)) {
          coalesceTables(vv, destv, true)
          setKey(dg, key, vv)
        }
      }
    } else if (hasKey(dg, key) && isTable(dg[key])) {
      // A table is never replaced by a scalar.
    } else setKey(dg, key, val)
  }
  setKey(dest, GLOBAL, dg)
}

function cleanNilValues(m: JsonMap): void {
  for (const [k, v] of Object.entries(m)) {
    if (v === null) delete m[k]
    else if (isTable(v)) cleanNilValues(v)
  }
}

function coalesceChartValues(helm: HelmMajor, c: RenderChart, v: JsonMap, merge: boolean): void {
  const vc = deepCopy(c.values)
  for (const [key, val] of Object.entries(vc)) {
    if (hasKey(v, key)) {
      const value = v[key]
      if (value === null && !merge) delete v[key]
      else if (isTable(value)) {
        if (isTable(val)) {
          const childMerge = c.dependencies.some((d) => d.name === key) || merge
          if (helm === 'v4' && !childMerge) cleanNilValues(val)
          coalesceTables(value, val, childMerge)
        }
      }
    } else {
      if (helm === 'v4' && !merge) {
        if (val === null) continue
        if (isTable(val)) cleanNilValues(val)
      }
      setKey(v, key, val)
    }
  }
}

/** coalesceTablesFullKey: src's keys fill the gaps of dst; dst wins. Mutates both, as Helm does. */
export function coalesceTables(dst: JsonMap, src: JsonMap, merge: boolean): JsonMap {
  const srcOriginalNonNil = new Set<string>()
  for (const [k, v] of Object.entries(src)) if (v !== null) srcOriginalNonNil.add(k)
  for (const [k, v] of Object.entries(dst)) if (v === null) setKey(src, k, null)
  for (const [key, val] of Object.entries(src)) {
    const ok = hasKey(dst, key)
    const dv = dst[key]
    if (ok && !merge && dv === null && srcOriginalNonNil.has(key)) delete dst[key]
    else if (!ok) setKey(dst, key, val)
    else if (isTable(val)) {
      if (isTable(dv)) coalesceTables(dv, val, merge)
    }
  }
  return dst
}
