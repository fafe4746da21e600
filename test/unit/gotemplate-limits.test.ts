// Safety: resource limits with clear errors, and no way from a template to
// JS prototypes or anything outside the data it is given.

import t from 'tap'
import { ExecError, defaultLimits, execute, parse, toGoValue } from '../../src/gotemplate/index.ts'
import type { ExecErrorCode } from '../../src/gotemplate/index.ts'
import type { FuncMap, GoValue } from '../../src/gotemplate/value.ts'

function execError(fn: () => unknown): ExecError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ExecError) return e
    throw e
  }
  throw new Error('no error')
}

t.test('default limits are frozen and documented values', async (t) => {
  t.ok(Object.isFrozen(defaultLimits))
  t.same(defaultLimits, {
    maxOutputBytes: 16 * 1024 * 1024,
    maxTemplateDepth: 100,
    maxRangeIterations: 1_000_000,
    maxTemplateCalls: 100_000,
  })
})

interface LimitCase {
  readonly name: string
  readonly tmpl: string
  readonly data?: unknown
  readonly limits: Parameters<typeof execute>[2]
  readonly code: ExecErrorCode
  readonly message: string
}

const over: LimitCase[] = [
  {
    name: 'output larger than the limit',
    tmpl: '{{range 20}}0123456789{{end}}',
    limits: { limits: { maxOutputBytes: 150 } },
    code: 'TEMPLATE_OUTPUT_LIMIT',
    message: 'template: t:1:12: executing "t" at <0123456789>: output exceeds the limit of 150 bytes',
  },
  {
    name: 'output limit counts UTF-8 bytes',
    tmpl: '{{range 10}}ééééé{{end}}',
    limits: { limits: { maxOutputBytes: 60 } },
    code: 'TEMPLATE_OUTPUT_LIMIT',
    message: 'template: t:1:12: executing "t" at <ééééé>: output exceeds the limit of 60 bytes',
  },
  {
    name: 'a function result larger than the output limit',
    tmpl: '{{$x := "ab"}}{{range 12}}{{$x = printf "%s%s" $x $x}}{{end}}',
    limits: { limits: { maxOutputBytes: 4096 } },
    code: 'TEMPLATE_OUTPUT_LIMIT',
    message: 'template: t:1:33: executing "t" at <printf "%s%s" $x $x>: error calling printf: result exceeds the limit of 4096 bytes',
  },
  {
    name: 'range iterations of nested loops count together',
    tmpl: '{{range 10}}{{range 10}}{{end}}{{end}}',
    limits: { limits: { maxRangeIterations: 105 } },
    code: 'TEMPLATE_RANGE_LIMIT',
    message: 'template: t:1:20: executing "t" at <10>: range loops exceeded the limit of 105 iterations',
  },
  {
    name: 'template recursion deeper than the limit',
    tmpl: '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
    limits: { limits: { maxTemplateDepth: 20 } },
    code: 'TEMPLATE_DEPTH_LIMIT',
    message: 'template: t:1:25: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (20)',
  },
  {
    name: 'template recursion with the default depth',
    tmpl: '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
    limits: {},
    code: 'TEMPLATE_DEPTH_LIMIT',
    message: 'template: t:1:25: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (100)',
  },
  {
    name: 'template calls that fan out',
    tmpl: '{{define "r"}}{{if .}}{{template "r" (slice . 1)}}{{template "r" (slice . 1)}}{{end}}{{end}}{{template "r" .}}',
    data: Array.from({ length: 30 }, () => 1),
    limits: { limits: { maxTemplateCalls: 1000 } },
    code: 'TEMPLATE_CALL_LIMIT',
    message: 'template: t:1:33: executing "r" at <{{template "r" (slice . 1)}}>: template calls exceeded the limit of 1000',
  },
]

for (const c of over) {
  t.test(`fails on ${c.name}`, async (t) => {
    const e = execError(() => execute(parse('t', c.tmpl), toGoValue(c.data ?? null), c.limits))
    t.equal(e.code, c.code)
    t.equal(e.message, c.message)
  })
}

t.test('output exactly at the limit passes', async (t) => {
  t.equal(execute(parse('t', '{{range 10}}é{{end}}'), null, { limits: { maxOutputBytes: 20 } }).length, 10)
})

t.test('range iterations exactly at the limit pass', async (t) => {
  t.equal(execute(parse('t', '{{range 10}}{{range 10}}x{{end}}{{end}}'), null, { limits: { maxRangeIterations: 110 } }).length, 100)
})

t.test('a function returning a string over the limit fails', async (t) => {
  const funcs: FuncMap = { big: { fn: () => 'x'.repeat(2000), params: [] } }
  const e = execError(() => execute(parse('t', '{{$x := big}}', funcs), null, { limits: { maxOutputBytes: 1000 } }))
  t.equal(e.message, 'template: t:1:8: executing "t" at <big>: error calling big: result exceeds the limit of 1000 bytes')
  t.equal(e.code, 'TEMPLATE_OUTPUT_LIMIT')
})

t.test('deeply nested data exhausting the stack is an execution error', async (t) => {
  let v: GoValue = 1
  for (let i = 0; i < 200_000; i++) v = [v]
  const e = execError(() => execute(parse('t', '{{.}}'), v))
  t.equal(e.code, 'TEMPLATE_DEPTH_LIMIT')
  t.match(e.message, /^template: t:1:2: executing "t" at <\{\{\.\}\}>: /)
})

t.test('parenthesized nesting is limited while parsing', async (t) => {
  const ok = '{{' + '('.repeat(500) + '1' + ')'.repeat(500) + '}}'
  t.equal(execute(parse('t', ok), null), '1')
  const deep = '{{' + '('.repeat(1001) + '1' + ')'.repeat(1001) + '}}'
  t.throws(() => parse('t', deep), { name: 'ParseError', message: 'template: t:1: max expression depth exceeded' })
})

t.test('control structure nesting is limited while parsing', async (t) => {
  const deep = '{{if 1}}'.repeat(1001) + '{{end}}'.repeat(1001)
  t.throws(() => parse('t', deep), { message: 'template: t:1: max expression depth exceeded' })
  const ok = '{{if 1}}'.repeat(500) + 'x' + '{{end}}'.repeat(500)
  t.equal(execute(parse('t', ok), null), 'x')
})

interface ProtoCase {
  readonly name: string
  readonly tmpl: string
  readonly want?: string
  readonly err?: string
}

// Object.prototype members are never reachable: maps hold own keys only.
const proto: ProtoCase[] = [
  {
    name: '.constructor is a missing key',
    tmpl: '{{.constructor}}',
    err: 'template: t:1:2: executing "t" at <.constructor>: map has no entry for key "constructor"',
  },
  {
    name: '.__proto__ is a missing key',
    tmpl: '{{.__proto__.constructor}}',
    err: 'template: t:1:12: executing "t" at <.__proto__.constructor>: map has no entry for key "__proto__"',
  },
  {
    name: '.toString is a missing key',
    tmpl: '{{.toString}}',
    err: 'template: t:1:2: executing "t" at <.toString>: map has no entry for key "toString"',
  },
  {
    name: '.hasOwnProperty is a missing key',
    tmpl: '{{.a.hasOwnProperty}}',
    err: 'template: t:1:4: executing "t" at <.a.hasOwnProperty>: map has no entry for key "hasOwnProperty"',
  },
  {
    name: 'index by a prototype name finds nothing',
    tmpl: '{{index . "constructor"}}{{index .a "__proto__"}}{{index . "valueOf"}}',
    want: '<no value><no value><no value>',
  },
  {
    name: 'a list has no fields',
    tmpl: '{{.l.length}}',
    err: 'template: t:1:4: executing "t" at <.l.length>: can\'t evaluate field length in type interface {}',
  },
  {
    name: 'a string has no fields',
    tmpl: '{{.a.b.length}}',
    err: 'template: t:1:4: executing "t" at <.a.b.length>: can\'t evaluate field length in type interface {}',
  },
  { name: 'len counts own keys only', tmpl: '{{len .a}} {{len .}}', want: '1 2' },
]

for (const c of proto) {
  t.test(c.name, async (t) => {
    const data = toGoValue({ a: { b: 'x' }, l: [1] })
    let got: string
    try {
      got = execute(parse('t', c.tmpl), data)
    } catch (e) {
      got = `ERR ${(e as Error).message}`
    }
    t.equal(got, c.err === undefined ? c.want : `ERR ${c.err}`)
  })
}

t.test('the module reads no environment, files or network', async (t) => {
  const fs = await import('node:fs')
  const dir = new URL('../../src/gotemplate/', import.meta.url)
  const own = ['ast', 'builtins', 'compare', 'errors', 'escape', 'exec', 'fmt', 'index', 'lex', 'limits', 'parse', 'strconv', 'value']
  for (const f of own) {
    const src = fs.readFileSync(new URL(`${f}.ts`, dir), 'utf8')
    t.notMatch(src, /process\.env|node:fs|node:net|node:http|node:child_process|\beval\(|new Function/, f)
  }
})
