// Execution of every construct: text, trim markers, comments, fields, variables,
// if/with/range (else, break, continue), define/template/block, pipelines,
// literals and printing, and the missingkey options.

import t from 'tap'
import { ExecError, ParseError, execute, parse, toGoValue } from '../../src/gotemplate/index.ts'
import type { MissingKey } from '../../src/gotemplate/index.ts'

const D = {
  app: {
    name: 'shop',
    replicas: 3,
    labels: { tier: 'web', team: 'a' },
    ports: [80, 443],
    empty: '',
    zero: 0,
    none: null,
    nested: { deep: { value: 'x' } },
  },
  items: [
    { name: 'a', on: true },
    { name: 'b', on: false },
    { name: 'c', on: true },
  ],
  list: ['x', 'y', 'z'],
  emptyList: [],
  emptyMap: {},
  f: 2.5,
  s: 'str',
  t: true,
}

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  { name: 'copies text without actions', tmpl: 'plain text\nline two', want: 'plain text\nline two' },
  { name: 'prints a string field', tmpl: 'name={{.app.name}}', data: D, want: 'name=shop' },
  { name: 'prints a float64 field with %v rules', tmpl: '{{.app.replicas}} {{.f}}', data: D, want: '3 2.5' },
  {
    name: 'prints large and small floats in exponent form',
    tmpl: '{{.a}} {{.b}} {{.c}} {{.d}} {{.e}}',
    data: { a: 1000000, b: 100000, c: 0.0001, d: 1e-5, e: 123456789 },
    want: '1e+06 100000 0.0001 1e-05 1.23456789e+08',
  },
  { name: 'prints a map with sorted keys', tmpl: '{{.app.labels}}', data: D, want: 'map[team:a tier:web]' },
  { name: 'prints a list', tmpl: '{{.list}} {{.emptyList}} {{.emptyMap}}', data: D, want: '[x y z] [] map[]' },
  {
    name: 'prints nested collections and nil',
    tmpl: '{{.}}',
    data: { b: [1, null, 's', true, { z: [] }], a: null },
    want: 'map[a:<nil> b:[1 <nil> s true map[z:[]]]]',
  },
  { name: 'prints <no value> for a nil map value', tmpl: '{{.app.none}}', data: D, want: '<no value>' },
  { name: 'prints <no value> for nil data', tmpl: '{{.}}', want: '<no value>' },
  { name: 'prints booleans', tmpl: '{{true}} {{false}} {{.t}}', data: D, want: 'true false true' },
  {
    name: 'prints integer literals in every base',
    tmpl: '{{1_000}} {{0x1F}} {{0o17}} {{017}} {{0b101}} {{-7}} {{+3}}',
    want: '1000 31 15 15 5 -7 3',
  },
  {
    name: 'prints float literals',
    tmpl: '{{1.5}} {{1e3}} {{2.0}} {{.5}} {{1.}} {{0x1p-2}} {{-0.0}} {{1e21}}',
    want: '1.5 1000 2 0.5 1 0.25 -0 1e+21',
  },
  { name: 'prints character constants as ints', tmpl: "{{'a'}} {{'\\n'}} {{'\\x41'}} {{'\\u00e9'}} {{'\\''}}", want: '97 10 65 233 39' },
  { name: 'interprets escapes in quoted strings', tmpl: '{{"tab\\tq\\"\\\\ \\x41\\101\\u00e9\\U0001F600"}}', want: 'tab\tq"\\ AAé😀' },
  { name: 'keeps raw strings verbatim', tmpl: '{{`a\\nb "q"`}}', want: 'a\\nb "q"' },
  { name: 'drops carriage returns from raw strings', tmpl: '{{`a\r\nb` | len}}', want: '3' },
  { name: 'handles non-ASCII text and keys', tmpl: 'héllo {{.ключ}} 😀', data: { ключ: 'значение' }, want: 'héllo значение 😀' },
  { name: 'drops comments', tmpl: 'a{{/* comment */}}b{{/* multi\nline */}}c', want: 'abc' },
  { name: 'trims around a comment', tmpl: 'a \n {{- /* c */ -}} \n b', want: 'ab' },
  { name: 'trims spaces and newlines left of {{-', tmpl: 'a  \n\t {{- .s}}', data: D, want: 'astr' },
  { name: 'trims spaces and newlines right of -}}', tmpl: '{{.s -}} \n\n  b', data: D, want: 'strb' },
  { name: 'trims carriage returns too', tmpl: 'a\r\n{{- 1 -}}\r\n\tb', want: 'a1b' },
  { name: 'keeps a minus without space as a number sign', tmpl: 'a {{-1}} {{3 -}} b', want: 'a -1 3b' },
  { name: 'trims only ASCII whitespace', tmpl: 'a\u00a0{{- 1 -}}\u00a0b', want: 'a\u00a01\u00a0b' },
  { name: 'trim marker alone in action', tmpl: 'x {{- -}} y', err: 'template: t:1: illegal number syntax: "-"', kind: 'parse' },
  { name: 'reads nested map keys', tmpl: '.{{.app.nested.deep.value}}.', data: D, want: '.x.' },
  { name: 'reads fields through $', tmpl: '.{{$.app.name}}.', data: D, want: '.shop.' },
  { name: 'reads fields of a variable', tmpl: '{{$a := .app}}{{$a.labels.tier}}', data: D, want: 'web' },
  { name: 'reads fields of a parenthesized pipeline', tmpl: '{{(.app).name}} {{(index .items 1).name}}', data: D, want: 'shop b' },
  {
    name: 'treats prototype names as plain missing keys',
    tmpl: '{{index .m "constructor"}}|{{index .m "toString"}}|{{len .m}}',
    data: { m: { a: 1 } },
    want: '<no value>|<no value>|1',
  },
  {
    name: 'reads prototype-named keys as data',
    tmpl: '{{.m.__proto__}} {{.m.constructor}} {{.m.hasOwnProperty}}',
    data: JSON.parse('{"m": {"__proto__": "p", "constructor": "c", "hasOwnProperty": "h"}}'),
    want: 'p c h',
  },
  {
    name: 'ranges over prototype-named keys in order',
    tmpl: '{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}',
    data: JSON.parse('{"m": {"toString": 1, "__proto__": 2, "constructor": 3}}'),
    want: '__proto__=2;constructor=3;toString=1;',
  },
  { name: 'declares and reads a variable', tmpl: '{{$x := .s}}{{$x}}', data: D, want: 'str' },
  {
    name: 'assigns an outer variable from a range',
    tmpl: '{{$last := ""}}{{range .list}}{{$last = .}}{{end}}{{$last}}',
    data: D,
    want: 'z',
  },
  { name: 'shadows a variable in an inner scope', tmpl: '{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}', want: '21' },
  { name: 'assignment inside if changes the outer variable', tmpl: '{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}', want: '2' },
  { name: 'if-declared variable is visible in else', tmpl: '{{if $x := .app.empty}}{{$x}}{{else}}[{{$x}}]{{end}}', data: D, want: '[]' },
  { name: '$ is the data even inside range', tmpl: '{{range .list}}{{$.s}}{{end}}', data: D, want: 'strstrstr' },
  { name: '$ can be reassigned', tmpl: '{{$ = 5}}{{$}}', want: '5' },
  { name: 'variable pipeline with a declaration prints nothing', tmpl: 'a{{$x := 1}}b', want: 'ab' },
  { name: 'parenthesized declaration', tmpl: '{{($x := 1)}}{{$x}}', want: '11' },
  { name: 'if takes the true branch', tmpl: '{{if .t}}yes{{else}}no{{end}}', data: D, want: 'yes' },
  { name: 'else if chains', tmpl: '{{if .app.empty}}a{{else if .app.zero}}b{{else if .list}}c{{else}}d{{end}}', data: D, want: 'c' },
  {
    name: 'zero values are false',
    tmpl: '{{if 0}}1{{end}}{{if 0.0}}2{{end}}{{if ""}}3{{end}}{{if false}}4{{end}}{{if .emptyList}}5{{end}}{{if .emptyMap}}6{{end}}{{if .app.none}}7{{end}}|',
    data: D,
    want: '|',
  },
  {
    name: 'non-zero values are true',
    tmpl: '{{if 1}}1{{end}}{{if -0.5}}2{{end}}{{if " "}}3{{end}}{{if .list}}4{{end}}{{if .app}}5{{end}}',
    data: D,
    want: '12345',
  },
  {
    name: 'and or not',
    tmpl: '{{and 1 0 2}} {{and 1 2}} {{or 0 "" 3}} {{or 0 ""}} {{not 0}} {{not .list}}',
    data: D,
    want: '0 2 3  true false',
  },
  { name: 'and short-circuits before a missing key', tmpl: '{{and false .nope}}|{{or true .nope}}', data: D, want: 'false|true' },
  { name: 'and returns a nil map value as no value', tmpl: '{{and .app.none 1}}', data: D, want: '<no value>' },
  { name: 'with sets dot', tmpl: '{{with .app.labels}}{{.tier}}{{end}}', data: D, want: 'web' },
  { name: 'with skips empty values', tmpl: '{{with .app.empty}}x{{else}}empty{{end}}', data: D, want: 'empty' },
  { name: 'with declares a variable', tmpl: '{{with $l := .app.labels}}{{$l.team}}{{end}}', data: D, want: 'a' },
  { name: 'else with chains', tmpl: '{{with .app.empty}}a{{else with .app.zero}}b{{else with .s}}{{.}}{{end}}', data: D, want: 'str' },
  { name: 'with variable visible in else', tmpl: '{{with $x := 0}}x{{else}}{{$x}}{{end}}', want: '0' },
  { name: 'ranges over a list', tmpl: '{{range .list}}[{{.}}]{{end}}', data: D, want: '[x][y][z]' },
  { name: 'ranges with index and element', tmpl: '{{range $i, $e := .list}}{{$i}}={{$e}} {{end}}', data: D, want: '0=x 1=y 2=z ' },
  { name: 'ranges with one variable as the element', tmpl: '{{range $e := .list}}{{$e}}{{end}}', data: D, want: 'xyz' },
  {
    name: 'ranges over a map in key order',
    tmpl: '{{range $k, $v := .app.labels}}{{$k}}:{{$v}} {{end}}',
    data: D,
    want: 'team:a tier:web ',
  },
  { name: 'ranges over map values', tmpl: '{{range .app.labels}}{{.}} {{end}}', data: D, want: 'a web ' },
  { name: 'range else on empty list', tmpl: '{{range .emptyList}}x{{else}}none{{end}}', data: D, want: 'none' },
  { name: 'range else on empty map', tmpl: '{{range .emptyMap}}x{{else}}none{{end}}', data: D, want: 'none' },
  { name: 'range else on nil', tmpl: '{{range .app.none}}x{{else}}nil{{end}}', data: D, want: 'nil' },
  {
    name: 'range over an integer',
    tmpl: '{{range 3}}{{.}}{{end}}|{{range $i := 2}}{{$i}}{{end}}|{{range 0}}x{{else}}zero{{end}}|{{range -1}}x{{else}}neg{{end}}',
    want: '012|01|zero|neg',
  },
  { name: 'range variables keep the pipeline value in else', tmpl: '{{range $x := .emptyList}}{{else}}{{$x}}{{end}}', data: D, want: '[]' },
  {
    name: 'range with assignment to outer variables',
    tmpl: '{{$i := 0}}{{$e := 0}}{{range $i, $e = .list}}{{end}}{{$i}} {{$e}}',
    data: D,
    want: '2 z',
  },
  { name: 'break leaves the loop', tmpl: '{{range .items}}{{if not .on}}{{break}}{{end}}{{.name}}{{end}}', data: D, want: 'a' },
  { name: 'continue skips an element', tmpl: '{{range .items}}{{if not .on}}{{continue}}{{end}}{{.name}}{{end}}', data: D, want: 'ac' },
  {
    name: 'break in nested range leaves the inner loop',
    tmpl: '{{range $i := 2}}{{range $j := 3}}{{if eq $j 1}}{{break}}{{end}}{{$i}}{{$j}} {{end}}{{end}}',
    want: '00 10 ',
  },
  {
    name: 'break in an inner range else is absorbed by that range',
    tmpl: '{{range .list}}{{range $.emptyList}}{{else}}{{break}}{{end}}X{{end}}',
    data: D,
    want: 'XXX',
  },
  {
    name: 'continue in an inner range else continues the outer loop',
    tmpl: '{{range .list}}{{range $.emptyList}}{{else}}{{continue}}{{end}}X{{end}}',
    data: D,
    want: '',
  },
  {
    name: 'variables declared in a range body reset each iteration',
    tmpl: '{{range .list}}{{$v := .}}{{$v}}{{end}}',
    data: D,
    want: 'xyz',
  },
  { name: 'range element nil prints no value', tmpl: '{{range .l}}[{{.}}]{{end}}', data: { l: [1, null] }, want: '[1][<no value>]' },
  {
    name: 'template with data',
    tmpl: '{{define "item"}}<{{.}}>{{end}}{{range .list}}{{template "item" .}}{{end}}',
    data: D,
    want: '<x><y><z>',
  },
  { name: 'template without data has no dot', tmpl: '{{define "d"}}[{{.}}]{{end}}{{template "d"}}', want: '[<no value>]' },
  { name: 'template sees only its own $', tmpl: '{{define "d"}}{{$}}{{end}}{{template "d" 5}}', want: '5' },
  {
    name: 'templates call templates',
    tmpl: '{{define "a"}}A{{template "b" .}}{{end}}{{define "b"}}B{{.s}}{{end}}{{template "a" .}}',
    data: D,
    want: 'ABstr',
  },
  { name: 'template pipeline result is dot', tmpl: '{{define "q"}}{{.}}{{end}}{{template "q" .s | printf "%q"}}', data: D, want: '"str"' },
  { name: 'block defines and runs', tmpl: '{{block "b" .list}}{{range .}}{{.}}{{end}}{{end}}!', data: D, want: 'xyz!' },
  {
    name: 'recursion through a template',
    tmpl: '{{define "r"}}{{if .}}{{index . 0}}{{template "r" (slice . 1)}}{{end}}{{end}}{{template "r" .list}}',
    data: D,
    want: 'xyz',
  },
  { name: 'a defined template can be used before its definition', tmpl: '{{template "x"}}{{define "x"}}X{{end}}', want: 'X' },
  { name: 'an empty redefinition keeps the first body', tmpl: '{{define "x"}}a{{end}}{{define "x"}} {{end}}{{template "x"}}', want: 'a' },
  { name: 'only defines leaves the main template empty', tmpl: '{{define "x"}}a{{end}}', want: '' },
  { name: 'main template named by define when the top level is blank', tmpl: '  \n{{define "t"}}defined{{end}}\n', want: 'defined' },
  { name: 'pipes the value as the last argument', tmpl: '{{.s | printf "<%s>"}}', data: D, want: '<str>' },
  { name: 'chains several stages', tmpl: '{{.s | printf "%s!" | printf "[%s]" | len}}', data: D, want: '6' },
  { name: 'parenthesized arguments', tmpl: '{{printf "%s-%d" (print .s) (len .list)}}', data: D, want: 'str-3' },
  { name: 'nested parentheses', tmpl: '{{len (printf "%s%s" (print 1) (print (len .list)))}}', data: D, want: '2' },
  { name: 'piping into a variadic function fills the variadic part', tmpl: '{{3 | printf "%d %d" 1}}', want: '1 3' },
  { name: 'multi-line action', tmpl: '{{printf\n  "%s"\n  .s\n}}', data: D, want: 'str' },
  { name: 'trailing pipe with nothing after it is accepted', tmpl: '{{.s | }}', data: D, want: 'str' },
  {
    name: 'missing key with missingkey=default prints no value',
    tmpl: '{{.nope}}|{{.app.nope}}',
    data: D,
    missingKey: 'default',
    want: '<no value>|<no value>',
  },
  { name: 'missing key chain with missingkey=default', tmpl: '{{.nope.deeper}}', data: D, missingKey: 'default', want: '<no value>' },
  {
    name: 'missing key with missingkey=zero prints no value',
    tmpl: '{{.app.nope}}|{{print .app.nope}}',
    data: D,
    missingKey: 'zero',
    want: '<no value>|<nil>',
  },
  {
    name: 'missing key passed to print with missingkey=default',
    tmpl: '{{print .app.nope}}',
    data: D,
    missingKey: 'default',
    want: '<nil>',
  },
  { name: 'index of a missing key is never an error', tmpl: '{{index .app "nope"}}', data: D, want: '<no value>' },
]

interface Row {
  readonly name: string
  readonly tmpl: string
  readonly data?: unknown
  readonly missingKey?: MissingKey
  readonly want?: string
  readonly err?: string
  readonly kind?: 'parse' | 'exec'
}

function render(row: Row): { out?: string; err?: string; kind?: 'parse' | 'exec' } {
  let tpl
  try {
    tpl = parse('t', row.tmpl)
  } catch (e) {
    if (e instanceof ParseError) return { err: e.message, kind: 'parse' }
    throw e
  }
  try {
    return { out: execute(tpl, toGoValue(row.data ?? null), row.missingKey === undefined ? {} : { missingKey: row.missingKey }) }
  } catch (e) {
    if (e instanceof ExecError) return { err: e.message, kind: 'exec' }
    throw e
  }
}

for (const row of rows) {
  t.test(row.name, async (t) => {
    const got = render(row)
    if (row.err === undefined) t.same(got, { out: row.want })
    else t.same(got, { err: row.err, kind: row.kind })
  })
}
