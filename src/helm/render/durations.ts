// Helm 4's duration helpers (pkg/engine/funcs.go): a value that is a
// time.Duration, a Go duration string ("1h30m"), a number of seconds (as
// an integer, a float or a numeric string) becomes a duration; the helpers
// return 0 where it does not, mustToDuration fails.

import { GoFuncError, GoInt, goInt, int64 } from '../../gotemplate/index.ts'
import type { GoFuncSpec, GoValue } from '../../gotemplate/index.ts'

const SECOND = 1_000_000_000n
const MAX_INT64 = 2n ** 63n - 1n
const MIN_INT64 = -(2n ** 63n)

const UNITS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
}

/** time.ParseDuration; undefined when it does not parse. */
function parseGoDuration(s: string): bigint | undefined {
  const m = /^([-+]?)((?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s)
  if (m === null) return undefined
  if (m[2] === '0') return 0n
  let total = 0
  for (const part of (m[2] ?? '').matchAll(/([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (UNITS[part[2] ?? 's'] ?? 1)
  }
  if (total >= 2 ** 63) return undefined
  const ns = BigInt(Math.round(total))
  return m[1] === '-' ? -ns : ns
}

class DurationError extends Error {}

function fromSecondsFloat(f: number): bigint {
  if (!Number.isFinite(f)) throw new DurationError(`invalid duration seconds: ${f}`)
  const nanos = f * 1e9
  if (nanos >= 2 ** 63 || nanos < -(2 ** 63)) throw new DurationError(`duration seconds overflow: ${f}`)
  return BigInt(Math.trunc(nanos))
}

function asDuration(v: GoValue): bigint {
  if (v instanceof GoInt && v.type === 'time.Duration') return v.value
  if (typeof v === 'string') {
    const s = v.trim()
    if (s === '') throw new DurationError('empty duration')
    const d = parseGoDuration(s)
    if (d !== undefined) return d
    const f = Number(s)
    if (s !== '' && !Number.isNaN(f)) return fromSecondsFloat(f)
    throw new DurationError(`could not parse duration ${JSON.stringify(v)}`)
  }
  if (v === null || v === undefined) throw new DurationError('invalid duration')
  if (typeof v === 'bigint' || v instanceof GoInt) {
    const n = typeof v === 'bigint' ? v : v.value
    const ns = n * SECOND
    if (ns > MAX_INT64 || ns < MIN_INT64) throw new DurationError(`duration seconds overflow: ${n}`)
    return ns
  }
  if (typeof v === 'number') return fromSecondsFloat(v)
  throw new DurationError('unsupported duration type')
}

const duration = (ns: bigint): GoValue => goInt(ns, 'int64', 'time.Duration')

/** The multiple of durationRoundTo/TruncateTo; undefined when it is not a duration (the value is then returned as it is). */
function multipleOf(m: GoValue): bigint | undefined {
  try {
    return asDuration(m)
  } catch (e) {
    if (e instanceof DurationError) return undefined
    throw e
  }
}

function orZero(v: GoValue, f: (ns: bigint) => GoValue, zero: GoValue): GoValue {
  try {
    return f(asDuration(v))
  } catch (e) {
    if (e instanceof DurationError) return zero
    throw e
  }
}

const spec = (params: GoFuncSpec['params'], fn: GoFuncSpec['fn']): GoFuncSpec => ({ fn, params })
const float = (ns: bigint, unit: number): number => Number(ns / 1_000_000_000n) * (1e9 / unit) + Number(ns % 1_000_000_000n) / unit

export const durationFuncs: Readonly<Record<string, GoFuncSpec>> = {
  mustToDuration: spec(['any'], (v) => {
    try {
      return duration(asDuration(v))
    } catch (e) {
      if (e instanceof DurationError) throw new GoFuncError(e.message)
      throw e
    }
  }),
  durationSeconds: spec(['any'], (v) => orZero(v, (ns) => float(ns, 1e9), 0)),
  durationMilliseconds: spec(['any'], (v) => orZero(v, (ns) => int64(ns / 1_000_000n), int64(0n))),
  durationMicroseconds: spec(['any'], (v) => orZero(v, (ns) => int64(ns / 1000n), int64(0n))),
  durationNanoseconds: spec(['any'], (v) => orZero(v, (ns) => int64(ns), int64(0n))),
  durationMinutes: spec(['any'], (v) => orZero(v, (ns) => float(ns, 60e9), 0)),
  durationHours: spec(['any'], (v) => orZero(v, (ns) => float(ns, 3600e9), 0)),
  durationDays: spec(['any'], (v) => orZero(v, (ns) => float(ns, 3600e9) / 24, 0)),
  durationWeeks: spec(['any'], (v) => orZero(v, (ns) => float(ns, 3600e9) / 24 / 7, 0)),
  durationRoundTo: spec(['any', 'any'], (v, m) =>
    orZero(
      v,
      (d) => {
        const mul = multipleOf(m)
        if (mul === undefined || mul <= 0n) return duration(d)
        let r = d % mul
        if (d < 0n) {
          r = -r
          return duration(r + r < mul ? d + r : d + r - mul)
        }
        return duration(r + r < mul ? d - r : d + mul - r)
      },
      duration(0n),
    ),
  ),
  durationTruncateTo: spec(['any', 'any'], (v, m) =>
    orZero(
      v,
      (d) => {
        const mul = multipleOf(m)
        return duration(mul === undefined || mul <= 0n ? d : d - (d % mul))
      },
      duration(0n),
    ),
  ),
}
