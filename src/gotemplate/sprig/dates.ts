// Sprig's date functions over GoTime. "Local" is UTC, the zone the operator
// and the oracle run in. Integers of the Go types Sprig names (int, int64,
// int32 for date; int and int64 for ago) are Unix seconds; any other non-time
// argument means "now", as in Sprig.

import { GoInt, GoTime } from '../value.ts'
import type { FuncMap, GoValue } from '../value.ts'
import {
  addDuration,
  durationString,
  formatTime,
  fromUnix,
  inZone,
  isKnownZone,
  parseDuration,
  parseTime,
  TimeParseError,
  unixSeconds,
} from './gotime.ts'
import { parseGoInt } from './convert.ts'
import { fail, fn, str } from './spec.ts'

/**
 * time.Now: the wall clock to the precision the platform gives (about a
 * microsecond), with a monotonic reading since the process started.
 */
export function now(): GoTime {
  const elapsed = performance.now()
  const ms = performance.timeOrigin + elapsed
  const sec = Math.floor(ms / 1000)
  return new GoTime(sec, Math.round((ms - sec * 1000) * 1e6), 'UTC', BigInt(Math.round(elapsed * 1e6)))
}

// time.Time{}: 0001-01-01 00:00:00 UTC.
const ZERO_TIME_SEC = -62135596800

/** An int, or an int64 or int32 when `types` lists them, as Sprig's type switches accept; else undefined. */
function unixArg(v: GoValue, types: ReadonlySet<string>): bigint | undefined {
  if (typeof v === 'bigint') return v
  return v instanceof GoInt && types.has(v.type) ? v.value : undefined
}

const dateTypes: ReadonlySet<string> = new Set(['int64', 'int32'])
const agoTypes: ReadonlySet<string> = new Set(['int64'])

function toTime(v: GoValue, types: ReadonlySet<string>): GoTime {
  if (v instanceof GoTime) return v
  const sec = unixArg(v, types)
  return sec !== undefined ? fromUnix(sec) : now()
}

function dateInZone(layout: string, date: GoValue, zone: string): string {
  return formatTime(inZone(toTime(date, dateTypes), isKnownZone(zone) ? zone : 'UTC'), layout)
}

function dateModify(spec: string, t: GoTime, must: boolean): GoTime {
  try {
    return addDuration(t, parseDuration(spec))
  } catch (e) {
    if (!(e instanceof TimeParseError)) throw e
    if (must) fail(e.message)
    return t
  }
}

function toDate(layout: string, value: string, must: boolean): GoTime {
  try {
    return parseTime(layout, value)
  } catch (e) {
    if (!(e instanceof TimeParseError)) throw e
    if (must) fail(e.message)
    return new GoTime(ZERO_TIME_SEC, 0, 'UTC')
  }
}

const NS_PER_S = 1_000_000_000n

// Sprig's duration takes only an int64 (seconds) or a string. A template
// integer literal is an int in Go, so it gives "0s"; (int64 95) or "95" work.
function duration(v: GoValue): string {
  let n = 0n
  if (typeof v === 'string') {
    const r = parseGoInt(v, 10)
    n = r === undefined ? 0n : typeof r === 'bigint' ? r : r.range
  } else if (v instanceof GoInt && v.type === 'int64') n = v.value
  return durationString(BigInt.asIntN(64, n * NS_PER_S))
}

function durationRound(v: GoValue): string {
  let d = 0n
  if (typeof v === 'string') {
    try {
      d = parseDuration(v)
    } catch (e) {
      if (!(e instanceof TimeParseError)) throw e
    }
  } else if (v instanceof GoInt && v.type === 'int64') d = v.value
  else if (v instanceof GoTime) d = sinceNs(v)
  let u = d < 0n ? -d : d
  u = BigInt.asUintN(64, u)
  const second = NS_PER_S
  const minute = 60n * second
  const hour = 60n * minute
  const day = 24n * hour
  const month = 30n * day
  const year = 365n * day
  if (u > year) return `${u / year}y`
  if (u > month) return `${u / month}mo`
  if (u > day) return `${u / day}d`
  if (u > hour) return `${u / hour}h`
  if (u > minute) return `${u / minute}m`
  if (u > second) return `${u / second}s`
  return '0s'
}

/** time.Since in nanoseconds. */
function sinceNs(t: GoTime): bigint {
  const n = now()
  if (t.mono !== undefined && n.mono !== undefined) return n.mono - t.mono
  return n.epochNs - t.epochNs
}

function ago(v: GoValue): string {
  const d = sinceNs(toTime(v, agoTypes))
  // Duration.Round(time.Second): halves round away from zero.
  const r = d % NS_PER_S
  const abs = r < 0n ? -r : r
  const rounded = abs + abs < NS_PER_S ? d - r : d + (d < 0n ? -NS_PER_S - r : NS_PER_S - r)
  return durationString(rounded)
}

export const dateFuncs: FuncMap = {
  now: fn([], () => now()),
  date: fn(['string', 'any'], (f, d) => dateInZone(str(f), d, 'Local')),
  dateInZone: fn(['string', 'any', 'string'], (f, d, z) => dateInZone(str(f), d, str(z))),
  date_in_zone: fn(['string', 'any', 'string'], (f, d, z) => dateInZone(str(f), d, str(z))),
  htmlDate: fn(['any'], (d) => dateInZone('2006-01-02', d, 'Local')),
  htmlDateInZone: fn(['any', 'string'], (d, z) => dateInZone('2006-01-02', d, str(z))),
  dateModify: fn(['string', 'time'], (s, t) => dateModify(str(s), t as GoTime, false)),
  date_modify: fn(['string', 'time'], (s, t) => dateModify(str(s), t as GoTime, false)),
  mustDateModify: fn(['string', 'time'], (s, t) => dateModify(str(s), t as GoTime, true)),
  must_date_modify: fn(['string', 'time'], (s, t) => dateModify(str(s), t as GoTime, true)),
  toDate: fn(['string', 'string'], (f, s) => toDate(str(f), str(s), false)),
  mustToDate: fn(['string', 'string'], (f, s) => toDate(str(f), str(s), true)),
  unixEpoch: fn(['time'], (t) => unixSeconds(t as GoTime).toString()),
  duration: fn(['any'], duration),
  durationRound: fn(['any'], durationRound),
  ago: fn(['any'], ago),
}
