// Parse and execution errors: Go's message text, with line, column and the
// action in question, for the mistakes Template authors make.

import t from 'tap'
import { ExecError, ParseError, execute, parse, toGoValue } from '../../src/gotemplate/index.ts'
import type { MissingKey } from '../../src/gotemplate/index.ts'

const D = { app: { name: 'shop', replicas: 3, labels: { tier: 'web' }, ports: [80, 443], none: null }, list: ['x', 'y'], s: 'str' }

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  {
    name: 'missing map key',
    tmpl: '{{.app.nope}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <.app.nope>: map has no entry for key "nope"',
    kind: 'exec',
  },
  {
    name: 'missing top-level key',
    tmpl: '{{.nope}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <.nope>: map has no entry for key "nope"',
    kind: 'exec',
  },
  {
    name: 'missing key position on a later line and column',
    tmpl: 'line one\n  é {{ .app.nope }}',
    data: D,
    err: 'template: t:2:12: executing "t" at <.app.nope>: map has no entry for key "nope"',
    kind: 'exec',
  },
  {
    name: 'missing key inside a defined template names both templates',
    tmpl: '{{define "sub"}}\n{{.nope}}{{end}}{{template "sub" .app}}',
    data: D,
    err: 'template: t:2:2: executing "sub" at <.nope>: map has no entry for key "nope"',
    kind: 'exec',
  },
  {
    name: 'missing key through $',
    tmpl: '{{range .list}}{{$.nope}}{{end}}',
    data: D,
    err: 'template: t:1:18: executing "t" at <$.nope>: map has no entry for key "nope"',
    kind: 'exec',
  },
  {
    name: 'field of nil data',
    tmpl: '{{.a}}',
    err: 'template: t:1:2: executing "t" at <.a>: nil data; no entry for key "a"',
    kind: 'exec',
  },
  {
    name: 'field of a nil map value',
    tmpl: '{{.app.none.x}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <.app.none.x>: nil pointer evaluating interface {}.x',
    kind: 'exec',
  },
  {
    name: 'field of a string read from a map',
    tmpl: '{{.app.name.x}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <.app.name.x>: can\'t evaluate field x in type interface {}',
    kind: 'exec',
  },
  {
    name: 'field of a list',
    tmpl: '{{.app.ports.x}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <.app.ports.x>: can\'t evaluate field x in type interface {}',
    kind: 'exec',
  },
  {
    name: 'field of a range element',
    tmpl: '{{range .list}}{{.x}}{{end}}',
    data: D,
    err: 'template: t:1:17: executing "t" at <.x>: can\'t evaluate field x in type interface {}',
    kind: 'exec',
  },
  {
    name: 'field of a string variable',
    tmpl: '{{$s := .s}}{{$s.x}}',
    data: D,
    err: 'template: t:1:16: executing "t" at <$s.x>: can\'t evaluate field x in type string',
    kind: 'exec',
  },
  {
    name: 'field of no value',
    tmpl: '{{$x := index .app "q"}}{{$x.a}}',
    data: D,
    err: 'template: t:1:28: executing "t" at <$x.a>: nil data; no entry for key "a"',
    kind: 'exec',
  },
  {
    name: 'field of an int',
    tmpl: '{{(1).a}}',
    data: D,
    err: 'template: t:1:3: executing "t" at <1>: can\'t evaluate field a in type int',
    kind: 'exec',
  },
  {
    name: 'argument to a map key',
    tmpl: '{{.app.name 1}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <.app.name>: name is not a method but has arguments',
    kind: 'exec',
  },
  {
    name: 'piped value to a map key',
    tmpl: '{{1 | .app.name}}',
    data: D,
    err: 'template: t:1:10: executing "t" at <.app.name>: name is not a method but has arguments',
    kind: 'exec',
  },
  {
    name: 'argument to a non-function',
    tmpl: '{{1 2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <1>: can\'t give argument to non-function 1',
    kind: 'exec',
  },
  {
    name: 'piped value into a string literal stage is a parse error',
    tmpl: '{{1 | "x"}}',
    data: D,
    err: 'template: t:1: non executable command in pipeline stage 2',
    kind: 'parse',
  },
  {
    name: 'nil is not a command',
    tmpl: '{{nil}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <nil>: nil is not a command',
    kind: 'exec',
  },
  {
    name: 'range over a string',
    tmpl: '{{range .s}}{{end}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <.s>: range can\'t iterate over str',
    kind: 'exec',
  },
  {
    name: 'range over a float',
    tmpl: '{{range .app.replicas}}{{end}}',
    data: D,
    err: 'template: t:1:12: executing "t" at <.app.replicas>: range can\'t iterate over 3',
    kind: 'exec',
  },
  {
    name: 'range over an int with two variables',
    tmpl: '{{range $i, $e := 3}}{{end}}',
    data: D,
    err: 'template: t:1:18: executing "t" at <3>: can\'t use 3 to iterate over more than one variable',
    kind: 'exec',
  },
  {
    name: 'undefined template',
    tmpl: '{{template "nope"}}',
    data: D,
    err: 'template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined',
    kind: 'exec',
  },
  {
    name: 'assignment to an undeclared variable',
    tmpl: '{{$x = 1}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <1>: undefined variable: $x',
    kind: 'exec',
  },
  {
    name: 'wrong number of args',
    tmpl: '{{len}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <len>: wrong number of args for len: want 1 got 0',
    kind: 'exec',
  },
  {
    name: 'wrong number of args for a variadic function',
    tmpl: '{{printf}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <printf>: wrong number of args for printf: want at least 1 got 0',
    kind: 'exec',
  },
  {
    name: 'error from a built-in names the call',
    tmpl: '{{index .list 5}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .list 5>: error calling index: index out of range: 5',
    kind: 'exec',
  },
  {
    name: 'index at the length',
    tmpl: '{{index .list 2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .list 2>: error calling index: reflect: slice index out of range',
    kind: 'exec',
  },
  {
    name: 'int literal overflowing int',
    tmpl: '{{print 18446744073709551615}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <18446744073709551615>: 18446744073709551615 overflows int',
    kind: 'exec',
  },
  {
    name: 'eq of a float64 field and an int literal',
    tmpl: '{{if eq .app.replicas 3}}{{end}}',
    data: D,
    err: 'template: t:1:5: executing "t" at <eq .app.replicas 3>: error calling eq: incompatible types for comparison: float64 and int',
    kind: 'exec',
  },
  {
    name: 'lt of mixed kinds',
    tmpl: '{{lt 1 "a"}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <lt 1 "a">: error calling lt: incompatible types for comparison: int and string',
    kind: 'exec',
  },
  {
    name: 'printf format must be a string',
    tmpl: '{{printf .app.replicas}}',
    data: D,
    err: 'template: t:1:13: executing "t" at <.app.replicas>: wrong type for value; expected string; got float64',
    kind: 'exec',
  },
  {
    name: 'printf format literal must be a string',
    tmpl: '{{printf 1}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <1>: expected string; found 1',
    kind: 'exec',
  },
  {
    name: 'call of a non-function',
    tmpl: '{{call .s}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <call .s>: error calling call: non-function .s of type string',
    kind: 'exec',
  },
  {
    name: 'call of nil',
    tmpl: '{{call nil}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <call nil>: error calling call: call of nil',
    kind: 'exec',
  },
  { name: 'unknown function', tmpl: '{{nope 1}}', err: 'template: t:1: function "nope" not defined', kind: 'parse' },
  {
    name: 'unknown function on a later line',
    tmpl: 'a\nb\n{{ .x | nope }}',
    err: 'template: t:3: function "nope" not defined',
    kind: 'parse',
  },
  { name: 'undefined variable', tmpl: '{{$x}}', err: 'template: t:1: undefined variable "$x"', kind: 'parse' },
  {
    name: 'variable out of scope after end',
    tmpl: '{{if true}}{{$x := 1}}{{end}}{{$x}}',
    err: 'template: t:1: undefined variable "$x"',
    kind: 'parse',
  },
  {
    name: 'variable of a define is not visible outside',
    tmpl: '{{define "d"}}{{$y := 1}}{{end}}{{$y}}',
    err: 'template: t:1: undefined variable "$y"',
    kind: 'parse',
  },
  { name: 'unclosed action', tmpl: '{{.x', err: 'template: t:1: unclosed action', kind: 'parse' },
  { name: 'unclosed action across lines', tmpl: '{{ if\n .x\n', err: 'template: t:3: unclosed action started at t:1', kind: 'parse' },
  { name: 'unterminated string', tmpl: '{{"abc}}', err: 'template: t:1: unterminated quoted string', kind: 'parse' },
  {
    name: 'unterminated string on a later line',
    tmpl: '{{ if\n"abc }}',
    err: 'template: t:2: unterminated quoted string in action started at t:1',
    kind: 'parse',
  },
  { name: 'unterminated raw string', tmpl: '{{`abc}}', err: 'template: t:1: unterminated raw quoted string', kind: 'parse' },
  { name: 'unterminated character', tmpl: "{{'a}}", err: 'template: t:1: unterminated character constant', kind: 'parse' },
  { name: 'malformed character constant', tmpl: "{{'ab'}}", err: "template: t:1: malformed character constant: 'ab'", kind: 'parse' },
  { name: 'bad escape', tmpl: '{{"\\q"}}', err: 'template: t:1: invalid syntax', kind: 'parse' },
  { name: 'unclosed comment', tmpl: 'a\n{{/* x', err: 'template: t:2: unclosed comment', kind: 'parse' },
  {
    name: 'comment not followed by the delimiter',
    tmpl: '{{/* c */ x}}',
    err: 'template: t:1: comment ends before closing delimiter',
    kind: 'parse',
  },
  { name: 'comment not at the start of the action', tmpl: '{{ /* c */ }}', err: 'template: t:1: unexpected "/" in command', kind: 'parse' },
  { name: 'unexpected end', tmpl: '{{end}}', err: 'template: t:1: unexpected {{end}}', kind: 'parse' },
  { name: 'unexpected else', tmpl: '{{else}}', err: 'template: t:1: unexpected {{else}}', kind: 'parse' },
  { name: 'missing end', tmpl: '{{if 1}}x', err: 'template: t:1: unexpected EOF', kind: 'parse' },
  { name: 'double else', tmpl: '{{if 1}}{{else}}{{else}}{{end}}', err: 'template: t:1: expected end; found {{else}}', kind: 'parse' },
  { name: 'empty if', tmpl: '{{if}}{{end}}', err: 'template: t:1: missing value for if', kind: 'parse' },
  { name: 'empty range', tmpl: '{{range}}{{end}}', err: 'template: t:1: missing value for range', kind: 'parse' },
  { name: 'empty action', tmpl: '{{}}', err: 'template: t:1: missing value for command', kind: 'parse' },
  { name: 'empty action with spaces', tmpl: '{{ }}', err: 'template: t:1: missing value for command', kind: 'parse' },
  { name: 'pipe at the start', tmpl: '{{| .x}}', err: 'template: t:1: unexpected "|" in command', kind: 'parse' },
  { name: 'double pipe', tmpl: '{{.x | | .y}}', err: 'template: t:1: unexpected "|" in command', kind: 'parse' },
  {
    name: 'literal in a later pipeline stage',
    tmpl: '{{.x | 1}}',
    err: 'template: t:1: non executable command in pipeline stage 2',
    kind: 'parse',
  },
  { name: 'unclosed paren', tmpl: '{{(1}}', err: 'template: t:1: unclosed left paren', kind: 'parse' },
  { name: 'unexpected right paren', tmpl: '{{1)}}', err: 'template: t:1: unexpected right paren', kind: 'parse' },
  { name: 'bad character in a field', tmpl: '{{.a-b}}', err: "template: t:1: bad character U+002D '-'", kind: 'parse' },
  {
    name: 'equals without colon needs a declared variable',
    tmpl: '{{$x=1}}',
    err: "template: t:1: bad character U+003D '='",
    kind: 'parse',
  },
  { name: 'colon without equals', tmpl: '{{$x := 1}}{{$x : 2}}', err: 'template: t:1: expected :=', kind: 'parse' },
  { name: 'unrecognized character', tmpl: '{{ \u00a0 }}', err: 'template: t:1: unrecognized character in action: U+00A0', kind: 'parse' },
  { name: 'unexpected character', tmpl: '{{ @ }}', err: 'template: t:1: unexpected "@" in command', kind: 'parse' },
  { name: 'dot after a literal', tmpl: '{{"a".x}}', err: 'template: t:1: unexpected . after term "\\"a\\""', kind: 'parse' },
  { name: 'dot after nil', tmpl: '{{nil.x}}', err: 'template: t:1: unexpected . after term "nil"', kind: 'parse' },
  { name: 'trailing dot', tmpl: '{{.a.}}', err: 'template: t:1: unexpected <.> in operand', kind: 'parse' },
  { name: 'bad number', tmpl: '{{1a}}', err: 'template: t:1: bad number syntax: "1a"', kind: 'parse' },
  {
    name: 'integer overflow',
    tmpl: '{{99999999999999999999}}',
    err: 'template: t:1: integer overflow: "99999999999999999999"',
    kind: 'parse',
  },
  { name: 'leading zero decimal is octal and 09 overflows', tmpl: '{{09}}', err: 'template: t:1: integer overflow: "09"', kind: 'parse' },
  { name: 'illegal number', tmpl: '{{0x}}', err: 'template: t:1: illegal number syntax: "0x"', kind: 'parse' },
  { name: 'float overflow', tmpl: '{{1e400}}', err: 'template: t:1: illegal number syntax: "1e400"', kind: 'parse' },
  {
    name: 'template name must be a string',
    tmpl: '{{template .x}}',
    err: 'template: t:1: unexpected ".x" in template clause',
    kind: 'parse',
  },
  {
    name: 'define name must be a string',
    tmpl: '{{define x}}{{end}}',
    err: 'template: t:1: unexpected "x" in define clause',
    kind: 'parse',
  },
  {
    name: 'define takes no pipeline',
    tmpl: '{{define "x" 1}}{{end}}',
    err: 'template: t:1: unexpected "1" in define clause',
    kind: 'parse',
  },
  {
    name: 'define inside an action',
    tmpl: '{{if 1}}{{define "x"}}{{end}}{{end}}',
    err: 'template: t:1: unexpected <define> in command',
    kind: 'parse',
  },
  {
    name: 'multiple definition',
    tmpl: '{{define "x"}}a{{end}}{{define "x"}}b{{end}}',
    err: 'template: t:1: template: multiple definition of template "x"',
    kind: 'parse',
  },
  {
    name: 'block named like the main template',
    tmpl: '{{block "t" .}}x{{end}}',
    err: 'template: t:1: template: multiple definition of template "t"',
    kind: 'parse',
  },
  { name: 'block needs a pipeline', tmpl: '{{block "b"}}x{{end}}', err: 'template: t:1: missing value for block clause', kind: 'parse' },
  { name: 'break outside range', tmpl: '{{break}}', err: 'template: t:1: {{break}} outside {{range}}', kind: 'parse' },
  {
    name: 'break in a range else',
    tmpl: '{{range .}}{{else}}{{break}}{{end}}',
    err: 'template: t:1: {{break}} outside {{range}}',
    kind: 'parse',
  },
  {
    name: 'continue in a define',
    tmpl: '{{define "d"}}{{continue}}{{end}}',
    err: 'template: t:1: {{continue}} outside {{range}}',
    kind: 'parse',
  },
  {
    name: 'break with an argument',
    tmpl: '{{range .}}{{break 1}}{{end}}',
    err: 'template: t:1: unexpected "1" in {{break}}',
    kind: 'parse',
  },
  { name: 'too many declarations', tmpl: '{{$a, $b := 1}}', err: 'template: t:1: too many declarations in command', kind: 'parse' },
  {
    name: 'too many range variables',
    tmpl: '{{range $a, $b, $c := .}}{{end}}',
    err: 'template: t:1: too many declarations in range',
    kind: 'parse',
  },
  {
    name: 'range declares only variables',
    tmpl: '{{range $a, 1 := .}}{{end}}',
    err: 'template: t:1: range can only initialize variables',
    kind: 'parse',
  },
  { name: 'else if needs a pipeline', tmpl: '{{if 1}}{{else if}}{{end}}', err: 'template: t:1: missing value for if', kind: 'parse' },
  { name: 'else takes no pipeline', tmpl: '{{if 1}}{{else 1}}{{end}}', err: 'template: t:1: unexpected "1" in else', kind: 'parse' },
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
