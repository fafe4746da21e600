// eq ne lt le gt ge and truth, with Go's type rules: basic kinds only, int
// and float64 incompatible, lists and maps not comparable.

import { type Row, runTable } from './helpers/gotemplate-table.ts'

const D = { l: [1, 2], l2: [1, 2], m: { k: 'v' }, n: null, f: 1.5, i: 3, s: 'b' }

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  { name: 'eq of equal and different ints', tmpl: '{{eq 1 1}} {{eq 1 2}}', want: 'true false' },
  { name: 'eq of floats', tmpl: '{{eq 1.5 .f}} {{eq .i 3.0}} {{eq 0.1 0.1}}', data: D, want: 'true true true' },
  {
    name: 'eq of strings and bools',
    tmpl: '{{eq "a" "a"}} {{eq .s "a"}} {{eq true true}} {{eq true false}}',
    data: D,
    want: 'true false true false',
  },
  { name: 'eq with several arguments', tmpl: '{{eq .s "a" "b" "c"}} {{eq 1 2 3}}', data: D, want: 'true false' },
  { name: 'eq stops at the first match before a bad type', tmpl: '{{eq 1 1 "a"}}', want: 'true' },
  {
    name: 'eq of int and float is an error',
    tmpl: '{{eq 1 1.0}}',
    err: 'template: t:1:2: executing "t" at <eq 1 1.0>: error calling eq: incompatible types for comparison: int and float64',
    kind: 'exec',
  },
  {
    name: 'eq of a JSON number and an int is an error',
    tmpl: '{{eq .i 3}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq .i 3>: error calling eq: incompatible types for comparison: float64 and int',
    kind: 'exec',
  },
  {
    name: 'eq of string and int is an error',
    tmpl: '{{eq "1" 1}}',
    err: 'template: t:1:2: executing "t" at <eq "1" 1>: error calling eq: incompatible types for comparison: string and int',
    kind: 'exec',
  },
  {
    name: 'eq without a second argument',
    tmpl: '{{eq 1}}',
    err: 'template: t:1:2: executing "t" at <eq 1>: error calling eq: missing argument for comparison',
    kind: 'exec',
  },
  { name: 'eq of nil values', tmpl: '{{eq nil nil}} {{eq .n nil}} {{eq .n .n}}', data: D, want: 'true true true' },
  {
    name: 'eq of nil and a value is false',
    tmpl: '{{eq .n 1}} {{eq 1 .n}} {{eq .l nil}} {{eq nil .m}}',
    data: D,
    want: 'false false false false',
  },
  {
    name: 'eq of lists is an error',
    tmpl: '{{eq .l .l2}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq .l .l2>: error calling eq: non-comparable type [%!s(float64=1) %!s(float64=2)]: []interface {}',
    kind: 'exec',
  },
  {
    name: 'eq of maps is an error',
    tmpl: '{{eq .m .m}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq .m .m>: error calling eq: non-comparable type map[k:v]: map[string]interface {}',
    kind: 'exec',
  },
  {
    name: 'eq of a list and a map',
    tmpl: '{{eq .l .m}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq .l .m>: error calling eq: non-comparable types [%!s(float64=1) %!s(float64=2)]: []interface {}, map[string]interface {}: map[k:v]',
    kind: 'exec',
  },
  {
    name: 'eq of a list and an int',
    tmpl: '{{eq .l 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <eq .l 1>: error calling eq: incompatible types for comparison: []interface {} and int',
    kind: 'exec',
  },
  { name: 'ne', tmpl: '{{ne 1 2}} {{ne "a" "a"}} {{ne .n nil}}', data: D, want: 'true false false' },
  {
    name: 'ne of lists is an error',
    tmpl: '{{ne .l .l}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <ne .l .l>: error calling ne: non-comparable type [%!s(float64=1) %!s(float64=2)]: []interface {}',
    kind: 'exec',
  },
  { name: 'lt le gt ge of ints', tmpl: '{{lt 1 2}} {{le 2 2}} {{gt 1 2}} {{ge 2 2}}', want: 'true true false true' },
  { name: 'lt le gt ge of floats', tmpl: '{{lt .f 2.0}} {{le .f 1.5}} {{gt .f 1.0}} {{ge .f 1.6}}', data: D, want: 'true true true false' },
  {
    name: 'lt of strings compares bytes',
    tmpl: '{{lt "a" "b"}} {{lt "B" "a"}} {{lt "é" "z"}} {{lt "\uffff" "😀"}} {{lt "ab" "a"}}',
    want: 'true true false true false',
  },
  {
    name: 'lt of mixed int and float',
    tmpl: '{{lt 1 2.0}}',
    err: 'template: t:1:2: executing "t" at <lt 1 2.0>: error calling lt: incompatible types for comparison: int and float64',
    kind: 'exec',
  },
  {
    name: 'lt of bools',
    tmpl: '{{lt true false}}',
    err: 'template: t:1:2: executing "t" at <lt true false>: error calling lt: invalid type for comparison',
    kind: 'exec',
  },
  {
    name: 'lt of nil',
    tmpl: '{{lt .n 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <lt .n 1>: error calling lt: invalid type for comparison',
    kind: 'exec',
  },
  {
    name: 'lt of lists',
    tmpl: '{{lt .l .l}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <lt .l .l>: error calling lt: invalid type for comparison',
    kind: 'exec',
  },
  {
    name: 'le of mixed types',
    tmpl: '{{le 1 "a"}}',
    err: 'template: t:1:2: executing "t" at <le 1 "a">: error calling le: incompatible types for comparison: int and string',
    kind: 'exec',
  },
  {
    name: 'gt of mixed types',
    tmpl: '{{gt .f 1}}',
    data: D,
    err: 'template: t:1:2: executing "t" at <gt .f 1>: error calling gt: incompatible types for comparison: float64 and int',
    kind: 'exec',
  },
  {
    name: 'ge of nil',
    tmpl: '{{ge nil 1}}',
    err: 'template: t:1:2: executing "t" at <ge nil 1>: error calling ge: invalid type for comparison',
    kind: 'exec',
  },
  { name: 'comparisons with len results', tmpl: '{{if gt (len .l) 1}}many{{end}} {{eq (len .s) 1}}', data: D, want: 'many true' },
  {
    name: 'not of every kind',
    tmpl: '{{not 0}} {{not 1}} {{not ""}} {{not .l}} {{not .n}} {{not .m}}',
    data: D,
    want: 'true false true false true false',
  },
  {
    name: 'and or return the deciding operand',
    tmpl: '{{and 1 "x"}} {{and 0 "x"}} {{or "" 0}} {{or "" .l}}',
    data: D,
    want: 'x 0 0 [1 2]',
  },
  { name: 'and with one argument', tmpl: '{{and 5}} {{or 0}}', want: '5 0' },
]

runTable(rows)
