// The public API of src/gotemplate: parse once and execute many times, error
// classes with their fields, function maps, renderTemplate and toGoValue.

import t from 'tap'
import { ExecError, ParseError, builtinFuncs, execute, parse, renderTemplate, toGoValue } from '../../src/gotemplate/index.ts'
import { GoFuncError, GoInt, GoObject, GoTime, goInt, int64, isMap, uint8 } from '../../src/gotemplate/value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from '../../src/gotemplate/value.ts'

function catchError(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

t.test('a parsed template executes many times with different data', async (t) => {
  const tpl = parse('t', 'hello {{.name}}')
  t.equal(execute(tpl, toGoValue({ name: 'a' })), 'hello a')
  t.equal(execute(tpl, toGoValue({ name: 'b' })), 'hello b')
})

t.test('ParseError carries the template name, line, column, action and Go message', async (t) => {
  const e = catchError(() => parse('tmpl', 'line one\n  {{ .a | nope }}'))
  t.ok(e instanceof ParseError)
  if (!(e instanceof ParseError)) return
  t.equal(e.message, 'template: tmpl:2: function "nope" not defined')
  t.equal(e.code, 'TEMPLATE_PARSE')
  t.equal(e.templateName, 'tmpl')
  t.equal(e.line, 2)
  t.equal(e.column, 10)
  t.equal(e.action, '{{ .a | nope }}')
  t.equal(e.detail, 'function "nope" not defined')
})

t.test('ExecError carries the location, the executing template and the action', async (t) => {
  const tpl = parse('main', '{{define "sub"}}\n  x {{ .missing }}{{end}}{{template "sub" .}}')
  const e = catchError(() => execute(tpl, toGoValue({ a: 1 })))
  t.ok(e instanceof ExecError)
  if (!(e instanceof ExecError)) return
  t.equal(e.message, 'template: main:2:7: executing "sub" at <.missing>: map has no entry for key "missing"')
  t.equal(e.code, 'TEMPLATE_EXEC')
  t.equal(e.templateName, 'main')
  t.equal(e.executing, 'sub')
  t.equal(e.line, 2)
  t.equal(e.column, 7)
  t.equal(e.action, '.missing')
  t.equal(e.detail, 'map has no entry for key "missing"')
})

t.test('columns count UTF-8 bytes as Go does', async (t) => {
  const e = catchError(() => execute(parse('t', 'é😀 {{.x}}'), toGoValue({})))
  t.ok(e instanceof ExecError)
  t.equal((e as ExecError).column, 9)
})

t.test('a function error keeps its cause', async (t) => {
  const boom = new GoFuncError('boom')
  const funcs: FuncMap = {
    fail: {
      fn: () => {
        throw boom
      },
      params: [],
    },
  }
  const e = catchError(() => execute(parse('t', '{{fail}}', funcs), null))
  t.ok(e instanceof ExecError)
  t.equal((e as ExecError).message, 'template: t:1:2: executing "t" at <fail>: error calling fail: boom')
  t.equal((e as ExecError).cause, boom)
})

t.test('a function that throws an ordinary Error reports it like a Go panic', async (t) => {
  const funcs: FuncMap = {
    bad: {
      fn: () => {
        throw new TypeError('oops')
      },
      params: [],
    },
  }
  const e = catchError(() => execute(parse('t', 'x{{bad}}', funcs), null))
  t.equal((e as ExecError).message, 'template: t:1:3: executing "t" at <bad>: error calling bad: oops')
})

t.test('FuncMap functions replace built-ins of the same name', async (t) => {
  const funcs: FuncMap = { len: { fn: () => 'mine', params: ['any'] } }
  t.equal(execute(parse('t', '{{len "abc"}}', funcs), null), 'mine')
  t.equal(execute(parse('t', '{{len "abc"}}'), null), '3')
})

t.test('builtinFuncs lists the text/template built-ins', async (t) => {
  t.same(Object.keys(builtinFuncs).sort(), [
    'and',
    'call',
    'eq',
    'ge',
    'gt',
    'html',
    'index',
    'js',
    'le',
    'len',
    'lt',
    'ne',
    'not',
    'or',
    'print',
    'printf',
    'println',
    'slice',
    'urlquery',
  ])
  t.ok(Object.isFrozen(builtinFuncs))
})

t.test('a function named like an Object.prototype member is not defined unless given', async (t) => {
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    const e = catchError(() => parse('t', `{{${name}}}`))
    t.ok(e instanceof ParseError, name)
    t.equal((e as ParseError).detail, `function "${name}" not defined`)
  }
})

t.test('execute can start from a defined template', async (t) => {
  const tpl = parse('t', '{{define "a"}}A{{.}}{{end}}main')
  t.equal(execute(tpl, 'x', { template: 'a' }), 'Ax')
  const e = catchError(() => execute(tpl, null, { template: 'nope' }))
  t.equal((e as ExecError).message, 'template: no template "nope" associated with template "t"')
})

t.test('missingKey option', async (t) => {
  const tpl = parse('t', '[{{.nope}}]')
  t.equal(execute(tpl, toGoValue({}), { missingKey: 'default' }), '[<no value>]')
  t.throws(() => execute(tpl, toGoValue({})), ExecError)
})

t.test('renderTemplate merges the built-ins, Sprig and extra functions', async (t) => {
  const extra: FuncMap = { shout: { fn: (s) => `${String(s)}!`, params: ['string'] } }
  t.equal(renderTemplate('t', '{{.a | shout}} {{len .l}}', toGoValue({ a: 'hi', l: [1, 2] }), extra), 'hi! 2')
  t.throws(() => renderTemplate('t', '{{nope}}', null), ParseError)
})

t.test('renderTemplate leaves out the environment and network functions', async (t) => {
  for (const name of ['env', 'expandenv', 'getHostByName']) {
    const e = catchError(() => renderTemplate('t', `{{${name} "HOME"}}`, null))
    t.ok(e instanceof ParseError, name)
  }
})

t.test('toGoValue decodes like encoding/json into interface{}', async (t) => {
  const v = toGoValue(JSON.parse('{"n": 3, "f": 1.5, "s": "x", "b": true, "z": null, "l": [1, "a", null], "__proto__": {"k": 1}}'))
  t.ok(isMap(v))
  if (!isMap(v)) return
  t.equal(Object.getPrototypeOf(v), null)
  t.equal(v.n, 3)
  t.equal(typeof v.n, 'number')
  t.equal(v.z, null)
  t.same(v.l, [1, 'a', null])
  t.ok(Object.hasOwn(v, '__proto__'))
  // biome-ignore lint/suspicious/noProto: the test is about a data key named __proto__
  t.ok(isMap(v['__proto__'] as GoValue))
  t.equal(execute(parse('t', '{{.n}} {{index . "__proto__" "k"}}'), v), '3 1')
})

t.test('toGoValue drops undefined members and replaces lone surrogates', async (t) => {
  const v = toGoValue({ a: undefined, s: 'x\ud800y', l: [undefined] })
  t.same(Object.keys(v as object), ['s', 'l'])
  t.equal((v as Record<string, GoValue>).s, 'x\ufffdy')
  t.same((v as Record<string, GoValue>).l, [null])
})

t.test('toGoValue keeps GoTime values and converts Dates like JSON', async (t) => {
  const time = new GoTime(0)
  t.equal(toGoValue({ t: time } as unknown as Record<string, unknown>) !== null, true)
  t.equal((toGoValue({ t: time }) as Record<string, GoValue>).t, time)
  t.equal((toGoValue({ d: new Date(0) }) as Record<string, GoValue>).d, '1970-01-01T00:00:00.000Z')
  t.throws(() => toGoValue(() => 1), TypeError)
})

t.test('a time value prints like Go time.Time.String()', async (t) => {
  t.equal(execute(parse('t', '{{.}}'), GoTime.fromMillis(Date.UTC(2024, 0, 2, 3, 4, 5))), '2024-01-02 03:04:05 +0000 UTC')
  t.equal(
    execute(parse('t', '{{.}}'), new GoTime(Date.UTC(2024, 0, 2, 3, 4, 5) / 1000, 123_456_789)),
    '2024-01-02 03:04:05.123456789 +0000 UTC',
  )
  t.equal(execute(parse('t', '{{if .}}true{{end}}'), new GoTime(0)), 'true')
})

interface SprigRow {
  readonly name: string
  readonly tmpl: string
  readonly want?: string
  readonly err?: string
}

// How the executor treats values built by Sprig functions; expected values are
// Go's text/template with Masterminds/sprig v3.
const sprigRows: SprigRow[] = [
  { name: 'ranges over an []int', tmpl: '{{ range $i, $e := until 3 }}{{ $e }}{{ end }}', want: '012' },
  {
    name: 'elements of an []int are not interfaces',
    tmpl: '{{ range until 1 }}{{ .x }}{{ end }}',
    err: 'template: t:1:22: executing "t" at <.x>: can\'t evaluate field x in type int',
  },
  { name: 'prints a []string', tmpl: '{{ splitList "," "a,b" }} {{ splitList "," "a,b" | len }}', want: '[a b] 2' },
  {
    name: 'slicing keeps the slice type',
    tmpl: '{{ $s := slice (splitList "," "a,b,c") 1 }}{{ printf "%T %v" $s $s }}',
    want: '[]string [b c]',
  },
  { name: 'a map[string]string key reads as a field', tmpl: '{{ (split "," "a,b")._1 }}', want: 'b' },
  { name: 'a missing key of a map[string]string indexes to ""', tmpl: '[{{ index (split "," "a") "_9" }}]', want: '[]' },
  {
    name: 'methods of a *semver.Version',
    tmpl: '{{ $v := semver "1.2.3-rc1+m" }}{{ $v.Major }}{{ $v.Minor }}{{ $v.Prerelease }} {{ $v }}',
    want: '12rc1 1.2.3-rc1+m',
  },
  {
    name: 'a method takes no arguments',
    tmpl: '{{ (semver "1.2.3").Major 1 }}',
    err: 'template: t:1:11: executing "t" at <"1.2.3">: wrong number of args for Major: want 0 got 1',
  },
  {
    name: 'an unknown method',
    tmpl: '{{ (semver "1.2.3").Nope }}',
    err: 'template: t:1:11: executing "t" at <"1.2.3">: can\'t evaluate field Nope in type *semver.Version',
  },
  {
    name: 'time values print and compare',
    tmpl: '{{ $t := toDate "2006-01-02" "2024-01-02" }}{{ $t }} {{ eq $t $t }}',
    want: '2024-01-02 00:00:00 +0000 UTC true',
  },
  { name: 'dict keys read as fields', tmpl: '{{ (dict "a" 1).a }}', want: '1' },
  {
    name: 'a missing dict key is an error',
    tmpl: '{{ (dict "a" 1).b }}',
    err: 'template: t:1:13: executing "t" at <1>: map has no entry for key "b"',
  },
]

for (const row of sprigRows) {
  t.test(`with Sprig: ${row.name}`, async (t) => {
    let got: string
    try {
      got = renderTemplate('t', row.tmpl, null)
    } catch (e) {
      got = `ERR ${(e as Error).message}`
    }
    t.equal(got, row.err === undefined ? row.want : `ERR ${row.err}`)
  })
}

t.test('data carries Go integer types: bigint is int, GoInt the others, number float64', async (t) => {
  const data = toGoValue({ f: 3, i: 3n, i64: int64(3n), b: uint8(7), m: goInt(300n, 'int8') })
  t.equal(execute(parse('t', '{{ printf "%T %T %T %T %T" .f .i .i64 .b .m }}'), data), 'float64 int int64 uint8 int8')
  // int8 wraps like a Go conversion: 300 is 44.
  t.equal(execute(parse('t', '{{ .f }} {{ .i }} {{ .i64 }} {{ .b }} {{ .m }}'), data), '3 3 3 7 44')
  t.equal(goInt(5n, 'int'), 5n, 'a plain int is a bigint, never a GoInt')
  t.ok(goInt(5n, 'int64') instanceof GoInt)
  t.equal(renderTemplate('t', '{{ trunc .i "abcdef" }}', data), 'abc')
  const e = catchError(() => renderTemplate('t', '{{ trunc .i64 "abcdef" }}', data))
  t.ok(e instanceof ExecError)
  t.equal((e as ExecError).detail, 'wrong type for value; expected int; got int64')
})

t.test('a function declares integer kinds; its body receives the bigint value', async (t) => {
  const funcs: FuncMap = {
    double: { fn: (n) => int64((n as bigint) * 2n), params: ['int64'] },
    small: { fn: (n) => String(n), params: ['uint8'] },
  }
  const data = toGoValue({ i: 4n, i64: int64(4n) })
  t.equal(execute(parse('t', '{{ double .i64 }} {{ double 5 }} {{ printf "%T" (double 1) }}', funcs), data), '8 10 int64')
  t.equal(execute(parse('t', '{{ small 257 }}', funcs), data), '1', 'a constant wraps to the width')
  const wrong = catchError(() => execute(parse('t', '{{ double .i }}', funcs), data))
  t.equal((wrong as ExecError).detail, 'wrong type for value; expected int64; got int')
  const negative = catchError(() => execute(parse('t', '{{ small -1 }}', funcs), data))
  t.equal((negative as ExecError).detail, 'expected unsigned integer; found -1')
})

class Release extends GoObject {
  readonly goType = 'chart.Release'
  readonly goKind = 'struct'
  method(name: string): GoFuncSpec | undefined {
    if (name === 'Greet') return { fn: (who) => `hello ${String(who)} from ${this.name}`, params: ['string'] }
    return undefined
  }
  override field(name: string): GoValue | undefined {
    return name === 'Name' ? this.name : undefined
  }
  override structFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [
      ['Name', this.name],
      ['revision', 2n],
    ]
  }
  readonly name: string
  constructor(name: string) {
    super()
    this.name = name
  }
}

t.test('a GoObject exposes exported fields and methods; fmt prints it as a struct', async (t) => {
  const data = toGoValue({ r: new Release('web') })
  const run = (text: string): string => execute(parse('t', text), data)
  t.equal(run('{{ .r.Name }} {{ .r.Greet "ops" }} {{ printf "%T" .r }}'), 'web hello ops from web chart.Release')
  t.equal(run('{{ .r }} {{ printf "%+v" .r }}'), '{web 2} {Name:web revision:2}')
  t.equal((catchError(() => run('{{ .r.revision }}')) as ExecError).detail, 'revision is an unexported field of struct type interface {}')
  t.equal((catchError(() => run('{{ .r.Nope }}')) as ExecError).detail, "can't evaluate field Nope in type interface {}")
  t.equal((catchError(() => run('{{ .r.Greet }}')) as ExecError).detail, 'wrong number of args for Greet: want 1 got 0')
  t.equal((catchError(() => run('{{ .r.Name 1 }}')) as ExecError).detail, 'Name has arguments but cannot be invoked as function')
})
