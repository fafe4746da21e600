// The methods of time.Time, time.Duration, time.Month, time.Weekday and
// *time.Location that a template can call (`now.Year`, `$t.Format "2006"`,
// `($t.Sub $u).Hours`). Go's template calls any method that returns one value,
// or a value and an error; the others (Clock, Date, ISOWeek, Zone,
// ZoneBounds) fail with Go's own message.

import { GoFuncError, GoInt, GoObject, GoTime, int64 } from '../value.ts'
import type { ArgKind, GoFuncSpec, GoValue } from '../value.ts'
import { dateOf, durationString, fields, formatTime, inZone, isDST, timeJSON, timeString, zoneAt, addDuration } from './gotime.ts'
import { bytesOf, bytesValue } from './types.ts'

const NS = 1_000_000_000n
const MAX_INT64 = (1n << 63n) - 1n
const MIN_INT64 = -(1n << 63n)
// Seconds from January 1 of year 1 (Go's zero time) to the Unix epoch.
const ZERO_TO_UNIX = 62_135_596_800

const monthNames = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const dayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

export const month = (m: number): GoInt => new GoInt(BigInt(m), 'int', 'time.Month')
export const weekday = (d: number): GoInt => new GoInt(BigInt(d), 'int', 'time.Weekday')
export const duration = (ns: bigint): GoInt => new GoInt(ns, 'int64', 'time.Duration')

const clampInt64 = (v: bigint): bigint => (v > MAX_INT64 ? MAX_INT64 : v < MIN_INT64 ? MIN_INT64 : v)

/** A *time.Location: the zone of a time (`.Location`), accepted by `.In`. */
export class TimeLocation extends GoObject {
  readonly goType = '*time.Location'
  readonly goKind = 'ptr'
  readonly zone: string
  constructor(zone: string) {
    super()
    this.zone = zone
  }
  method(name: string): GoFuncSpec | undefined {
    return name === 'String' ? bound([], () => locationName(this.zone)) : undefined
  }
}

// time.UTC (and time.Local, which is UTC here) is one pointer in Go.
const utcLocation = new TimeLocation('UTC')

function locationName(zone: string): string {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return 'UTC'
  if (zone.startsWith('Fixed:')) return zone.slice(zone.indexOf(':', 6) + 1)
  return zone
}

function bound(params: readonly ArgKind[], fn: (...args: GoValue[]) => GoValue): GoFuncSpec {
  return { fn, params }
}

const refused = (message: string): GoFuncSpec => ({ fn: () => null, params: [], unsupported: message })

const hasMono = (a: GoTime, b: GoTime): boolean => a.mono !== undefined && b.mono !== undefined

function compareTimes(a: GoTime, b: GoTime): number {
  if (hasMono(a, b)) return a.mono === b.mono ? 0 : (a.mono as bigint) < (b.mono as bigint) ? -1 : 1
  if (a.sec !== b.sec) return a.sec < b.sec ? -1 : 1
  return a.nsec === b.nsec ? 0 : a.nsec < b.nsec ? -1 : 1
}

function sub(t: GoTime, u: GoTime): bigint {
  if (hasMono(t, u)) return clampInt64((t.mono as bigint) - (u.mono as bigint))
  return clampInt64(t.epochNs - u.epochNs)
}

/** Nanoseconds since Go's zero time, for Round and Truncate. */
const sinceZero = (t: GoTime): bigint => (BigInt(t.sec) + BigInt(ZERO_TO_UNIX)) * NS + BigInt(t.nsec)

function truncate(t: GoTime, d: bigint): GoTime {
  const plain = new GoTime(t.sec, t.nsec, t.zone)
  if (d <= 0n) return plain
  const r = ((sinceZero(t) % d) + d) % d
  return addDuration(plain, -r)
}

function round(t: GoTime, d: bigint): GoTime {
  const plain = new GoTime(t.sec, t.nsec, t.zone)
  if (d <= 0n) return plain
  const r = ((sinceZero(t) % d) + d) % d
  return r + r < d ? addDuration(plain, -r) : addDuration(plain, d - r)
}

function addDate(t: GoTime, years: bigint, months: bigint, days: bigint): GoTime {
  const f = fields(t)
  return dateOf(f.year + Number(years), f.month + Number(months), f.day + Number(days), f.hour, f.minute, f.second, f.nsec, t.zone)
}

const encoder = new TextEncoder()

/** RFC 3339 text, or Go's error when the year has more or fewer than four digits. */
function rfc3339(t: GoTime, prefix: string): string {
  const s = timeJSON(t)
  if (s[4] !== '-') throw new GoFuncError(`${prefix}year outside of range [0,9999]`)
  return s
}

function concatBytes(a: Uint8Array | undefined, b: Uint8Array): GoValue[] {
  if (a === undefined || a.length === 0) return bytesValue(b)
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return bytesValue(out)
}

/** time.Time.AppendBinary's encoding: version, seconds since year 1, nanoseconds, zone offset in minutes. */
function binary(t: GoTime): Uint8Array {
  const utc = t.zone === '' || t.zone === 'UTC' || t.zone === 'Local'
  let version = 1
  let offsetMin = -1
  let offsetSec = 0
  if (!utc) {
    const offset = zoneAt(t.zone, t.sec).offset
    if (offset % 60 !== 0) {
      version = 2
      offsetSec = offset % 60
    }
    offsetMin = Math.trunc(offset / 60)
    if (offsetMin < -32768 || offsetMin === -1 || offsetMin > 32767) throw new GoFuncError('Time.MarshalBinary: unexpected zone offset')
  }
  const out = new Uint8Array(version === 2 ? 16 : 15)
  const view = new DataView(out.buffer)
  out[0] = version
  view.setBigInt64(1, BigInt(t.sec) + BigInt(ZERO_TO_UNIX))
  view.setInt32(9, t.nsec)
  view.setInt16(13, offsetMin)
  if (version === 2) view.setInt8(15, offsetSec)
  return out
}

const asTime = (v: GoValue): GoTime => v as GoTime

/** The time.Time method `name` with t as its receiver. */
export function timeMethod(t: GoTime, name: string): GoFuncSpec | undefined {
  switch (name) {
    case 'Year':
      return bound([], () => BigInt(fields(t).year))
    case 'Month':
      return bound([], () => month(fields(t).month))
    case 'Day':
      return bound([], () => BigInt(fields(t).day))
    case 'Hour':
      return bound([], () => BigInt(fields(t).hour))
    case 'Minute':
      return bound([], () => BigInt(fields(t).minute))
    case 'Second':
      return bound([], () => BigInt(fields(t).second))
    case 'Nanosecond':
      return bound([], () => BigInt(t.nsec))
    case 'YearDay':
      return bound([], () => BigInt(fields(t).yday))
    case 'Weekday':
      return bound([], () => weekday(fields(t).weekday))
    case 'Unix':
      return bound([], () => int64(BigInt(t.sec)))
    case 'UnixMilli':
      return bound([], () => int64(BigInt.asIntN(64, BigInt(t.sec) * 1000n + BigInt(Math.floor(t.nsec / 1e6)))))
    case 'UnixMicro':
      return bound([], () => int64(BigInt.asIntN(64, BigInt(t.sec) * 1_000_000n + BigInt(Math.floor(t.nsec / 1e3)))))
    case 'UnixNano':
      return bound([], () => int64(BigInt.asIntN(64, t.epochNs)))
    case 'Format':
      return bound(['string'], (layout) => formatTime(t, layout as string))
    case 'String':
      return bound([], () => timeString(t))
    case 'GoString':
      return bound([], () => timeGoString(t))
    case 'IsZero':
      return bound([], () => t.sec === -ZERO_TO_UNIX && t.nsec === 0)
    case 'IsDST':
      return bound([], () => isDST(t))
    case 'UTC':
    case 'Local':
      return bound([], () => inZone(t, 'UTC'))
    case 'Location':
      return bound([], () => (locationName(t.zone) === 'UTC' && !t.zone.startsWith('Fixed:') ? utcLocation : new TimeLocation(t.zone)))
    case 'In':
      return bound(['type:*time.Location'], (loc) => {
        if (!(loc instanceof TimeLocation)) throw new Error('time: missing Location in call to Time.In')
        return inZone(t, loc.zone)
      })
    case 'Add':
      return bound(['duration'], (d) => addDuration(t, d as bigint))
    case 'AddDate':
      return bound(['int', 'int', 'int'], (y, m, d) => addDate(t, y as bigint, m as bigint, d as bigint))
    case 'Sub':
      return bound(['time'], (u) => duration(sub(t, asTime(u))))
    case 'After':
      return bound(['time'], (u) => compareTimes(t, asTime(u)) > 0)
    case 'Before':
      return bound(['time'], (u) => compareTimes(t, asTime(u)) < 0)
    case 'Equal':
      return bound(['time'], (u) => compareTimes(t, asTime(u)) === 0)
    case 'Compare':
      return bound(['time'], (u) => BigInt(compareTimes(t, asTime(u))))
    case 'Round':
      return bound(['duration'], (d) => round(t, d as bigint))
    case 'Truncate':
      return bound(['duration'], (d) => truncate(t, d as bigint))
    case 'MarshalJSON':
      return bound([], () => bytesValue(encoder.encode(`"${rfc3339(t, 'Time.MarshalJSON: ')}"`)))
    case 'MarshalText':
      return bound([], () => bytesValue(encoder.encode(rfc3339(t, 'Time.MarshalText: '))))
    case 'AppendText':
      return bound(['bytes'], (b) => concatBytes(bytesOf(b), encoder.encode(rfc3339(t, 'Time.AppendText: '))))
    case 'AppendFormat':
      return bound(['bytes', 'string'], (b, layout) => concatBytes(bytesOf(b), encoder.encode(formatTime(t, layout as string))))
    case 'MarshalBinary':
    case 'GobEncode':
      return bound([], () => bytesValue(binary(t)))
    case 'AppendBinary':
      return bound(['bytes'], (b) => concatBytes(bytesOf(b), binary(t)))
    case 'Clock':
    case 'Date':
      return refused(`function ${name} has 3 return values; should be 1 or 2`)
    case 'ISOWeek':
      return refused(`invalid function signature for ISOWeek: second return value should be error; is int`)
    case 'Zone':
      return refused(`invalid function signature for Zone: second return value should be error; is int`)
    case 'ZoneBounds':
      return refused(`invalid function signature for ZoneBounds: second return value should be error; is time.Time`)
  }
  return undefined
}

/** time.Time.GoString(), which %#v prints. */
export function timeGoString(t: GoTime): string {
  const f = fields(t)
  let loc: string
  if (t.zone === '' || t.zone === 'UTC' || t.zone === 'Local') loc = 'time.UTC'
  else loc = `time.Location(${JSON.stringify(locationName(t.zone))})`
  return `time.Date(${f.year}, time.${monthNames[f.month - 1] ?? ''}, ${f.day}, ${f.hour}, ${f.minute}, ${f.second}, ${f.nsec}, ${loc})`
}

function durationRound(d: bigint, m: bigint): bigint {
  if (m <= 0n) return d
  let r = d % m
  if (d < 0n) {
    r = -r
    if (r + r < m) return d + r
    const d1 = d - m + r
    return d1 < MIN_INT64 ? MIN_INT64 : d1
  }
  if (r + r < m) return d - r
  const d1 = d + m - r
  return d1 > MAX_INT64 ? MAX_INT64 : d1
}

/** float64(d / unit) + float64(d % unit) / unit, as Duration.Hours, Minutes and Seconds compute it. */
const inUnits = (d: bigint, unit: bigint): number => Number(d / unit) + Number(d % unit) / Number(unit)

/** A method of a named integer type (time.Duration, time.Month, time.Weekday). */
export function namedIntMethod(v: GoInt, name: string): GoFuncSpec | undefined {
  const n = v.value
  switch (v.type) {
    case 'time.Month':
      if (name !== 'String') return undefined
      return bound([], () => (n >= 1n && n <= 12n ? (monthNames[Number(n) - 1] ?? '') : `%!Month(${BigInt.asUintN(64, n)})`))
    case 'time.Weekday':
      if (name !== 'String') return undefined
      return bound([], () => (n >= 0n && n <= 6n ? (dayNames[Number(n)] ?? '') : `%!Weekday(${BigInt.asUintN(64, n)})`))
    case 'time.Duration':
      switch (name) {
        case 'String':
          return bound([], () => durationString(n))
        case 'Hours':
          return bound([], () => inUnits(n, 3600n * NS))
        case 'Minutes':
          return bound([], () => inUnits(n, 60n * NS))
        case 'Seconds':
          return bound([], () => inUnits(n, NS))
        case 'Milliseconds':
          return bound([], () => int64(n / 1_000_000n))
        case 'Microseconds':
          return bound([], () => int64(n / 1000n))
        case 'Nanoseconds':
          return bound([], () => int64(n))
        case 'Abs':
          return bound([], () => duration(n >= 0n ? n : n === MIN_INT64 ? MAX_INT64 : -n))
        case 'Round':
          return bound(['duration'], (m) => duration(durationRound(n, m as bigint)))
        case 'Truncate':
          return bound(['duration'], (m) => duration((m as bigint) <= 0n ? n : n - (n % (m as bigint))))
      }
  }
  return undefined
}
