// Ignored fields are not enforced, so a re-apply made to correct some other
// field must not reset them either: where the desired object sets a field that
// ignoreFields covers and the live object has a value there, the live value is
// sent instead. We keep owning the field (no ownership churn) without fighting
// whoever changed it, e.g. an HPA scaling spec.replicas.

import { isIgnoredPath } from '../fieldpath/match.ts'
import { isProtectedPath, PROTECTED_PATHS } from '../fieldpath/protected.ts'
import { SERVER_MANAGED_METADATA } from './server-managed.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import type { PathStep } from '../fieldpath/types.ts'

type Json = unknown

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function clone(v: Json): Json {
  return v === undefined ? undefined : structuredClone(v)
}

function walk(desired: Json, live: Json, ignore: CompiledIgnore, steps: PathStep[]): Json {
  if (steps.length > 0 && isIgnoredPath(ignore, steps) && !isProtectedPath(steps)) {
    return live === undefined ? desired : clone(live)
  }
  if (Array.isArray(desired)) {
    const liveArr = Array.isArray(live) ? live : []
    return desired.map((d, i) => {
      steps.push(i)
      const r = walk(d, liveArr[i], ignore, steps)
      steps.pop()
      return r
    })
  }
  if (isObject(desired)) {
    const liveObj = isObject(live) ? live : {}
    const out: Record<string, Json> = {}
    for (const [k, d] of Object.entries(desired)) {
      steps.push(k)
      out[k] = walk(d, Object.hasOwn(liveObj, k) ? liveObj[k] : undefined, ignore, steps)
      steps.pop()
    }
    return out
  }
  return desired
}

/**
 * Returns a copy of `desired` with ignored fields taken from `live` where it
 * has them. A live value taken whole (with `metadata` ignored, all of live
 * metadata) never brings what the API server writes itself, which an apply
 * may not send, and never replaces a protected key: those stay as rendered.
 */
export function preserveIgnoredFields<T>(desired: T, live: unknown, ignore: CompiledIgnore): T {
  if (live === undefined || live === null) return desired
  const out = walk(desired, live, ignore, [])
  if (!isObject(out) || !isObject(out.metadata)) return out as T
  const meta = out.metadata
  for (const k of SERVER_MANAGED_METADATA) delete meta[k]
  for (const path of PROTECTED_PATHS) restore(out, desired, path)
  return out as T
}

/** Sets `path` in `out` to its value in `desired`, or removes it where `desired` has none; `out` is our own copy. */
function restore(out: Record<string, Json>, desired: Json, path: readonly string[]): void {
  let from: Json = desired
  let to: Record<string, Json> = out
  for (const [i, key] of path.entries()) {
    const wanted = isObject(from) && Object.hasOwn(from, key) ? from[key] : undefined
    if (i === path.length - 1) {
      if (wanted === undefined) delete to[key]
      else to[key] = clone(wanted)
      return
    }
    if (wanted === undefined && !isObject(to[key])) return
    if (!isObject(to[key])) to[key] = {}
    to = to[key] as Record<string, Json>
    from = wanted
  }
}
