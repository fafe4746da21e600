// Conversions (spf13/cast rules), JSON encoding and decoding, and the
// integer/float distinction in Sprig arithmetic.

import { calls, group } from './case.ts'
import type { Case } from './case.ts'

const P = 'convert'
const d = { f: 2.7, nf: -2.7, i: 3, big: 1e20, huge: 1e300, s: '42', sf: '3.9', n: null, t: true, l: [1], m: { a: 1 }, html: '<a&b>', u2028: 'x\u2028y', ctrl: 'a\u0001b\u007f', emoji: '😀', lone: 'é' }

export const sprigConvertCases: Case[] = [
  ...calls(P, 'int', ['.f', '.nf', '.i', '.s', '.sf', '"12.00"', '"12.50"', '"0x1F"', '"0o17"', '"017"', '"0b101"', '"1_000"', '"_1"', '"  5"', '"+7"', '"-7"', '""', '"abc"', '.n', '.t', 'false', '.l', '.m', '.big', '.huge', '"9223372036854775807"', '"9223372036854775808"', '"1e3"', '"12."', '".0"'], d),
  ...calls(P, 'int64', ['.f', '"42"', '.nf', '(float64 "NaN")', '(float64 "inf")', '"0X10"', '"1__0"'], d),
  ...calls(P, 'float64', ['.i', '.s', '.sf', '"1e3"', '"1_000.5"', '"0x1p-2"', '"inf"', '"-Infinity"', '"nan"', '"NaN"', '"-nan"', '"abc"', '""', '.n', '.t', '.l', '"1e400"', '"1e-400"', '".5"', '"5."', '"."', '"+.5e1"', '"0x1.8p1"', '"1_0"'], d),
  ...calls(P, 'atoi', ['"42"', '"-42"', '"+42"', '"4.2"', '"abc"', '""', '" 42"', '"0x10"', '"1_000"', '"99999999999999999999"', '"-99999999999999999999"', '"123456789012345678"', '"1234567890123456789"', '"18446744073709551616xnan"', '"-99999999999999999999.5"', '"9223372036854775807."'], d),
  ...calls(P, 'toDecimal', ['"0777"', '"777"', '777', '"8"', '"-10"', '.n', '"0o17"', '7.0', '.f'], d),
  ...calls(P, 'toString', ['.f', '.i', '.n', '.l', '.m', '.t', '1', '"s"', '1e21', '(list nil)'], d),
  ...calls(P, 'toJson', ['.m', '.l', '.n', '.f', '.i', '"s"', '.html', '.u2028', '.ctrl', '.emoji', '1', '2.0', '1e21', '1e-7', '123456789.0', '0.1', '(list)', '(dict)', '(dict "b" 1 "a" (list 1 "x" nil))', '(float64 "NaN")', '(float64 "inf")', '(mulf -1 0)', 'true', '"é\\u0000"', '(dict "z" 1 "é" 2 "A" 3 "😀" 4 "\\uff21" 5)'], d),
  ...calls(P, 'mustToJson', ['.m', '(float64 "NaN")'], d),
  ...calls(P, 'toPrettyJson', ['.m', '.l', '(list)', '(dict)', '(dict "a" (list) "b" (dict) "c" (list 1 (dict "x" 1)))', '.html', '"s"', '(float64 "NaN")'], d),
  ...calls(P, 'mustToPrettyJson', ['(list 1 2)', '(float64 "inf")'], d),
  ...calls(P, 'toRawJson', ['.html', '.m', '.u2028', '(list "<b>" "&")', '(float64 "NaN")'], d),
  ...calls(P, 'mustToRawJson', ['(dict "a" "<x>")', '(float64 "NaN")'], d),
  ...calls(P, 'fromJson', ['"{\\"a\\":1,\\"b\\":[1,2.5,\\"x\\",null,true]}"', '"[1,2]"', '"\\"s\\""', '"12"', '"null"', '"true"', '"bad"', '""', '"{\\"a\\":1} trailing"', '"1e400"', '"{\\"__proto__\\":1}"', '"\\"\\\\ud800\\""', '" [1] "', '"12345678901234567890"'], d),
  ...calls(P, 'mustFromJson', ['"{\\"a\\":{\\"b\\":[1]}}"', '"bad"', '"[]"', '"tru"', '"[1,]"', '"{\\"a\\" 1}"', '"1."', '"é"', '"[1 2]"', '"\\"\\\\x\\""', '"-"', '"01"', '"{\\"k\\":}"', '"\\"abc"'], d),
  ...group(P, [
    ['fromJson-field', '{{ (fromJson "{\\"a\\":{\\"b\\":7}}").a.b }}'],
    ['fromJson-number-type', '{{ typeOf (fromJson "1") }} {{ fromJson "1" | toJson }} {{ fromJson "100000000" }}'],
    ['fromJson-int-arith', '{{ add (fromJson "2") 3 }}'],
    ['fromJson-roundtrip', '{{ .m | toJson | fromJson | toJson }}', d],
    ['toJson-of-fromJson-big', '{{ fromJson "[1e21, 1e20, 0.000001, 1e-7, -0]" | toJson }}'],
    ['toJson-int-vs-float', '{{ toJson 3 }} {{ toJson 3.0 }} {{ toJson .i }} {{ toJson (int .i) }}', d],
    ['toJson-escapes', '{{ toJson "\\b\\f\\n\\r\\t\\"\\\\/" }}'],
    ['toJson-semver', '{{ semver "1.2.3-rc.1+b" | toJson }}'],
    ['toJson-nil-in-map', '{{ dict "a" nil | toJson }}'],
    ['toJson-nested-pretty-indent', '{{ toPrettyJson . | indent 4 }}', { a: { b: [1, { c: null }] } }],
    ['int-of-int-data-arith', '{{ add1 (int .f) }}', d],
    ['float64-typeOf', '{{ typeOf (float64 1) }} {{ typeOf (int 1.5) }} {{ typeOf (int64 "5") }}'],
    ['atoi-typeOf', '{{ typeOf (atoi "5") }}'],
    ['int-print-big', '{{ int .big }} {{ int64 .huge }}', d],
    ['int-of-time', '{{ int (toDate "2006-01-02" "2020-01-01") }}'],
  ]),
]
