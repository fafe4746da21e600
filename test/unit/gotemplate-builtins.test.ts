// The built-ins len, index, slice, html, js, urlquery and call.

import t from 'tap'
import { ExecError, ParseError, execute, parse, toGoValue } from '../../src/gotemplate/index.ts'
import type { MissingKey } from '../../src/gotemplate/index.ts'

const D = { l: [1, 'x', null], m: { a: 1, n: null, s: 'str', nested: { k: ['v0', 'v1'] } }, s: 'héllo', n: null }

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  { name: 'len of string counts bytes', tmpl: '{{len "abc"}} {{len .s}} {{len ""}}', data: D, want: '3 6 0' },
  { name: 'len of list and map', tmpl: '{{len .l}} {{len .m}}', data: D, want: '3 4' },
  {
    name: 'len of nil map value',
    tmpl: '{{len .n}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <len .n>: error calling len: len of nil pointer',
    kind: 'exec',
  },
  {
    name: 'len of nil literal',
    tmpl: '{{len nil}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <len nil>: error calling len: reflect: call of reflect.Value.Type on zero Value',
    kind: 'exec',
  },
  {
    name: 'len of an int',
    tmpl: '{{len 3}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <len 3>: error calling len: len of type int',
    kind: 'exec',
  },
  { name: 'index of lists', tmpl: '{{index .l 0}} {{index .l 1}} {{index .l 2}}', data: D, want: '1 x <no value>' },
  { name: 'index of maps and nested', tmpl: '{{index .m "s"}} {{index .m "nested" "k" 1}}', data: D, want: 'str v1' },
  { name: 'index of a missing map key is no value', tmpl: '{{index .m "nope"}}', data: D, want: '<no value>' },
  { name: 'index of a string gives a byte', tmpl: '{{index "abc" 1}} {{index .s 1}}', data: D, want: '98 195' },
  { name: 'index without indexes returns the item', tmpl: '{{index .l}}', data: D, want: '[1 x <nil>]' },
  {
    name: 'index out of range',
    tmpl: '{{index .l 4}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .l 4>: error calling index: index out of range: 4',
    kind: 'exec',
  },
  {
    name: 'index at the length',
    tmpl: '{{index .l 3}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .l 3>: error calling index: reflect: slice index out of range',
    kind: 'exec',
  },
  {
    name: 'index of a string at the length',
    tmpl: '{{index "ab" 2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index "ab" 2>: error calling index: reflect: string index out of range',
    kind: 'exec',
  },
  {
    name: 'negative index',
    tmpl: '{{index .l -1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .l -1>: error calling index: index out of range: -1',
    kind: 'exec',
  },
  {
    name: 'index with a float',
    tmpl: '{{index .l 1.0}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .l 1.0>: error calling index: cannot index slice/array with type float64',
    kind: 'exec',
  },
  {
    name: 'index with a string into a list',
    tmpl: '{{index .l "a"}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .l "a">: error calling index: cannot index slice/array with type string',
    kind: 'exec',
  },
  {
    name: 'index of a map with an int',
    tmpl: '{{index .m 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .m 1>: error calling index: value has type int; should be string',
    kind: 'exec',
  },
  {
    name: 'index of a map with nil',
    tmpl: '{{index .m nil}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .m nil>: error calling index: value is nil; should be of type string',
    kind: 'exec',
  },
  {
    name: 'index of nil',
    tmpl: '{{index nil 1}} ',
    data: D,
    err: 'template: t:1:2: executing "t" at <index nil 1>: error calling index: index of untyped nil',
    kind: 'exec',
  },
  {
    name: 'index of a nil map value',
    tmpl: '{{index .n 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .n 1>: error calling index: index of untyped nil',
    kind: 'exec',
  },
  {
    name: 'index through a missing key',
    tmpl: '{{index .m "nope" "x"}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .m "nope" "x">: error calling index: index of nil pointer',
    kind: 'exec',
  },
  {
    name: 'index of an int',
    tmpl: '{{index 5 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index 5 1>: error calling index: can\'t index item of type int',
    kind: 'exec',
  },
  {
    name: 'index of a byte',
    tmpl: '{{index .s 1 0}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <index .s 1 0>: error calling index: can\'t index item of type uint8',
    kind: 'exec',
  },
  {
    name: 'slice of lists',
    tmpl: '{{slice .l 1}} {{slice .l 1 2}} {{slice .l}} {{slice .l 0 0}} {{slice .l 3}}',
    data: D,
    want: '[x <nil>] [x] [1 x <nil>] [] []',
  },
  { name: 'slice of strings by bytes', tmpl: '{{slice "abcdef" 1 3}} {{slice "abc" 2}}', data: D, want: 'bc c' },
  { name: 'three-index slice of a list', tmpl: '{{slice .l 0 1 2}}', data: D, want: '[1]' },
  {
    name: 'three-index slice of a string',
    tmpl: '{{slice "abc" 0 1 2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice "abc" 0 1 2>: error calling slice: cannot 3-index slice a string',
    kind: 'exec',
  },
  {
    name: 'slice with reversed bounds',
    tmpl: '{{slice .l 2 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice .l 2 1>: error calling slice: invalid slice index: 2 > 1',
    kind: 'exec',
  },
  {
    name: 'three-index slice with reversed bounds',
    tmpl: '{{slice .l 0 2 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice .l 0 2 1>: error calling slice: invalid slice index: 2 > 1',
    kind: 'exec',
  },
  {
    name: 'too many slice indexes',
    tmpl: '{{slice .l 0 1 2 3}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice .l 0 1 2 3>: error calling slice: too many slice indexes: 4',
    kind: 'exec',
  },
  {
    name: 'slice beyond the end',
    tmpl: '{{slice "abc" 1 4}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice "abc" 1 4>: error calling slice: index out of range: 4',
    kind: 'exec',
  },
  {
    name: 'slice of an int',
    tmpl: '{{slice 3 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice 3 1>: error calling slice: can\'t slice item of type int',
    kind: 'exec',
  },
  {
    name: 'slice of nil',
    tmpl: '{{slice nil 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <slice nil 1>: error calling slice: slice of untyped nil',
    kind: 'exec',
  },
  { name: 'html escapes markup', tmpl: '{{html "<a href=\'x\'>&\\""}}', data: D, want: '&lt;a href=&#39;x&#39;&gt;&amp;&#34;' },
  {
    name: 'html of several operands and nil',
    tmpl: '{{html 1 2}} {{html nil}} {{html "\\u0000"}}',
    data: D,
    want: '1 2 &lt;no value&gt; �',
  },
  {
    name: 'js escapes quotes, markup and control characters',
    tmpl: '{{js "<a>\'\\"\\\\=&\\n\\u2028é\\u007f\\u00a0"}}',
    data: D,
    want: '\\u003Ca\\u003E\\\'\\"\\\\\\u003D\\u0026\\u000A\\u2028é\u007f\\u00A0',
  },
  { name: 'js of non-strings', tmpl: '{{js .l}} {{js nil}}', data: D, want: '[1 x \\u003Cnil\\u003E] \\u003Cno value\\u003E' },
  {
    name: 'urlquery escapes for a query component',
    tmpl: '{{urlquery "a b&c=d/é~-_."}} {{urlquery 1 "a"}} {{urlquery .n}}',
    data: D,
    want: 'a+b%26c%3Dd%2F%C3%A9~-_. 1a %3Cno+value%3E',
  },
  { name: 'print functions pipe', tmpl: '{{.m.s | html | printf "[%s]"}}', data: D, want: '[str]' },
  {
    name: 'call of a non-function value',
    tmpl: '{{call .m.s}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <call .m.s>: error calling call: non-function .m.s of type string',
    kind: 'exec',
  },
  {
    name: 'call of nil',
    tmpl: '{{call .m.n 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <call .m.n 1>: error calling call: call of nil',
    kind: 'exec',
  },
  {
    name: 'call without arguments',
    tmpl: '{{call}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <call>: wrong number of args for call: want at least 1 got 0',
    kind: 'exec',
  },
  {
    name: 'not with two arguments',
    tmpl: '{{not 1 2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <not>: wrong number of args for not: want 1 got 2',
    kind: 'exec',
  },
  {
    name: 'eq needs arguments',
    tmpl: '{{eq}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq>: wrong number of args for eq: want at least 1 got 0',
    kind: 'exec',
  },
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
