// How much of a TemplateInstance's status may carry values that come from
// outside the reconciler (exposed parameter values, extracted outputs). The
// API server refuses an object over its storage limit (about 1.5 MiB with the
// spec), and a refused status write would leave the instance without any
// condition; so values over these bounds are left out, and the condition
// names them. Pure; docs/status-and-discovery.md has the budget.

import type { OutputValues, ResolvedParameter } from '../api/templateinstance.ts'

export interface StatusBounds {
  /** Serialized (JSON) bytes one value may take. */
  readonly valueBytes: number
  /** Serialized bytes all values together may take; values are kept in order until the next would exceed it. */
  readonly totalBytes: number
}

/** status.resolvedParameters values. */
export const PARAMETER_BOUNDS: StatusBounds = Object.freeze({ valueBytes: 16 * 1024, totalBytes: 64 * 1024 })

/** status.outputs values (each is at most 4096 bytes already: src/outputs/extract.ts). */
export const OUTPUT_BOUNDS: StatusBounds = Object.freeze({ valueBytes: 16 * 1024, totalBytes: 256 * 1024 })

export interface LeftOut {
  /** The parameter's name, or "<output field>/<key>". */
  readonly name: string
  /** Its serialized size. */
  readonly bytes: number
  /** Which bound it broke: its own size, or what the values before it left of the total. */
  readonly over: 'value' | 'total'
}

const sizeOf = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8')

/** Walks values in order and says which fit; the ones that do not are left out. */
function fit(entries: readonly { readonly name: string; readonly value: unknown }[], bounds: StatusBounds): LeftOut[] {
  const out: LeftOut[] = []
  let total = 0
  for (const { name, value } of entries) {
    const bytes = sizeOf(value)
    if (bytes > bounds.valueBytes) out.push({ name, bytes, over: 'value' })
    else if (total + bytes > bounds.totalBytes) out.push({ name, bytes, over: 'total' })
    else total += bytes
  }
  return out
}

/** resolvedParameters with every value over the bounds taken out (the entry stays, with its valueFrom). */
export function boundParameters(
  resolved: readonly ResolvedParameter[],
  bounds: StatusBounds = PARAMETER_BOUNDS,
): { readonly resolved: ResolvedParameter[]; readonly leftOut: LeftOut[] } {
  const leftOut = fit(
    resolved.flatMap((p) => (p.value === undefined ? [] : [{ name: p.name, value: p.value }])),
    bounds,
  )
  if (leftOut.length === 0) return { resolved: [...resolved], leftOut }
  const names = new Set(leftOut.map((l) => l.name))
  return {
    resolved: resolved.map((p) => {
      if (!names.has(p.name)) return p
      const copy = { ...p }
      delete copy.value
      return copy
    }),
    leftOut,
  }
}

/** status.outputs with every value over the bounds taken out; a field left with no key goes too. */
export function boundOutputs(
  outputs: OutputValues,
  bounds: StatusBounds = OUTPUT_BOUNDS,
): { readonly outputs: OutputValues; readonly leftOut: LeftOut[] } {
  const entries = Object.entries(outputs).flatMap(([field, keys]) =>
    Object.entries(keys).map(([key, value]) => ({ name: `${field}/${key}`, field, key, value })),
  )
  const leftOut = fit(entries, bounds)
  if (leftOut.length === 0) return { outputs, leftOut }
  const names = new Set(leftOut.map((l) => l.name))
  const kept: OutputValues = {}
  for (const e of entries) if (!names.has(e.name)) (kept[e.field] ??= {})[e.key] = e.value
  return { outputs: kept, leftOut }
}

/** The left-out values in words, for a condition message. */
export function leftOutText(leftOut: readonly LeftOut[], bounds: StatusBounds): string {
  return leftOut
    .map(
      (l) =>
        `${JSON.stringify(l.name)} (${l.bytes} bytes; ` +
        (l.over === 'value'
          ? `each value may take at most ${bounds.valueBytes} bytes)`
          : `all values together may take at most ${bounds.totalBytes} bytes)`),
    )
    .join(', ')
}
