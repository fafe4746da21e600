// Go's time layouts ("2006-01-02 15:04:05 -0700 MST"), time.Parse and
// time.ParseDuration over the GoTime value, to the nanosecond.
//
// Zones: "UTC" (also "" and "Local": the operator, like the oracle, runs with
// UTC as its local zone), an IANA name such as "Europe/Berlin", or a fixed
// offset written "Fixed:<seconds>:<name>" as produced by parsing a numeric
// offset that is not the local one.

import { GoTime } from '../value.ts'

const SEC_PER_DAY = 86_400

const longDayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const longMonthNames = [
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
const shortName = (s: string): string => s.slice(0, 3)

/** Days since 1970-01-01 of a proleptic Gregorian date (any year). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

export function civilFromDays(z: number): { year: number; month: number; day: number } {
  z += 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp + (mp < 10 ? 3 : -9)
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const daysIn = (m: number, y: number): number =>
  m === 2 ? (isLeap(y) ? 29 : 28) : ([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 31)

// Abbreviations from the tz database for zones whose Intl short name is a bare
// GMT offset; [standard, daylight].
const zoneAbbrevs: Record<string, readonly [string, string]> = {
  'America/New_York': ['EST', 'EDT'],
  'America/Toronto': ['EST', 'EDT'],
  'America/Detroit': ['EST', 'EDT'],
  'America/Chicago': ['CST', 'CDT'],
  'America/Denver': ['MST', 'MDT'],
  'America/Phoenix': ['MST', 'MST'],
  'America/Los_Angeles': ['PST', 'PDT'],
  'America/Vancouver': ['PST', 'PDT'],
  'America/Anchorage': ['AKST', 'AKDT'],
  'Pacific/Honolulu': ['HST', 'HST'],
  'US/Eastern': ['EST', 'EDT'],
  'US/Central': ['CST', 'CDT'],
  'US/Mountain': ['MST', 'MDT'],
  'US/Pacific': ['PST', 'PDT'],
  'Europe/London': ['GMT', 'BST'],
  'Europe/Dublin': ['GMT', 'IST'],
  'Europe/Lisbon': ['WET', 'WEST'],
  'Europe/Berlin': ['CET', 'CEST'],
  'Europe/Paris': ['CET', 'CEST'],
  'Europe/Amsterdam': ['CET', 'CEST'],
  'Europe/Brussels': ['CET', 'CEST'],
  'Europe/Madrid': ['CET', 'CEST'],
  'Europe/Rome': ['CET', 'CEST'],
  'Europe/Vienna': ['CET', 'CEST'],
  'Europe/Zurich': ['CET', 'CEST'],
  'Europe/Stockholm': ['CET', 'CEST'],
  'Europe/Oslo': ['CET', 'CEST'],
  'Europe/Copenhagen': ['CET', 'CEST'],
  'Europe/Warsaw': ['CET', 'CEST'],
  'Europe/Prague': ['CET', 'CEST'],
  'Europe/Budapest': ['CET', 'CEST'],
  'Europe/Athens': ['EET', 'EEST'],
  'Europe/Helsinki': ['EET', 'EEST'],
  'Europe/Kiev': ['EET', 'EEST'],
  'Europe/Kyiv': ['EET', 'EEST'],
  'Europe/Bucharest': ['EET', 'EEST'],
  'Europe/Moscow': ['MSK', 'MSK'],
  'Asia/Tokyo': ['JST', 'JDT'],
  'Asia/Seoul': ['KST', 'KDT'],
  'Asia/Shanghai': ['CST', 'CDT'],
  'Asia/Hong_Kong': ['HKT', 'HKST'],
  'Asia/Kolkata': ['IST', 'IST'],
  'Asia/Calcutta': ['IST', 'IST'],
  'Asia/Jerusalem': ['IST', 'IDT'],
  'Australia/Sydney': ['AEST', 'AEDT'],
  'Australia/Melbourne': ['AEST', 'AEDT'],
  'Australia/Brisbane': ['AEST', 'AEDT'],
  'Australia/Adelaide': ['ACST', 'ACDT'],
  'Australia/Perth': ['AWST', 'AWDT'],
  'Pacific/Auckland': ['NZST', 'NZDT'],
  'Africa/Johannesburg': ['SAST', 'SAST'],
  'Africa/Cairo': ['EET', 'EEST'],
  'Africa/Lagos': ['WAT', 'WAT'],
  'Africa/Nairobi': ['EAT', 'EAT'],
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
      timeZoneName: 'short',
    })
    formatters.set(zone, f)
  }
  return f
}

/** Whether Go's time.LoadLocation would accept the name. */
export function isKnownZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return true
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone
    // Go reads zone files by exact name; Intl accepts any letter case.
    return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase()
  } catch {
    return false
  }
}

/** Offset east of UTC in seconds and Intl's short zone name at the instant (Unix seconds), for an IANA zone. */
function intlZone(zone: string, sec: number): { offset: number; name: string } {
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = formatterFor(zone).formatToParts(new Date(sec * 1000))
  } catch {
    return { offset: 0, name: 'UTC' }
  }
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '0'
  let year = Number(get('year'))
  if (get('era') === 'BC' || get('era') === 'B') year = 1 - year
  const local =
    daysFromCivil(year, Number(get('month')), Number(get('day'))) * 86400 +
    Number(get('hour')) * 3600 +
    Number(get('minute')) * 60 +
    Number(get('second'))
  return { offset: local - sec, name: get('timeZoneName') }
}

/** Offset east of UTC in seconds and the zone abbreviation at the instant (Unix seconds). */
export function zoneAt(zone: string, sec: number): { offset: number; name: string } {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return { offset: 0, name: 'UTC' }
  if (zone.startsWith('Fixed:')) {
    const rest = zone.slice(6)
    const i = rest.indexOf(':')
    return { offset: Number(rest.slice(0, i)), name: rest.slice(i + 1) }
  }
  const { offset, name: intlName } = intlZone(zone, sec)
  let name = intlName
  if (/^(GMT|UTC)([+-]|$)/.test(name)) {
    const known = zoneAbbrevs[zone]
    if (known) name = isDaylight(zone, sec, offset) ? known[1] : known[0]
    else if (!(offset === 0 && name === 'GMT')) {
      // The tz database names zones without letters by their offset, e.g. "+03" or "+0530".
      const m = Math.abs(offset) / 60
      name = (offset < 0 ? '-' : '+') + pad(Math.floor(m / 60), 2) + (m % 60 ? pad(m % 60, 2) : '')
    }
  }
  return { offset, name }
}

/** Daylight time is the larger of the January and July offsets of the year, when they differ. */
function isDaylight(zone: string, sec: number, offset: number): boolean {
  const year = civilFromDays(Math.floor(sec / SEC_PER_DAY)).year
  const jan = intlZone(zone, Date.UTC(year, 0, 1) / 1000).offset
  const jul = intlZone(zone, Date.UTC(year, 6, 1) / 1000).offset
  return jan !== jul && offset === Math.max(jan, jul)
}

/** time.Time.IsDST: fixed zones and UTC never are. */
export function isDST(t: GoTime): boolean {
  if (t.zone === '' || t.zone === 'UTC' || t.zone === 'Local' || t.zone.startsWith('Fixed:')) return false
  return isDaylight(t.zone, t.sec, zoneAt(t.zone, t.sec).offset)
}

const pad = (n: number, w: number): string => {
  const s = String(Math.abs(n)).padStart(w, '0')
  return n < 0 ? '-' + s : s
}

interface Fields {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  nsec: number
  weekday: number
  yday: number
  offset: number
  zoneName: string
}

export function fields(t: GoTime): Fields {
  const { offset, name } = zoneAt(t.zone, t.sec)
  const local = t.sec + offset
  const days = Math.floor(local / SEC_PER_DAY)
  const secOfDay = local - days * SEC_PER_DAY
  const { year, month, day } = civilFromDays(days)
  return {
    year,
    month,
    day,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor(secOfDay / 60) % 60,
    second: secOfDay % 60,
    nsec: t.nsec,
    weekday: (((days + 4) % 7) + 7) % 7,
    yday: days - daysFromCivil(year, 1, 1) + 1,
    offset,
    zoneName: name,
  }
}

// Layout elements, named after the reference time's parts.
type Std =
  | { k: 'lit' }
  | { k: 'LongMonth' | 'Month' | 'NumMonth' | 'ZeroMonth' | 'LongWeekDay' | 'WeekDay' | 'Day' | 'UnderDay' | 'ZeroDay' }
  | { k: 'UnderYearDay' | 'ZeroYearDay' | 'Hour' | 'Hour12' | 'ZeroHour12' | 'Minute' | 'ZeroMinute' | 'Second' | 'ZeroSecond' }
  | { k: 'LongYear' | 'Year' | 'PM' | 'pm' | 'TZ' }
  | { k: 'ISO8601TZ' | 'ISO8601SecondsTZ' | 'ISO8601ShortTZ' | 'ISO8601ColonTZ' | 'ISO8601ColonSecondsTZ' }
  | { k: 'NumTZ' | 'NumSecondsTz' | 'NumShortTZ' | 'NumColonTZ' | 'NumColonSecondsTZ' }
  | { k: 'FracSecond0' | 'FracSecond9'; digits: number; sep: string }

interface Chunk {
  prefix: string
  std: Std
  suffix: string
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57
const startsWithLower = (s: string): boolean => s.length > 0 && s.charCodeAt(0) >= 97 && s.charCodeAt(0) <= 122

function nextStdChunk(layout: string): Chunk {
  const at = (i: number, n: number, std: Std): Chunk => ({ prefix: layout.slice(0, i), std, suffix: layout.slice(i + n) })
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i]
    const rest = layout.slice(i)
    switch (c) {
      case 'J':
        if (rest.startsWith('Jan')) {
          if (rest.startsWith('January')) return at(i, 7, { k: 'LongMonth' })
          if (!startsWithLower(rest.slice(3))) return at(i, 3, { k: 'Month' })
        }
        break
      case 'M':
        if (rest.startsWith('Mon')) {
          if (rest.startsWith('Monday')) return at(i, 6, { k: 'LongWeekDay' })
          if (!startsWithLower(rest.slice(3))) return at(i, 3, { k: 'WeekDay' })
        }
        if (rest.startsWith('MST')) return at(i, 3, { k: 'TZ' })
        break
      case '0': {
        const d = layout[i + 1]
        if (d !== undefined && d >= '1' && d <= '6') {
          const k = (['ZeroMonth', 'ZeroDay', 'ZeroHour12', 'ZeroMinute', 'ZeroSecond', 'Year'] as const)[Number(d) - 1] ?? 'Year'
          return at(i, 2, { k })
        }
        if (rest.startsWith('002')) return at(i, 3, { k: 'ZeroYearDay' })
        break
      }
      case '1':
        if (layout[i + 1] === '5') return at(i, 2, { k: 'Hour' })
        return at(i, 1, { k: 'NumMonth' })
      case '2':
        if (rest.startsWith('2006')) return at(i, 4, { k: 'LongYear' })
        return at(i, 1, { k: 'Day' })
      case '_':
        if (layout[i + 1] === '2') {
          // "_2006" is a literal underscore followed by the long year.
          if (rest.startsWith('_2006')) return { prefix: layout.slice(0, i + 1), std: { k: 'LongYear' }, suffix: layout.slice(i + 5) }
          return at(i, 2, { k: 'UnderDay' })
        }
        if (rest.startsWith('__2')) return at(i, 3, { k: 'UnderYearDay' })
        break
      case '3':
        return at(i, 1, { k: 'Hour12' })
      case '4':
        return at(i, 1, { k: 'Minute' })
      case '5':
        return at(i, 1, { k: 'Second' })
      case 'P':
        if (layout[i + 1] === 'M') return at(i, 2, { k: 'PM' })
        break
      case 'p':
        if (layout[i + 1] === 'm') return at(i, 2, { k: 'pm' })
        break
      case '-':
        if (rest.startsWith('-070000')) return at(i, 7, { k: 'NumSecondsTz' })
        if (rest.startsWith('-07:00:00')) return at(i, 9, { k: 'NumColonSecondsTZ' })
        if (rest.startsWith('-0700')) return at(i, 5, { k: 'NumTZ' })
        if (rest.startsWith('-07:00')) return at(i, 6, { k: 'NumColonTZ' })
        if (rest.startsWith('-07')) return at(i, 3, { k: 'NumShortTZ' })
        break
      case 'Z':
        if (rest.startsWith('Z070000')) return at(i, 7, { k: 'ISO8601SecondsTZ' })
        if (rest.startsWith('Z07:00:00')) return at(i, 9, { k: 'ISO8601ColonSecondsTZ' })
        if (rest.startsWith('Z0700')) return at(i, 5, { k: 'ISO8601TZ' })
        if (rest.startsWith('Z07:00')) return at(i, 6, { k: 'ISO8601ColonTZ' })
        if (rest.startsWith('Z07')) return at(i, 3, { k: 'ISO8601ShortTZ' })
        break
      case '.':
      case ',': {
        const d = layout[i + 1]
        if (d === '0' || d === '9') {
          let j = i + 1
          while (j < layout.length && layout[j] === d) j++
          // Only a run of one digit that ends here is a fractional second.
          if (!isDigitAt(layout, j)) {
            return {
              prefix: layout.slice(0, i),
              std: { k: d === '0' ? 'FracSecond0' : 'FracSecond9', digits: j - (i + 1), sep: c },
              suffix: layout.slice(j),
            }
          }
        }
        break
      }
    }
  }
  return { prefix: layout, std: { k: 'lit' }, suffix: '' }
}

function appendFrac(nsec: number, std: { k: 'FracSecond0' | 'FracSecond9'; digits: number; sep: string }): string {
  let digits = String(nsec).padStart(9, '0').slice(0, Math.min(std.digits, 9))
  if (std.k === 'FracSecond9') {
    digits = digits.replace(/0+$/, '')
    if (digits === '') return ''
  }
  return std.sep + digits
}

/** time.Time.Format. */
export function formatTime(t: GoTime, layout: string): string {
  const f = fields(t)
  let out = ''
  while (layout !== '') {
    const { prefix, std, suffix } = nextStdChunk(layout)
    out += prefix
    if (std.k === 'lit') break
    layout = suffix
    switch (std.k) {
      case 'Year':
        out += pad(((f.year % 100) + 100) % 100, 2)
        break
      case 'LongYear':
        out += pad(f.year, 4)
        break
      case 'Month':
        out += shortName(longMonthNames[f.month - 1] ?? '')
        break
      case 'LongMonth':
        out += longMonthNames[f.month - 1] ?? ''
        break
      case 'NumMonth':
        out += String(f.month)
        break
      case 'ZeroMonth':
        out += pad(f.month, 2)
        break
      case 'WeekDay':
        out += shortName(longDayNames[f.weekday] ?? '')
        break
      case 'LongWeekDay':
        out += longDayNames[f.weekday] ?? ''
        break
      case 'Day':
        out += String(f.day)
        break
      case 'UnderDay':
        out += (f.day < 10 ? ' ' : '') + String(f.day)
        break
      case 'ZeroDay':
        out += pad(f.day, 2)
        break
      case 'UnderYearDay':
        out += String(f.yday).padStart(3, ' ')
        break
      case 'ZeroYearDay':
        out += pad(f.yday, 3)
        break
      case 'Hour':
        out += pad(f.hour, 2)
        break
      case 'Hour12':
        out += String(f.hour % 12 === 0 ? 12 : f.hour % 12)
        break
      case 'ZeroHour12':
        out += pad(f.hour % 12 === 0 ? 12 : f.hour % 12, 2)
        break
      case 'Minute':
        out += String(f.minute)
        break
      case 'ZeroMinute':
        out += pad(f.minute, 2)
        break
      case 'Second':
        out += String(f.second)
        break
      case 'ZeroSecond':
        out += pad(f.second, 2)
        break
      case 'PM':
        out += f.hour >= 12 ? 'PM' : 'AM'
        break
      case 'pm':
        out += f.hour >= 12 ? 'pm' : 'am'
        break
      case 'TZ':
        if (f.zoneName !== '') out += f.zoneName
        else {
          const z = Math.trunc(f.offset / 60)
          out += (z < 0 ? '-' : '+') + pad(Math.floor(Math.abs(z) / 60), 2) + pad(Math.abs(z) % 60, 2)
        }
        break
      case 'FracSecond0':
      case 'FracSecond9':
        out += appendFrac(f.nsec, std)
        break
      default: {
        const k = std.k
        const iso = k.startsWith('ISO')
        if (f.offset === 0 && iso) {
          out += 'Z'
          break
        }
        let zone = Math.trunc(f.offset / 60)
        let abs = f.offset
        if (zone < 0) {
          out += '-'
          zone = -zone
          abs = -abs
        } else out += '+'
        out += pad(Math.floor(zone / 60), 2)
        const colon = k.includes('Colon')
        if (colon) out += ':'
        if (!k.includes('Short')) out += pad(zone % 60, 2)
        if (k.includes('Seconds')) {
          if (colon) out += ':'
          out += pad(abs % 60, 2)
        }
      }
    }
  }
  return out
}

/** time.Time.String(), with the monotonic clock reading of a time.Now value (" m=+0.001234567"). */
export function timeString(t: GoTime): string {
  const s = formatTime(t, '2006-01-02 15:04:05.999999999 -0700 MST')
  if (t.mono === undefined) return s
  const neg = t.mono < 0n
  const m = neg ? -t.mono : t.mono
  return `${s} m=${neg ? '-' : '+'}${m / 1_000_000_000n}.${(m % 1_000_000_000n).toString().padStart(9, '0')}`
}

export function fromUnix(sec: bigint, zone = 'UTC'): GoTime {
  return new GoTime(Number(sec), 0, zone)
}

export function unixSeconds(t: GoTime): bigint {
  return BigInt(t.sec)
}

export class TimeParseError extends Error {}

function quoteForError(s: string): string {
  return '"' + s.replaceAll('\\', '\\\\').replaceAll('"', '\\"') + '"'
}

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw new TimeParseError('bad')
  if (!isDigitAt(s, 1)) {
    if (fixed) throw new TimeParseError('bad')
    return [Number(s[0]), s.slice(1)]
  }
  return [Number(s.slice(0, 2)), s.slice(2)]
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0
  let i = 0
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + Number(s[i])
  if (i === 0 || (fixed && i !== 3)) throw new TimeParseError('bad')
  return [n, s.slice(i)]
}

function cutspace(s: string): string {
  let i = 0
  while (i < s.length && s[i] === ' ') i++
  return s.slice(i)
}

function skip(value: string, prefix: string): string {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') throw new TimeParseError('bad')
      prefix = cutspace(prefix)
      value = cutspace(value)
      continue
    }
    if (value.length === 0 || value[0] !== prefix[0]) throw new TimeParseError('bad')
    prefix = prefix.slice(1)
    value = value.slice(1)
  }
  return value
}

function lookup(tab: readonly string[], val: string): [number, string] {
  for (let i = 0; i < tab.length; i++) {
    const v = tab[i] ?? ''
    if (val.length >= v.length && val.slice(0, v.length).toLowerCase() === v.toLowerCase()) return [i, val.slice(v.length)]
  }
  throw new TimeParseError('bad')
}

// parseTimeZone from Go's time package: how long a zone abbreviation is.
function parseTimeZone(value: string): number {
  if (value.length < 3) return 0
  if (value.length >= 4 && (value.startsWith('ChST') || value.startsWith('MeST'))) return 4
  if (value.startsWith('GMT')) return parseGMT(value)
  if (value[0] === '+' || value[0] === '-') return parseSignedOffset(value)
  let n = 0
  for (; n < value.length; n++) {
    const c = value.charCodeAt(n)
    if (c < 65 || c > 90) break
  }
  switch (n) {
    case 0:
    case 1:
    case 2:
    case 6:
      return 0
    case 5:
      return value[4] === 'T' ? 5 : 0
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : 0
    case 3:
      return 3
  }
  return 0
}

function parseGMT(value: string): number {
  value = value.slice(3)
  if (value.length === 0) return 3
  return 3 + parseSignedOffset(value)
}

function parseSignedOffset(value: string): number {
  const sign = value[0]
  if (sign !== '-' && sign !== '+') return 0
  let i = 1
  while (i < value.length && isDigitAt(value, i)) i++
  const x = Number(value.slice(1, i))
  if (i === 1 || i - 1 > 9 || x > 24) return 0
  return i
}

/**
 * time.ParseInLocation with the local zone being UTC. Throws TimeParseError
 * with Go's message.
 */
export function parseTime(layout: string, value: string): GoTime {
  const alayout = layout
  const avalue = value
  const fail = (elem: string, valueElem: string, msg = ''): never => {
    throw new TimeParseError(
      msg !== ''
        ? `parsing time ${quoteForError(avalue)}${msg}`
        : `parsing time ${quoteForError(avalue)} as ${quoteForError(alayout)}: cannot parse ${quoteForError(valueElem)} as ${quoteForError(elem)}`,
    )
  }
  let year = 0
  let month = -1
  let day = -1
  let yday = -1
  let hour = 0
  let min = 0
  let sec = 0
  let nsec = 0
  let zoneOffset = -1
  let zoneName = ''
  let utc = false
  let pmSet = false
  let amSet = false
  let rangeErr = ''
  for (;;) {
    const { prefix, std, suffix } = nextStdChunk(layout)
    const stdstr = layout.slice(prefix.length, layout.length - suffix.length)
    try {
      value = skip(value, prefix)
    } catch {
      fail(prefix, value)
    }
    if (std.k === 'lit') {
      if (value.length !== 0) fail('', '', ': extra text: ' + quoteForError(value))
      break
    }
    layout = suffix
    const hold = value
    let bad = false
    try {
      switch (std.k) {
        case 'Year': {
          if (value.length < 2) throw new TimeParseError('bad')
          const p = value.slice(0, 2)
          if (!/^[0-9]{2}$/.test(p)) throw new TimeParseError('bad')
          year = Number(p)
          value = value.slice(2)
          year += year >= 69 ? 1900 : 2000
          break
        }
        case 'LongYear':
          if (value.length < 4 || !/^[0-9]{4}$/.test(value.slice(0, 4))) throw new TimeParseError('bad')
          year = Number(value.slice(0, 4))
          value = value.slice(4)
          break
        case 'Month':
          ;[month, value] = lookup(longMonthNames.map(shortName), value)
          month++
          break
        case 'LongMonth':
          ;[month, value] = lookup(longMonthNames, value)
          month++
          break
        case 'NumMonth':
        case 'ZeroMonth':
          ;[month, value] = getnum(value, std.k === 'ZeroMonth')
          if (month <= 0 || month > 12) rangeErr = 'month'
          break
        case 'WeekDay':
          ;[, value] = lookup(longDayNames.map(shortName), value)
          break
        case 'LongWeekDay':
          ;[, value] = lookup(longDayNames, value)
          break
        case 'Day':
        case 'UnderDay':
        case 'ZeroDay':
          if (std.k === 'UnderDay' && value.length > 0 && value[0] === ' ') value = value.slice(1)
          ;[day, value] = getnum(value, std.k === 'ZeroDay')
          break
        case 'UnderYearDay':
        case 'ZeroYearDay':
          for (let i = 0; i < 2; i++) if (std.k === 'UnderYearDay' && value.length > 0 && value[0] === ' ') value = value.slice(1)
          ;[yday, value] = getnum3(value, std.k === 'ZeroYearDay')
          if (yday < 1 || yday > 366) rangeErr = 'day-of-year'
          break
        case 'Hour':
          ;[hour, value] = getnum(value, false)
          if (hour < 0 || hour >= 24) rangeErr = 'hour'
          break
        case 'Hour12':
        case 'ZeroHour12':
          ;[hour, value] = getnum(value, std.k === 'ZeroHour12')
          if (hour < 0 || hour > 12) rangeErr = 'hour'
          break
        case 'Minute':
        case 'ZeroMinute':
          ;[min, value] = getnum(value, std.k === 'ZeroMinute')
          if (min < 0 || min >= 60) rangeErr = 'minute'
          break
        case 'Second':
        case 'ZeroSecond': {
          ;[sec, value] = getnum(value, std.k === 'ZeroSecond')
          if (sec < 0 || sec >= 60) {
            rangeErr = 'second'
            break
          }
          // A fractional second in the value without one in the layout.
          if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
            const next = nextStdChunk(layout).std.k
            if (next === 'FracSecond0' || next === 'FracSecond9') break
            let n = 2
            while (n < value.length && isDigitAt(value, n)) n++
            nsec = parseNanoseconds(value, n)
            value = value.slice(n)
          }
          break
        }
        case 'PM': {
          if (value.length < 2) throw new TimeParseError('bad')
          const p = value.slice(0, 2)
          value = value.slice(2)
          if (p === 'PM') pmSet = true
          else if (p === 'AM') amSet = true
          else throw new TimeParseError('bad')
          break
        }
        case 'pm': {
          if (value.length < 2) throw new TimeParseError('bad')
          const p = value.slice(0, 2)
          value = value.slice(2)
          if (p === 'pm') pmSet = true
          else if (p === 'am') amSet = true
          else throw new TimeParseError('bad')
          break
        }
        case 'TZ': {
          if (value.length >= 3 && value.startsWith('UTC')) {
            utc = true
            value = value.slice(3)
            break
          }
          const n = parseTimeZone(value)
          if (n === 0) throw new TimeParseError('bad')
          zoneName = value.slice(0, n)
          value = value.slice(n)
          break
        }
        case 'FracSecond0': {
          const ndigit = 1 + std.digits
          if (value.length < ndigit) throw new TimeParseError('bad')
          nsec = parseNanoseconds(value, ndigit)
          value = value.slice(ndigit)
          break
        }
        case 'FracSecond9': {
          if (value.length < 2 || !(value[0] === '.' || value[0] === ',') || !isDigitAt(value, 1)) break
          let i = 0
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++
          nsec = parseNanoseconds(value, 1 + i)
          value = value.slice(1 + i)
          break
        }
        default: {
          const k = std.k
          if (k.startsWith('ISO') && value.length >= 1 && value[0] === 'Z') {
            value = value.slice(1)
            utc = true
            break
          }
          let sign: string
          let hh: string
          let mm = '00'
          let ss = '00'
          const colon = k.includes('Colon')
          if (k.includes('Short')) {
            if (value.length < 3) throw new TimeParseError('bad')
            sign = value[0] ?? ''
            hh = value.slice(1, 3)
            value = value.slice(3)
          } else if (colon && k.includes('Seconds')) {
            if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw new TimeParseError('bad')
            sign = value[0] ?? ''
            hh = value.slice(1, 3)
            mm = value.slice(4, 6)
            ss = value.slice(7, 9)
            value = value.slice(9)
          } else if (k.includes('Seconds')) {
            if (value.length < 7) throw new TimeParseError('bad')
            sign = value[0] ?? ''
            hh = value.slice(1, 3)
            mm = value.slice(3, 5)
            ss = value.slice(5, 7)
            value = value.slice(7)
          } else if (colon) {
            if (value.length < 6 || value[3] !== ':') throw new TimeParseError('bad')
            sign = value[0] ?? ''
            hh = value.slice(1, 3)
            mm = value.slice(4, 6)
            value = value.slice(6)
          } else {
            if (value.length < 5) throw new TimeParseError('bad')
            sign = value[0] ?? ''
            hh = value.slice(1, 3)
            mm = value.slice(3, 5)
            value = value.slice(5)
          }
          const num = (s: string, max: number): number => {
            if (!/^[0-9]{2}$/.test(s)) throw new TimeParseError('bad')
            const n = Number(s)
            if (n > max) rangeErr = 'time zone offset'
            return n
          }
          const h = num(hh, 24)
          const m = num(mm, 60)
          const s = num(ss, 60)
          let off = (h * 60 + m) * 60 + s
          if (sign === '-') off = -off
          else if (sign !== '+') throw new TimeParseError('bad')
          zoneOffset = off
        }
      }
    } catch (e) {
      if (!(e instanceof TimeParseError)) throw e
      bad = true
    }
    if (rangeErr !== '') fail('', '', `: ${rangeErr} out of range`)
    if (bad) fail(stdstr, hold)
  }
  if (pmSet && hour < 12) hour += 12
  else if (amSet && hour === 12) hour = 0
  if (yday >= 0) {
    const daysBefore = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]
    let d = 0
    let m = 0
    if (isLeap(year)) {
      if (yday === 31 + 29) {
        m = 2
        d = 29
      } else if (yday > 31 + 29) yday--
    }
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1
      if ((daysBefore[m] ?? 365) < yday) m++
      d = yday - (daysBefore[m - 1] ?? 0)
    }
    if (month >= 0 && month !== m) fail('', '', ': day-of-year does not match month')
    month = m
    if (day >= 0 && day !== d) fail('', '', ': day-of-year does not match day')
    day = d
  } else {
    if (month < 0) month = 1
    if (day < 0) day = 1
  }
  if (day < 1 || day > daysIn(month, year)) fail('', '', ': day out of range')
  const wall = daysFromCivil(year, month, day) * SEC_PER_DAY + (hour * 60 + min) * 60 + sec
  if (utc) return new GoTime(wall, nsec, 'UTC')
  if (zoneOffset !== -1) {
    const epoch = wall - zoneOffset
    // The local zone (UTC) when it matches, else a fixed zone keeping the parsed name.
    if (zoneOffset === 0 && (zoneName === '' || zoneName === 'UTC')) return new GoTime(epoch, nsec, 'UTC')
    return new GoTime(epoch, nsec, `Fixed:${zoneOffset}:${zoneName}`)
  }
  if (zoneName !== '') {
    if (zoneName === 'UTC') return new GoTime(wall, nsec, 'UTC')
    let offset = 0
    if (zoneName.length > 3 && zoneName.startsWith('GMT')) offset = Number(zoneName.slice(3)) * 3600
    return new GoTime(wall - offset, nsec, `Fixed:${offset}:${zoneName}`)
  }
  return new GoTime(wall, nsec, 'UTC')
}

function parseNanoseconds(value: string, nbytes: number): number {
  if (!(value[0] === '.' || value[0] === ',')) throw new TimeParseError('bad')
  if (nbytes > 10) {
    value = value.slice(0, 10)
    nbytes = 10
  }
  const digits = value.slice(1, nbytes)
  if (!/^[0-9]*$/.test(digits)) throw new TimeParseError('bad')
  let ns = Number(digits || '0')
  for (let i = 0; i < 10 - nbytes; i++) ns *= 10
  return ns
}

/** time.ParseDuration in nanoseconds. */
export function parseDuration(s: string): bigint {
  const orig = s
  const invalid = (): never => {
    throw new TimeParseError('time: invalid duration ' + quoteForError(orig))
  }
  let d = 0n
  let neg = false
  if (s !== '') {
    const c = s[0]
    if (c === '-' || c === '+') {
      neg = c === '-'
      s = s.slice(1)
    }
  }
  if (s === '0') return 0n
  if (s === '') invalid()
  const units: Record<string, bigint> = {
    ns: 1n,
    us: 1000n,
    µs: 1000n,
    μs: 1000n,
    ms: 1_000_000n,
    s: 1_000_000_000n,
    m: 60_000_000_000n,
    h: 3_600_000_000_000n,
  }
  while (s !== '') {
    if (!(s[0] === '.' || isDigitAt(s, 0))) invalid()
    let i = 0
    while (isDigitAt(s, i)) i++
    const intPart = s.slice(0, i)
    s = s.slice(i)
    let frac = ''
    const pre = intPart !== ''
    if (s[0] === '.') {
      s = s.slice(1)
      let j = 0
      while (isDigitAt(s, j)) j++
      frac = s.slice(0, j)
      s = s.slice(j)
    }
    if (!pre && frac === '') invalid()
    let u = 0
    while (u < s.length && s[u] !== '.' && !isDigitAt(s, u)) u++
    if (u === 0) throw new TimeParseError('time: missing unit in duration ' + quoteForError(orig))
    const unitName = s.slice(0, u)
    s = s.slice(u)
    const unit = units[unitName]
    if (unit === undefined)
      throw new TimeParseError('time: unknown unit ' + quoteForError(unitName) + ' in duration ' + quoteForError(orig))
    let v = BigInt(intPart || '0') * unit
    if (frac !== '') {
      // Go keeps the fraction to float64 precision; for the units above this is exact enough.
      const scale = 10n ** BigInt(frac.length)
      v += (BigInt(frac) * unit) / scale
    }
    d += v
    if (d > 9223372036854775807n) invalid()
  }
  return neg ? -d : d
}

/** time.Duration.String(). */
export function durationString(ns: bigint): string {
  if (ns === 0n) return '0s'
  const neg = ns < 0n
  let u = neg ? -ns : ns
  let out: string
  if (u < 1_000_000_000n) {
    let unit: string
    let scale: bigint
    if (u < 1000n) return (neg ? '-' : '') + u.toString() + 'ns'
    else if (u < 1_000_000n) {
      unit = 'µs'
      scale = 1000n
    } else {
      unit = 'ms'
      scale = 1_000_000n
    }
    out = fracString(u, scale) + unit
  } else {
    const h = u / 3_600_000_000_000n
    u -= h * 3_600_000_000_000n
    const m = u / 60_000_000_000n
    u -= m * 60_000_000_000n
    out = fracString(u, 1_000_000_000n) + 's'
    if (h > 0n) out = `${h}h${m}m` + out
    else if (m > 0n) out = `${m}m` + out
  }
  return (neg ? '-' : '') + out
}

function fracString(v: bigint, scale: bigint): string {
  const whole = v / scale
  let frac = (v % scale)
    .toString()
    .padStart(scale.toString().length - 1, '0')
    .replace(/0+$/, '')
  if (frac !== '') frac = '.' + frac
  return whole.toString() + frac
}

/** time.Time.Add with a duration in nanoseconds; a monotonic reading moves along. */
export function addDuration(t: GoTime, ns: bigint): GoTime {
  const s = ns / 1_000_000_000n
  const rest = Number(ns - s * 1_000_000_000n)
  return new GoTime(t.sec + Number(s), t.nsec + rest, t.zone, t.mono === undefined ? undefined : t.mono + ns)
}

/** time.Time.In for a zone that exists; unknown zones were mapped to UTC by the caller. Drops the monotonic reading. */
export function inZone(t: GoTime, zone: string): GoTime {
  return new GoTime(t.sec, t.nsec, zone === 'Local' || zone === '' ? 'UTC' : zone)
}

/**
 * time.Date: the instant of a wall clock time in a zone, with out-of-range
 * months, days, hours... carried over as Go does. For a zone with daylight
 * saving, the offset is looked up as Go looks it up (first at the wall time
 * read as UTC, then at the corrected instant).
 */
export function dateOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  min: number,
  sec: number,
  nsec: number,
  zone: string,
): GoTime {
  // Normalise month into 1..12 and nsec into a second, carrying into the larger units.
  const m0 = month - 1
  year += Math.floor(m0 / 12)
  month = m0 - Math.floor(m0 / 12) * 12 + 1
  const carry = Math.floor(nsec / 1e9)
  sec += carry
  nsec -= carry * 1e9
  const local = (daysFromCivil(year, month, 1) + day - 1) * SEC_PER_DAY + hour * 3600 + min * 60 + sec
  let offset = zoneAt(zone, local).offset
  if (offset !== 0) {
    const again = zoneAt(zone, local - offset).offset
    if (again !== offset) offset = again
  }
  return new GoTime(local - offset, nsec, zone)
}

/** RFC 3339 with nanoseconds, as time.Time.MarshalJSON writes it. */
export function timeJSON(t: GoTime): string {
  return formatTime(t, '2006-01-02T15:04:05.999999999Z07:00')
}
