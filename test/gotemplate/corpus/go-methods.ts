// Methods of the values Sprig returns, called the way Go's template calls
// them: *semver.Version and semver.Version (Major is a uint64, IncPatch
// returns a Version value with fewer methods), time.Time with every method
// that returns one value (Format takes an argument, Add a time.Duration, Sub
// returns one), time.Month and time.Weekday, and Go's refusals for methods
// with other results (Clock, Zone). Also pointer and struct equality with eq,
// fmt and JSON of these values, and unexported fields.

import { group } from './case.ts'
import type { Case } from './case.ts'

const S = 'semver-method'
const T = 'time-method'

const versions: Readonly<Record<string, string>> = {
  plain: '"1.2.3"',
  pre: '"v1.2.3-beta.1+build.5"',
  rc: '"2.0.0-rc.1"',
  short: '"1.2"',
  major: '"v3"',
}

const versionMethods = [
  'String',
  'Original',
  'Major',
  'Minor',
  'Patch',
  'Prerelease',
  'Metadata',
  'IncPatch',
  'IncMinor',
  'IncMajor',
  'MarshalJSON',
  'MarshalText',
  'Value',
]

const comparisons = ['Compare', 'LessThan', 'LessThanEqual', 'GreaterThan', 'GreaterThanEqual', 'Equal']

function semverCases(): Case[] {
  const out: Case[] = []
  for (const [v, text] of Object.entries(versions)) {
    for (const m of versionMethods) {
      out.push({ name: `${S}/${m}-${v}`, template: `{{ (semver ${text}).${m} }}|{{ printf "%T" (semver ${text}).${m} }}` })
    }
  }
  for (const m of versionMethods) out.push({ name: `${S}/value-${m}`, template: `{{ (semver "1.2.3").IncPatch.${m} }}` })
  const others: Readonly<Record<string, string>> = { same: '"1.2.3"', patch: '"1.2.4"', older: '"1.0.0"', pre: '"1.2.3-a"' }
  for (const m of comparisons) {
    for (const [o, text] of Object.entries(others))
      out.push({ name: `${S}/${m}-${o}`, template: `{{ (semver "1.2.3").${m} (semver ${text}) }}` })
  }
  return out
}

const semverRows: ReadonlyArray<readonly [string, string]> = [
  ['value-no-pointer-method', '{{ (semver "1.2.3").IncPatch.Original }}'],
  ['value-no-compare', '{{ (semver "1.2.3").IncPatch.LessThan (semver "2.0.0") }}'],
  ['unexported-field', '{{ (semver "1.2.3").major }}'],
  ['no-such-method', '{{ (semver "1.2.3").Nope }}'],
  ['method-extra-arg', '{{ (semver "1.2.3").Major 1 }}'],
  ['method-missing-arg', '{{ (semver "1.2.3").LessThan }}'],
  ['method-string-arg', '{{ (semver "1.2.3").LessThan "1.2.4" }}'],
  ['compare-nil', '{{ (semver "1.2.3").LessThan nil }}'],
  ['equal-nil', '{{ (semver "1.2.3").Equal nil }}'],
  ['set-prerelease', '{{ (semver "1.2.3").SetPrerelease "alpha.1" }}'],
  ['set-prerelease-zero', '{{ (semver "v1.2.3").SetPrerelease "01" }}'],
  ['set-prerelease-bad', '{{ (semver "v1.2.3").SetPrerelease "a_b" }}'],
  ['set-metadata', '{{ (semver "v1.2.3+x").SetMetadata "b.7" }}'],
  ['set-metadata-empty', '{{ (semver "v1.2.3+x").SetMetadata "" }}'],
  ['set-metadata-bad', '{{ (semver "v1.2.3+x").SetMetadata "a b" }}'],
  ['set-prerelease-original', '{{ ((semver "v1.2.3").SetPrerelease "rc").Original }}'],
  [
    'eq-pointer',
    '{{ $v := semver "1.2.3" }}{{ eq $v $v }} {{ eq (semver "1.2.3") (semver "1.2.3") }} {{ eq $v.IncPatch $v.IncPatch }} {{ eq $v.IncPatch $v }}',
  ],
  [
    'ne-deepEqual',
    '{{ $v := semver "1.2.3" }}{{ ne $v $v }} {{ deepEqual (semver "1.2.3") (semver "1.2.3") }} {{ deepEqual (semver "1.2.3") (semver "1.2.4") }}',
  ],
  ['fmt-pointer', '{{ $v := semver "1.2.3" }}{{ printf "%v|%s|%d|%+v|%T" $v $v $v $v $v }}'],
  ['fmt-value', '{{ $v := (semver "1.2.3").IncMinor }}{{ printf "%v|%s|%d|%+v|%#v|%T" $v $v $v $v $v $v }}'],
  ['toJson', '{{ toJson (semver "1.2.3") }} {{ toJson (semver "1.2.3").IncMajor }} {{ toJson (list (semver "1.0.0")) }}'],
  ['toPrettyJson', '{{ toPrettyJson (dict "v" (semver "1.2.3")) }}'],
  ['strval', '{{ toString (semver "1.2.3") }} {{ quote (semver "1.2.3") }} {{ cat (semver "1.2.3") "x" }}'],
  [
    'bytes',
    '{{ (semver "1.2.3").MarshalJSON | toString }} {{ printf "%s" (semver "1.2.3").MarshalJSON }} {{ printf "%x" (semver "1.2.3").MarshalText }}',
  ],
  [
    'kinds',
    '{{ kindOf (semver "1.2.3") }} {{ kindOf (semver "1.2.3").IncPatch }} {{ typeIs "*semver.Version" (semver "1") }} {{ typeIsLike "semver.Version" (semver "1") }}',
  ],
  ['truth', '{{ empty (semver "0.0.0") }} {{ if semver "0.0.0" }}t{{ end }} {{ default "d" (semver "0.0.0") }}'],
  ['len', '{{ len (semver "1.2.3") }}'],
  ['index', '{{ index (semver "1.2.3") 0 }}'],
  ['range', '{{ range semver "1.2.3" }}{{ end }}'],
  ['deepCopy', '{{ deepCopy (semver "1.2.3") }}'],
  ['in-dict', '{{ $d := dict "v" (semver "1.2.3") }}{{ $d.v.Major }} {{ $d.v.IncPatch }}'],
  ['in-dict-unexported', '{{ $d := dict "v" (semver "1.2.3") }}{{ $d.v.major }}'],
  ['in-dict-missing', '{{ $d := dict "v" (semver "1.2.3") }}{{ $d.v.Nope }}'],
  [
    'with-dot',
    '{{ with semver "1.4.0" }}{{ if .GreaterThan (semver "1.3.0") }}new{{ else }}old{{ end }} {{ .Major }}.{{ .Minor }}{{ end }}',
  ],
  [
    'uint64-arith',
    '{{ $v := semver "1.2.3" }}{{ if eq $v.Major 1 }}one{{ end }} {{ lt $v.Minor 3 }} {{ add $v.Major 1 }} {{ typeOf (add $v.Patch 0) }}',
  ],
  ['uint64-trunc', '{{ $v := semver "1.2.3" }}{{ trunc $v.Major "abc" }}'],
  ['chain', '{{ $v := semver "1.2.3" }}{{ $v.IncPatch.IncPatch.IncMinor }}'],
  ['string-has-no-fields', '{{ (semver "1.2.3").String.Foo }}'],
  ['inc-prerelease', '{{ (semver "1.2.3-a").IncPatch }} {{ (semver "v1.2.3-a").IncPatch.Original }}'],
  ['round-trip', '{{ semver "1.2.3" | toString | semver | printf "%T" }}'],
  ['print-list', '{{ printf "%v" (list (semver "1.0.0") (semver "2.0.0").IncMajor) }}'],
  ['cert-unknown-field', '{{ $c := genCA "x" 1 }}{{ $c.cert }}'],
  ['cert-missing-field', '{{ $c := genCA "x" 1 }}{{ $c.Nope }}'],
  ['cert-field-args', '{{ $c := genCA "x" 1 }}{{ $c.Cert 1 }}'],
  [
    'cert-shape',
    '{{ $c := genCA "x" 1 }}{{ printf "%T %s" $c (kindOf $c) }} {{ hasPrefix "{-----BEGIN" (toString $c) }} {{ hasPrefix "{\\"Cert\\":" (toJson $c) }}',
  ],
  ['cert-in-dict', '{{ $c := genCA "x" 1 }}{{ $d := dict "c" $c }}{{ $d.c.Nope }}'],
  ['cert-eq', '{{ $c := genCA "x" 1 }}{{ eq $c $c }} {{ deepEqual $c $c }}'],
  ['cert-arg-string', '{{ genSignedCert "x" nil nil 1 "notacert" }}'],
  ['cert-arg-map', '{{ genSignedCert "x" nil nil 1 (dict) }}'],
]

const times: Readonly<Record<string, string>> = {
  nanos: 'toDate "2006-01-02T15:04:05.999999999Z07:00" "2024-02-29T13:45:30.123456789Z"',
  offset: 'toDate "2006-01-02 15:04:05 -0700" "1999-12-31 23:59:59 -0530"',
  zero: 'toDate "2006-01-02" "0001-01-01"',
  abbrev: 'toDate "2006-01-02 MST" "2024-07-04 PDT"',
  rfc822: 'toDate "02 Jan 06 15:04 MST" "05 Nov 23 08:09 UTC"',
  beforeEpoch: 'toDate "2006-01-02T15:04:05Z07:00" "1969-12-31T23:59:59.5Z"',
}

const timeMethods = [
  'Year',
  'Month',
  'Day',
  'Hour',
  'Minute',
  'Second',
  'Nanosecond',
  'YearDay',
  'Weekday',
  'Unix',
  'UnixMilli',
  'UnixMicro',
  'UnixNano',
  'String',
  'GoString',
  'IsZero',
  'IsDST',
  'UTC',
  'Local',
  'Location',
  'MarshalJSON',
  'MarshalText',
  'MarshalBinary',
  'GobEncode',
]

function timeCases(): Case[] {
  const out: Case[] = []
  const add = (slug: string, body: string, t: string, name: string): void => {
    out.push({ name: `${T}/${slug}-${name}`, template: `{{ $t := ${t} }}${body}` })
  }
  for (const [name, t] of Object.entries(times)) {
    for (const m of timeMethods) add(m, `{{ $t.${m} }}|{{ printf "%T" $t.${m} }}`, t, name)
    add('Format', '{{ $t.Format "Mon Jan _2 15:04:05.000000 MST 2006" }}', t, name)
    add('Add', '{{ $t.Add 1500000000 }} {{ $t.Add -90000000000000 }}', t, name)
    add('AddDate', '{{ $t.AddDate 1 1 1 }} {{ $t.AddDate 0 -13 -400 }}', t, name)
    add('Round-Truncate', '{{ $t.Round 3600000000000 }} {{ $t.Truncate 86400000000000 }} {{ $t.Round 0 }} {{ $t.Truncate 1000 }}', t, name)
    add(
      'Sub',
      '{{ $u := toDate "2006-01-02" "2000-01-01" }}{{ $t.Sub $u }} {{ ($t.Sub $u).Hours }} {{ ($t.Sub $u).Minutes }} {{ ($t.Sub $u).Seconds }} {{ ($t.Sub $u).Milliseconds }}',
      t,
      name,
    )
    add(
      'compare',
      '{{ $u := toDate "2006-01-02" "2000-01-01" }}{{ $t.After $u }} {{ $t.Before $u }} {{ $t.Equal $t }} {{ $t.Compare $u }} {{ $u.Compare $t }}',
      t,
      name,
    )
    add('Append', '{{ $t.AppendFormat nil "2006" | toString }} {{ $t.AppendText nil | toString }} {{ len ($t.AppendBinary nil) }}', t, name)
    add('In', '{{ $t.In (now.Location) }} {{ $t.In $t.Location }}', t, name)
    // %d prints the struct with its *Location pointer: only for UTC times, whose pointer is nil.
    if (name !== 'offset' && name !== 'abbrev') add('fmt', '{{ printf "%v|%s|%d|%#v|%T" $t $t $t $t $t }}', t, name)
    add(
      'sprig',
      '{{ toJson $t }} {{ $t | date "2006-01-02T15:04:05.000000000" }} {{ dateModify "1.5h" $t }} {{ dateModify "-1ns" $t }} {{ unixEpoch $t }}',
      t,
      name,
    )
    add('Month-fmt', '{{ $t.Month | printf "%d %v %s %q %x %T" $t.Month $t.Month $t.Month $t.Month }}', t, name)
    add('Weekday-fmt', '{{ printf "%d %v %s %q %T" $t.Weekday $t.Weekday $t.Weekday $t.Weekday $t.Weekday }}', t, name)
  }
  return out
}

const jan1 = '{{ $t := toDate "2006-01-02" "2024-01-01" }}'

const timeRows: ReadonlyArray<readonly [string, string]> = [
  ['Clock', `${jan1}{{ $t.Clock }}`],
  ['Date', `${jan1}{{ $t.Date }}`],
  ['ISOWeek', `${jan1}{{ $t.ISOWeek }}`],
  ['Zone', `${jan1}{{ $t.Zone }}`],
  ['ZoneBounds', `${jan1}{{ $t.ZoneBounds }}`],
  ['Clock-arg', `${jan1}{{ $t.Clock 1 }}`],
  ['unexported', `${jan1}{{ $t.wall }}`],
  ['missing', `${jan1}{{ $t.Nope }}`],
  ['Format-no-arg', `${jan1}{{ $t.Format }}`],
  ['Format-int', `${jan1}{{ $t.Format 1 }}`],
  ['Add-string', `${jan1}{{ $t.Add "1h" }}`],
  ['Add-int64', `${jan1}{{ $t.Add (add 1 2) }}`],
  ['Add-float', `${jan1}{{ $t.Add 1.5 }}`],
  ['Sub-string', `${jan1}{{ $t.Sub "x" }}`],
  ['Sub-nil', `${jan1}{{ $t.Sub nil }}`],
  ['In-nil', `${jan1}{{ $t.In nil }}`],
  ['AddDate-arity', `${jan1}{{ $t.AddDate 1 }}`],
  ['AddDate-int64', `${jan1}{{ $t.AddDate (add 1 0) 0 0 }}`],
  ['AddDate-overflow', '{{ $t := toDate "2006-01-02" "2024-01-31" }}{{ $t.AddDate 0 1 0 }}'],
  [
    'Duration-methods',
    `${jan1}{{ ($t.Sub ($t.Add 5400000000000)).Abs }} {{ ($t.Sub ($t.Add 5400000000000)).Round 3600000000000 }} {{ ($t.Sub ($t.Add 5400000000000)).Truncate 3600000000000 }} {{ ($t.Sub ($t.Add 1)).Nanoseconds }} {{ ($t.Sub ($t.Add 1500)).Microseconds }}`,
  ],
  [
    'Duration-value',
    `${jan1}{{ $d := $t.Sub ($t.Add 90000000000) }}{{ printf "%v %d %s %T" $d $d $d $d }} {{ toJson $d }} {{ add $d 1 }} {{ duration $d }} {{ durationRound $d }} {{ eq $d -90000000000 }} {{ typeOf $d.Hours }}`,
  ],
  ['Add-Duration', `${jan1}{{ $t.Add ($t.Sub ($t.Add 5)) }}`],
  [
    'Month-arith',
    `${jan1}{{ add $t.Month 1 }} {{ add $t.Year 1 }} {{ eq $t.Month 1 }} {{ toString $t.Month }} {{ int $t.Month }} {{ int64 $t.Weekday }} {{ float64 $t.Month }}`,
  ],
  ['Month-trunc', `${jan1}{{ trunc $t.Year "abcdefgh" }} {{ trunc $t.Month "abc" }}`],
  ['Month-range', `${jan1}{{ range $t.Month }}{{ . }} {{ end }}`],
  ['Unix-sprig', `${jan1}{{ date "2006" $t.Unix }} {{ ago $t.Unix | len | lt 0 }} {{ duration $t.Unix }} {{ durationRound $t.UnixNano }}`],
  [
    'eq',
    `${jan1}{{ eq $t $t }} {{ eq $t ($t.Add 0) }} {{ eq $t ($t.Add 1) }} {{ eq $t $t.UTC }} {{ deepEqual $t $t.UTC }} {{ eq (toDate "2006" "2020") (toDate "2006" "2020") }}`,
  ],
  ['lt', `${jan1}{{ lt $t $t }}`],
  ['len', `${jan1}{{ len $t }}`],
  ['index', `${jan1}{{ index $t 0 }}`],
  ['range', `${jan1}{{ range $t }}{{ end }}`],
  ['empty', `${jan1}{{ empty $t }} {{ empty (toDate "2006" "x") }} {{ (toDate "2006" "x").IsZero }}`],
  ['deepCopy', `${jan1}{{ deepCopy $t }} {{ (deepCopy $t).Year }}`],
  ['in-dict', '{{ $d := dict "t" (toDate "2006-01-02" "2024-01-01") }}{{ $d.t.Year }} {{ $d.t.wall }}'],
  ['in-dict-missing', '{{ $d := dict "t" (toDate "2006-01-02" "2024-01-01") }}{{ $d.t.Nope }}'],
  ['with-dot', '{{ with toDate "2006-01-02" "2024-03-10" }}{{ .Year }}-{{ .Month }}-{{ .Day }} {{ .Weekday }} day {{ .YearDay }}{{ end }}'],
  [
    'nanoseconds',
    '{{ (toDate "2006-01-02 15:04:05.000" "2024-01-01 10:20:30.456").Nanosecond }} {{ (toDate "2006-01-02 15:04:05.000000000" "2024-01-01 10:20:30.456789123").Format "05.000000000 .999999 .99" }}',
  ],
  [
    'nanoseconds-print',
    '{{ toDate "2006-01-02 15:04:05.999999999" "2024-01-01 10:20:30.000000001" }} {{ toDate "2006-01-02 15:04:05.999999999" "2024-01-01 10:20:30.000000001" | date "05.000000000" }}',
  ],
  [
    'nanoseconds-dateModify',
    '{{ $t := toDate "2006-01-02 15:04:05.999999999" "2024-01-01 10:20:30.123456789" }}{{ dateModify "1us" $t }} {{ dateModify "-250ns" $t }} {{ dateModify "1.5ms" $t | date ".000000000" }} {{ toJson (dateModify "2ns" $t) }}',
  ],
  ['MarshalJSON-year-10000', '{{ (toDate "2006-01-02" "10000-01-01").MarshalJSON }}'],
  [
    'Sub-saturates',
    '{{ (toDate "2006-01-02" "2024-01-01").Sub (toDate "2006-01-02" "1000-01-01") }} {{ (toDate "2006-01-02" "1000-01-01").Sub (toDate "2006-01-02" "2024-01-01") }}',
  ],
  [
    'Location-fixed',
    '{{ $l := (toDate "2006-01-02 -0700" "2024-01-01 +0530").Location }}{{ $l }} {{ printf "%T %v" $l $l }} {{ $l.String }}',
  ],
  ['Location-now', '{{ now.Location }} {{ (now.In (toDate "2006 -0700" "2024 -0300").Location).Format "-0700" }}'],
  [
    'now-shape',
    '{{ now | printf "%T" }} {{ now.Year | typeOf }} {{ regexMatch " m=\\\\+[0-9]+\\\\.[0-9]{9}$" (toString now) }} {{ regexMatch " m=" (toString now.UTC) }} {{ regexMatch " m=" (toString (dateModify "1h" now)) }}',
  ],
  [
    'now-order',
    '{{ gt now.Nanosecond -1 }} {{ lt now.Nanosecond 1000000000 }} {{ now.Before (dateModify "1s" now) }} {{ (now.Sub now).Seconds | lt 1.0 }}',
  ],
  ['print-list', '{{ printf "%v" (list (toDate "2006" "2020") (toDate "2006" "2020").Month) }}'],
]

export const goMethodCases: Case[] = [...semverCases(), ...group(S, semverRows), ...timeCases(), ...group(T, timeRows)]
