// Helm's --set syntax (src/helm/render/strvals.ts) and the merge of
// -f/--set/--set-string/--set-file (user-values.ts). Expected values are what
// `helm template --set ...` of Helm 3.22 produces for the same line; the CLI
// test (cli-render-chart.test.ts) checks whole renders against the binaries.

import t from 'tap'
import { GoInt } from '../../src/gotemplate/index.ts'
import { parseSetLine, SetValuesError, typedValue } from '../../src/helm/render/strvals.ts'
import { userValues } from '../../src/helm/render/user-values.ts'

/** JSON with int64 values written as {int64: "n"}, so a test can tell them from float64. */
function plain(v: unknown): unknown {
  if (v instanceof GoInt) return { int64: v.value.toString() }
  if (Array.isArray(v)) return v.map(plain)
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, plain(e)]))
  return v
}

function parsed(line: string, mode: 'typed' | 'string' = 'typed', base: Record<string, unknown> = {}): unknown {
  const dest = structuredClone(base)
  parseSetLine(line, dest, mode)
  return plain(dest)
}

const i64 = (n: string) => ({ int64: n })

const lines: Array<[line: string, want: unknown]> = [
  ['a=1,b=x', { a: i64('1'), b: 'x' }],
  ['a.b.c=true,x=FALSE,y=Null', { a: { b: { c: true } }, x: false, y: null }],
  ['a=0,b=007,c=-12,d=+3,e=1.5', { a: i64('0'), b: '007', c: i64('-12'), d: i64('3'), e: '1.5' }],
  ['a=9223372036854775807,b=9223372036854775808', { a: i64('9223372036854775807'), b: '9223372036854775808' }],
  ['a={x,y,1},b={}', { a: ['x', 'y', i64('1')], b: [''] }],
  ['a=', { a: '' }],
  ['list[0]=x,list[2]=z', { list: ['x', null, 'z'] }],
  ['list[1].name=n', { list: [null, { name: 'n' }] }],
  ['list[0][1]=q', { list: [[null, 'q']] }],
  ['a[0]', { a: [] }],
  ['a\\.b=1,c=x\\,y', { 'a.b': i64('1'), c: 'x,y' }],
  ['a=b=c', { a: 'b=c' }],
  ['.a=1', {}],
  ['a=falſe', { a: false }],
  ['a[0]=x,a[0].b=1', { a: [{ b: i64('1') }] }],
]

for (const [line, want] of lines) {
  t.test(`--set ${line}`, async (t) => {
    t.strictSame(parsed(line), want)
  })
}

t.test('--set-string keeps every value a string', async (t) => {
  t.strictSame(parsed('a=true,b=1,c=null,d={1,2}', 'string'), { a: 'true', b: '1', c: 'null', d: ['1', '2'] })
})

t.test('--set reads into the values it is given: nested maps and lists are extended', async (t) => {
  t.strictSame(parsed('base.list[3]=4,base.map.b=2', 'typed', { base: { list: [1, 2], map: { a: 1 } } }), {
    base: { list: [1, 2, null, i64('4')], map: { a: 1, b: i64('2') } },
  })
})

const errors: Array<[line: string, message: string, base?: Record<string, unknown>]> = [
  ['a', 'key "a" has no value'],
  ['a,b=1', 'key "a" has no value (cannot end with ,)'],
  ['a.b', 'key "b" has no value'],
  ['a.=1', 'key map "a" has no value'],
  ['a={x,y', "list must terminate with '}'"],
  ['a[x]=1', 'error parsing index: strconv.Atoi: parsing "x": invalid syntax'],
  ['a[-1]=1', 'negative -1 index not allowed'],
  ['a[70000]=1', 'index of 70000 is greater than maximum supported index of 65536'],
  ['a[0]x=1', "unexpected data at end of array index: ['x']"],
  [
    `${Array.from({ length: 32 }, (_, i) => `k${i}`).join('.')}=1`,
    'value name nested level is greater than maximum supported nested level of 30',
  ],
  ['a=null,a.b=1', 'unable to parse key: interface conversion: interface {} is nil, not map[string]interface {}'],
  ['n.x=1', 'unable to parse key: interface conversion: interface {} is float64, not map[string]interface {}', { n: 5 }],
  ['l.x=1', 'unable to parse key: interface conversion: interface {} is []interface {}, not map[string]interface {}', { l: [1] }],
  ['a=1,a[0]=2', 'unable to parse key: interface conversion: interface {} is int64, not []interface {}'],
]

for (const [line, message, base] of errors) {
  t.test(`--set ${line} fails`, async (t) => {
    t.throws(() => parsed(line, 'typed', base), new SetValuesError(message))
  })
}

t.test('typedValue: what --set makes of a value', async (t) => {
  t.equal(typedValue('TRUE'), true)
  t.equal(typedValue('nil'), 'nil')
  t.equal(typedValue(''), '')
  t.equal(typedValue('1e3'), '1e3')
  t.strictSame(plain(typedValue('-0')), i64('0'))
})

t.test('userValues: -f files merged in order, then --set, --set-string, --set-file', async (t) => {
  const files: Record<string, string> = {
    'a.yaml': 'x: 1\nm: {a: 1, b: 1}\nlist: [1, 2]\n',
    'b.yaml': 'm: {b: 2}\nlist: [3]\n---\nignored: by helm 3\n',
    'note.txt': 'from a file\n',
  }
  const read = (p: string) => {
    const text = files[p]
    if (text === undefined) throw new Error(`open ${p}: no such file or directory`)
    return text
  }
  const flags = { valueFiles: ['a.yaml', 'b.yaml'], set: ['x=2', 'y=true'], setString: ['x=3'], setFile: ['note=note.txt'] }
  t.strictSame(plain(userValues('v3', flags, read)), { x: '3', m: { a: 1, b: 2 }, list: [3], y: true, note: 'from a file\n' })
  t.strictSame(
    plain(userValues('v4', flags, read)),
    { x: '3', m: { a: 1, b: 2 }, list: [3], ignored: 'by helm 3', y: true, note: 'from a file\n' },
    'Helm 4 merges every document',
  )
  t.throws(() => userValues('v3', { ...flags, valueFiles: ['missing.yaml'] }, read), {
    message: 'values file missing.yaml: open missing.yaml: no such file or directory',
  })
  t.throws(() => userValues('v3', { ...flags, set: ['a,'] }, read), {
    message: 'failed parsing --set data: key "a" has no value (cannot end with ,)',
  })
  t.throws(() => userValues('v3', { ...flags, setFile: ['n=gone.txt'] }, read), {
    message: 'failed parsing --set-file data: open gone.txt: no such file or directory',
  })
  t.throws(() => userValues('v3', { ...flags, valueFiles: ['note.txt'] }, read), {
    message: /^failed to parse note\.txt: values must be a YAML mapping/,
  })
})

t.test('a name may nest 30 levels deep, not 31', async (t) => {
  const name = (dots: number) => Array.from({ length: dots + 1 }, (_, i) => `k${i}`).join('.')
  t.doesNotThrow(() => parsed(`${name(30)}=1`))
  t.throws(() => parsed(`${name(31)}=1`), SetValuesError)
})
