// Sprig's date functions over GoTime. "Local" is UTC, the zone the operator
// and the oracle run in. Integers are Unix seconds; any other non-time
// argument means "now", as in Sprig.

import { GoTime } from '../value.ts'
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
import { goTypeOf } from './types.ts'

const now = (): GoTime => new GoTime(Date.now(), 'UTC')

// time.Time{}: 0001-01-01 00:00:00 UTC.
const ZERO_TIME_MS = -62135596800000

function timeArg(v: GoValue): GoTime {
  if (!(v instanceof GoTime)) fail(`wrong type for value; expected time.Time; got ${goTypeOf(v)}`)
  return v
}

function toTime(v: GoValue): GoTime {
  if (v instanceof GoTime) return v
  if (typeof v === 'bigint') return fromUnix(v)
  return now()
}

function dateInZone(layout: string, date: GoValue, zone: string): string {
  return formatTime(inZone(toTime(date), isKnownZone(zone) ? zone : 'UTC'), layout)
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
    return new GoTime(ZERO_TIME_MS, 'UTC')
  }
}

const NS_PER_S = 1_000_000_000n

// Sprig's duration takes only int64 or a string. A template integer is an int
// in Go, so it gives "0s" there; the value model cannot tell int64 apart, and
// every integer is read as an int.
function duration(v: GoValue): string {
  let n = 0n
  if (typeof v === 'string') {
    const r = parseGoInt(v, 10)
    n = r === undefined ? 0n : typeof r === 'bigint' ? r : r.range
  }
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
  } else if (v instanceof GoTime) d = BigInt(Date.now() - v.epochMs) * 1_000_000n
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

function ago(v: GoValue): string {
  const t = v instanceof GoTime ? v : typeof v === 'bigint' ? fromUnix(v) : now()
  const ms = Date.now() - t.epochMs
  return durationString(BigInt(Math.round(ms / 1000)) * NS_PER_S)
}

export const dateFuncs: FuncMap = {
  now: fn([], () => now()),
  date: fn(['string', 'any'], (f, d) => dateInZone(str(f), d, 'Local')),
  dateInZone: fn(['string', 'any', 'string'], (f, d, z) => dateInZone(str(f), d, str(z))),
  date_in_zone: fn(['string', 'any', 'string'], (f, d, z) => dateInZone(str(f), d, str(z))),
  htmlDate: fn(['any'], (d) => dateInZone('2006-01-02', d, 'Local')),
  htmlDateInZone: fn(['any', 'string'], (d, z) => dateInZone('2006-01-02', d, str(z))),
  dateModify: fn(['string', 'any'], (s, t) => dateModify(str(s), timeArg(t), false)),
  date_modify: fn(['string', 'any'], (s, t) => dateModify(str(s), timeArg(t), false)),
  mustDateModify: fn(['string', 'any'], (s, t) => dateModify(str(s), timeArg(t), true)),
  must_date_modify: fn(['string', 'any'], (s, t) => dateModify(str(s), timeArg(t), true)),
  toDate: fn(['string', 'string'], (f, s) => toDate(str(f), str(s), false)),
  mustToDate: fn(['string', 'string'], (f, s) => toDate(str(f), str(s), true)),
  unixEpoch: fn(['any'], (t) => unixSeconds(timeArg(t)).toString()),
  duration: fn(['any'], duration),
  durationRound: fn(['any'], durationRound),
  ago: fn(['any'], ago),
}
