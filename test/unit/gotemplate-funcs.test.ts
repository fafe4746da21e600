// How FuncMap functions receive arguments: arity, conversion of literals and
// values to the declared Go parameter types (ArgKind), variadic parameters,
// piped values, and errors returned by a function.

import { type Row, runTable } from './helpers/gotemplate-table.ts'
import { GoFuncError } from '../../src/gotemplate/value.ts'
import type { FuncMap, GoValue } from '../../src/gotemplate/value.ts'
import { sprint, sprintf } from '../../src/gotemplate/fmt.ts'
import { tagType } from '../../src/gotemplate/sprig/types.ts'

// Each function mirrors a Go function with the signature in its comment; the
// expected rows below are Go's output with those Go functions.
const count = (v: GoValue): bigint => BigInt(v === null ? 0 : Object.keys(v as object).length)
const funcs: FuncMap = {
  fstr: { fn: (s) => 's:' + (s as string), params: ['string'] }, // func(string) string
  fint: { fn: (i) => (i as bigint) * 2n, params: ['int'] }, // func(int) int
  fint64: { fn: (i) => (i as bigint) * 2n, params: ['int64'] }, // func(int64) int64
  ffloat: { fn: (f) => (f as number) * 2, params: ['float64'] }, // func(float64) float64
  fbool: { fn: (b) => !b, params: ['bool'] }, // func(bool) bool
  flist: { fn: (l) => count(l), params: ['list'] }, // func([]interface{}) int
  fmap: { fn: (m) => count(m), params: ['map'] }, // func(map[string]interface{}) int
  fstrs: { fn: (l) => count(l), params: ['strings'] }, // func([]string) int
  fany: { fn: (a) => sprintf('%T:%v', [a, a]), params: ['any'] }, // func(interface{}) string
  fvar: { fn: (s, ...n) => sprint([s, tagType(n, '[]int')]), params: ['string'], variadic: 'int' }, // func(string, ...int) string
  ferr: {
    fn: () => {
      throw new GoFuncError('boom')
    },
    params: [],
  }, // func() (string, error)
  fnil: { fn: () => null, params: [] }, // func() interface{}
  fzero: { fn: () => 'z', params: [] }, // func() string
  strs: { fn: (...a) => tagType(a, '[]string'), params: [], variadic: 'string' }, // func(...string) []string
}

const D = { m: { a: 1, n: null, s: 'str' }, l: ['a', 'b'], f: 1.5 }

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  {
    name: 'string parameter takes a string literal and value',
    tmpl: '{{fstr "a"}} {{fstr .m.s}} {{.m.s | fstr}}',
    data: D,
    want: 's:a s:str s:str',
  },
  { name: 'int parameter takes an int literal', tmpl: "{{fint 21}} {{fint 2.0}} {{fint 'a'}} {{fint 0x10}}", data: D, want: '42 4 194 32' },
  {
    name: 'int parameter rejects a float literal',
    tmpl: '{{fint 1.5}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <1.5>: expected integer; found 1.5',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects a string literal',
    tmpl: '{{fint "a"}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <"a">: expected integer; found "a"',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects nil',
    tmpl: '{{fint nil}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <nil>: cannot assign nil to int',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects a JSON number',
    tmpl: '{{fint .m.a}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <.m.a>: wrong type for value; expected int; got float64',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects a nil map value',
    tmpl: '{{fint .m.n}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <.m.n>: wrong type for value; expected int; got interface {}',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects no value',
    tmpl: '{{$x := index .m "q"}}{{fint $x}}',
    data: D,
    err: 'template: t:1:29: executing "t" at <$x>: invalid value; expected int',
    kind: 'exec',
  },
  {
    name: 'int parameter rejects a piped string',
    tmpl: '{{.m.s | fint}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <fint>: wrong type for value; expected int; got string',
    kind: 'exec',
  },
  { name: 'int64 parameter takes an int literal', tmpl: '{{fint64 4}}', data: D, want: '8' },
  {
    name: 'float64 parameter takes int and float literals',
    tmpl: "{{ffloat 2}} {{ffloat 1.25}} {{ffloat 'a'}} {{ffloat .f}}",
    data: D,
    want: '4 2.5 194 3',
  },
  {
    name: 'float64 parameter rejects an int value',
    tmpl: '{{ffloat (fint 2)}}',
    data: D,
    err: 'template: t:1:15: executing "t" at <2>: wrong type for value; expected float64; got int',
    kind: 'exec',
  },
  {
    name: 'float64 parameter rejects a string',
    tmpl: '{{ffloat "1"}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <"1">: expected float; found "1"',
    kind: 'exec',
  },
  { name: 'bool parameter', tmpl: '{{fbool true}} {{fbool false}}', data: D, want: 'false true' },
  {
    name: 'bool parameter rejects an int',
    tmpl: '{{fbool 1}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <1>: expected bool; found 1',
    kind: 'exec',
  },
  {
    name: 'bool parameter rejects a JSON number',
    tmpl: '{{fbool .m.a}}',
    data: D,
    err: 'template: t:1:10: executing "t" at <.m.a>: wrong type for value; expected bool; got float64',
    kind: 'exec',
  },
  {
    name: 'string parameter rejects nil',
    tmpl: '{{fstr nil}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <nil>: cannot assign nil to string',
    kind: 'exec',
  },
  {
    name: 'string parameter rejects a nil map value',
    tmpl: '{{fstr .m.n}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <.m.n>: wrong type for value; expected string; got interface {}',
    kind: 'exec',
  },
  {
    name: 'string parameter rejects an int literal',
    tmpl: '{{fstr 1}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <1>: expected string; found 1',
    kind: 'exec',
  },
  { name: 'list parameter takes a list and nil', tmpl: '{{flist .l}} {{flist nil}}', data: D, want: '2 0' },
  {
    name: 'list parameter rejects a literal',
    tmpl: '{{flist "x"}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <"x">: can\'t handle "x" for arg of type []interface {}',
    kind: 'exec',
  },
  {
    name: 'list parameter rejects a map',
    tmpl: '{{flist .m}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <.m>: wrong type for value; expected []interface {}; got map[string]interface {}',
    kind: 'exec',
  },
  {
    name: 'list parameter rejects a nil map value',
    tmpl: '{{flist .m.n}}',
    data: D,
    err: 'template: t:1:10: executing "t" at <.m.n>: wrong type for value; expected []interface {}; got interface {}',
    kind: 'exec',
  },
  { name: 'map parameter takes a map and nil', tmpl: '{{fmap .m}} {{fmap nil}}', data: D, want: '3 0' },
  {
    name: 'map parameter rejects a list',
    tmpl: '{{fmap .l}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <.l>: wrong type for value; expected map[string]interface {}; got []interface {}',
    kind: 'exec',
  },
  { name: '[]string parameter takes a []string', tmpl: '{{fstrs (strs "a" "b")}}', data: D, want: '2' },
  {
    name: '[]string parameter rejects a JSON list',
    tmpl: '{{fstrs .l}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <.l>: wrong type for value; expected []string; got []interface {}',
    kind: 'exec',
  },
  {
    name: 'any parameter takes untyped constants by their syntax',
    tmpl: '{{fany 1}}|{{fany 1.0}}|{{fany 1e3}}|{{fany 0x1E}}|{{fany \'a\'}}|{{fany 0x1p3}}|{{fany "s"}}|{{fany true}}',
    data: D,
    want: 'int:1|float64:1|float64:1000|int:30|int:97|float64:8|string:s|bool:true',
  },
  {
    name: 'any parameter takes nil',
    tmpl: '{{fany nil}}|{{fany .m.n}}|{{$x := index .m "q"}}{{fany $x}}',
    data: D,
    want: '<nil>:<nil>|<nil>:<nil>|<nil>:<nil>',
  },
  {
    name: 'variadic parameters',
    tmpl: '{{fvar "a"}} {{fvar "a" 1 2}} {{1 | fvar "b" 2}} {{"c" | fvar}}',
    data: D,
    want: 'a[] a[1 2] b[2 1] c[]',
  },
  {
    name: 'variadic parameter converts each argument',
    tmpl: '{{fvar "a" 1 2.5}}',
    data: D,
    err: 'template: t:1:13: executing "t" at <2.5>: expected integer; found 2.5',
    kind: 'exec',
  },
  {
    name: 'variadic fixed parameter converts',
    tmpl: '{{fvar 1}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <1>: expected string; found 1',
    kind: 'exec',
  },
  {
    name: 'variadic arity counts explicit arguments',
    tmpl: '{{fvar}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <fvar>: wrong number of args for fvar: want at least 1 got 0',
    kind: 'exec',
  },
  {
    name: 'fixed arity counts the piped value',
    tmpl: '{{"a" | fstr "b"}}',
    data: D,
    err: 'template: t:1:8: executing "t" at <fstr>: wrong number of args for fstr: want 1 got 2',
    kind: 'exec',
  },
  {
    name: 'no-argument function rejects an argument',
    tmpl: '{{fzero 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <fzero>: wrong number of args for fzero: want 0 got 1',
    kind: 'exec',
  },
  {
    name: 'no-argument function rejects a piped value',
    tmpl: '{{1 | fzero}}',
    data: D,
    err: 'template: t:1:6: executing "t" at <fzero>: wrong number of args for fzero: want 0 got 1',
    kind: 'exec',
  },
  {
    name: 'function error',
    tmpl: '{{ferr}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <ferr>: error calling ferr: boom',
    kind: 'exec',
  },
  {
    name: 'function error inside a pipeline names the whole command',
    tmpl: '{{print (ferr) 1}}',
    data: D,
    err: 'template: t:1:9: executing "t" at <ferr>: error calling ferr: boom',
    kind: 'exec',
  },
  {
    name: 'nil result prints no value but prints nil through print',
    tmpl: '{{fnil}}|{{print fnil}}|{{print (fnil)}}',
    data: D,
    want: '<no value>|<nil>|<nil>',
  },
  {
    name: 'function result fields',
    tmpl: '{{(fnil).x}}',
    data: D,
    err: 'template: t:1:3: executing "t" at <fnil>: nil data; no entry for key "x"',
    kind: 'exec',
  },
  {
    name: 'field of a function result',
    tmpl: '{{fzero.x}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <fzero>: can\'t evaluate field x in type string',
    kind: 'exec',
  },
  { name: 'function as argument without parentheses', tmpl: '{{fstr fzero}}', data: D, want: 's:z' },
  {
    name: 'int overflowing int passed to any',
    tmpl: '{{fany 18446744073709551615}}',
    data: D,
    err: 'template: t:1:7: executing "t" at <18446744073709551615>: 18446744073709551615 overflows int',
    kind: 'exec',
  },
]

runTable(rows, funcs)
