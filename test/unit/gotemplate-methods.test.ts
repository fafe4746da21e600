// Method calls on values of the model beyond what the differential corpus
// pins against Go: the methods left out on purpose say so, parameter kinds
// of caller-defined objects (pointer types take nil, durations take integer
// constants), and the nanosecond time value.

import t from 'tap'
import { ExecError, execute, parse, renderTemplate, toGoValue } from '../../src/gotemplate/index.ts'
import { GoInt, GoObject, GoTime, int64 } from '../../src/gotemplate/value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from '../../src/gotemplate/value.ts'

function execError(fn: () => unknown): ExecError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ExecError) return e
    throw e
  }
  throw new Error('no error')
}

t.test('semver methods that change the version in place fail and say why', async (t) => {
  for (const [call, param] of [
    ['Scan "2.0.0"', 'Scan'],
    ['UnmarshalText nil', 'UnmarshalText'],
    ['UnmarshalJSON nil', 'UnmarshalJSON'],
  ] as const) {
    const e = execError(() => renderTemplate('t', `{{ (semver "1.2.3").${call} }}`, null))
    t.equal(e.detail, `method ${param} of *semver.Version changes the version in place, which template-sync does not support`)
  }
  // They are pointer methods: a Version value does not have them at all, as in Go.
  const e = execError(() => renderTemplate('t', '{{ (semver "1.2.3").IncPatch.Scan "2.0.0" }}', null))
  t.equal(e.detail, "can't evaluate field Scan in type semver.Version")
})

class Node extends GoObject {
  readonly goType = '*main.Node'
  readonly goKind = 'ptr'
  readonly label: string
  constructor(label: string) {
    super()
    this.label = label
  }
  method(name: string): GoFuncSpec | undefined {
    switch (name) {
      case 'Join':
        return { fn: (other) => `${this.label}+${other instanceof Node ? other.label : '<nil>'}`, params: ['type:*main.Node'] }
      case 'Wait':
        return { fn: (d) => `waited ${String(d)}ns`, params: ['duration'] }
    }
    return undefined
  }
}

t.test('a caller-defined method takes its own pointer type, nil, and duration constants', async (t) => {
  const data = toGoValue({ a: new Node('a'), b: new Node('b'), n: int64(5n) })
  const run = (text: string): string => execute(parse('t', text), data)
  t.equal(run('{{ .a.Join .b }} {{ .a.Join nil }}'), 'a+b a+<nil>')
  t.equal(run('{{ .a.Wait 1500 }}'), 'waited 1500ns')
  t.equal(execError(() => run('{{ .a.Join "b" }}')).detail, `can't handle "b" for arg of type *main.Node`)
  t.equal(execError(() => run('{{ .a.Join .n }}')).detail, 'wrong type for value; expected *main.Node; got int64')
  t.equal(execError(() => run('{{ .a.Wait .n }}')).detail, 'wrong type for value; expected time.Duration; got int64')
  t.equal(execError(() => run('{{ .a.Wait 1.5 }}')).detail, 'expected integer; found 1.5')
  t.equal(renderTemplate('t', '{{ eq .a .a }} {{ eq .a .b }} {{ printf "%T" .a }} {{ kindOf .a }}', data), 'true false *main.Node ptr')
})

t.test('a function spec marked unsupported fails with its text after the arity check', async (t) => {
  const funcs: FuncMap = { pair: { fn: () => null, params: ['int'], unsupported: 'function pair has 2 return values; should be 1 or 2' } }
  t.equal(execError(() => execute(parse('t', '{{ pair }}', funcs), null)).detail, 'wrong number of args for pair: want 1 got 0')
  t.equal(execError(() => execute(parse('t', '{{ pair 1 }}', funcs), null)).detail, 'function pair has 2 return values; should be 1 or 2')
})

t.test('GoTime keeps nanoseconds and normalises them into the second', async (t) => {
  const a = new GoTime(10, 1_500_000_000)
  t.equal(a.sec, 11)
  t.equal(a.nsec, 500_000_000)
  const b = new GoTime(10, -1)
  t.equal(b.sec, 9)
  t.equal(b.nsec, 999_999_999)
  t.equal(b.epochNs, 9_999_999_999n)
  t.equal(GoTime.fromMillis(1500).nsec, 500_000_000)
  t.equal(GoTime.fromMillis(-1).sec, -1)
  t.equal(GoTime.fromMillis(-1).epochMs, -1)
  const data = toGoValue({ t: new GoTime(1_700_000_000, 123_456_789) })
  t.equal(
    execute(parse('t', '{{ .t.Nanosecond }} {{ .t.UnixNano }} {{ .t.Format "15:04:05.000000000" }}'), data),
    '123456789 1700000000123456789 22:13:20.123456789',
  )
})

t.test('now carries nanoseconds and a monotonic reading; Sub of two readings uses it', async (t) => {
  const out = renderTemplate('t', '{{ $a := now }}{{ $b := now }}{{ ($b.Sub $a).Nanoseconds | lt -1 }} {{ printf "%T" ($b.Sub $a) }}', null)
  t.equal(out, 'true time.Duration')
  t.match(renderTemplate('t', '{{ now }}', null), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC m=\+\d+\.\d{9}$/)
})

t.test('GoInt values of named time types print through their String method', async (t) => {
  const data: Record<string, GoValue> = { m: new GoInt(13n, 'int', 'time.Month'), d: new GoInt(-1n, 'int', 'time.Weekday') }
  t.equal(execute(parse('t', '{{ .m }} {{ .d }} {{ printf "%d" .m }}'), toGoValue(data)), '%!Month(13) %!Weekday(18446744073709551615) 13')
})
