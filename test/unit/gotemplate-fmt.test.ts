// print, printf and println: fmt's verbs, flags, widths, precisions,
// argument indexes and its %!verb(...) error notation.

import { type Row, runTable } from './helpers/gotemplate-table.ts'

const D = { l: [1, 'x', null, true], m: { b: 1.5, a: ['x'], c: null }, f: 1.5, n: 3, s: 'héllo', e: [], em: {} }

// Expected values are what Go's text/template prints for the same template and data.
const rows: Row[] = [
  {
    name: '%v of every kind',
    tmpl: '{{printf "%v|%v|%v|%v|%v|%v|%v" .f .n .s true .l .m nil}}',
    data: D,
    want: '1.5|3|héllo|true|[1 x <nil> true]|map[a:[x] b:1.5 c:<nil>]|<nil>',
  },
  {
    name: '%d of ints with width, zero and sign flags',
    tmpl: '{{printf "%d|%5d|%-5d|%05d|%+d|% d|%+05d|% 05d|%-05d" 42 42 42 42 42 42 42 42 42}}',
    want: '42|   42|42   |00042|+42| 42|+0042| 0042|42   ',
  },
  { name: '%d of negative ints', tmpl: '{{printf "%d|%5d|%05d|%+d" -42 -42 -42 -42}}', want: '-42|  -42|-0042|-42' },
  {
    name: '%d with precision',
    tmpl: '{{printf "%.3d|%8.3d|%-8.3d|%08.3d|%.0d|%5.0d" 7 7 7 7 0 0}}',
    want: '007|     007|007     |     007||     ',
  },
  {
    name: '%d of int64 extremes',
    tmpl: '{{printf "%d %d" 9223372036854775807 -9223372036854775807}}',
    want: '9223372036854775807 -9223372036854775807',
  },
  {
    name: '%x %X %o %O %b of ints',
    tmpl: '{{printf "%x|%X|%#x|%#X|%o|%#o|%O|%b|%#b|%x" 255 255 255 255 8 8 8 5 5 -255}}',
    want: 'ff|FF|0xff|0XFF|10|010|0o10|101|0b101|-ff',
  },
  { name: '%#08x puts the prefix before the zero padding count', tmpl: '{{printf "%#08x|%08x" 255 255}}', want: '0x000000ff|000000ff' },
  {
    name: '%c %q %U of ints',
    tmpl: '{{printf "%c|%c|%q|%q|%+q|%U|%#U|%#U|%c" 65 0x1F600 65 39 0xe9 0x1F600 65 10 -1}}',
    want: "A|😀|'A'|'\\''|'\\u00e9'|U+1F600|U+0041 'A'|U+000A|�",
  },
  { name: '%U with precision and negative', tmpl: '{{printf "%.6U|%U" 65 -1}}', want: 'U+000041|U+FFFFFFFFFFFFFFFF' },
  {
    name: '%s %q %x of strings',
    tmpl: '{{printf "%s|%q|%+q|%#q|%#q|%x|%X|% x|%#x|%# X" "héllo" "a\\"b\\n" "é" "back`q" "ab" "hé" "hé" "ab" "ab" "ab"}}',
    want: 'héllo|"a\\"b\\n"|"\\u00e9"|"back`q"|`ab`|68c3a9|68C3A9|61 62|0x6162|0X61 0X62',
  },
  {
    name: 'string width and precision count runes',
    tmpl: '{{printf "%8s|%-8s|%.2s|%8.2s|%05s|%.1q|%5.1x" "日本語" "日本語" "日本語" "日本語" "ab" "日本語" "日本語"}}',
    want: '     日本語|日本語     |日本|      日本|000ab|"日"|   e6',
  },
  {
    name: '%q escapes non-printable runes',
    tmpl: '{{printf "%q" "\\u00a0\\u2028\\x7f\\x00\\t😀\\u0301"}}',
    want: '"\\u00a0\\u2028\\x7f\\x00\\t😀́"',
  },
  {
    name: '%v of floats uses the shortest representation',
    tmpl: '{{printf "%v %v %v %v %v %v %v %v" 100000.0 1000000.0 0.0001 0.00001 1e20 1e21 123456789.0 0.1}}',
    want: '100000 1e+06 0.0001 1e-05 1e+20 1e+21 1.23456789e+08 0.1',
  },
  {
    name: '%f %e %g with default precision',
    tmpl: '{{printf "%f|%e|%E|%g|%G|%F" 3.14159 123456.789 0.000123 1e21 1e-7 2.5}}',
    want: '3.141590|1.234568e+05|1.230000E-04|1e+21|1E-07|2.500000',
  },
  {
    name: 'float precision rounds half to even on the exact value',
    tmpl: '{{printf "%.0f %.0f %.0f %.1f %.2f %.2f %.1f" 0.5 1.5 2.5 0.25 1.005 2.675 0.05}}',
    want: '0 2 2 0.2 1.00 2.67 0.1',
  },
  {
    name: 'float width, sign and zero padding',
    tmpl: '{{printf "%8.3f|%-8.2f|%08.3f|%+.1e|%+08.2f|% .2f|%010.3e" 3.14159 2.5 -3.14159 12345.678 1.5 1.5 -0.001234}}',
    want: '   3.142|2.50    |-003.142|+1.2e+04|+0001.50| 1.50|-1.234e-03',
  },
  {
    name: '%g precision',
    tmpl: '{{printf "%.3g|%.10g|%.1g|%.3g|%g|%.0g" 1234.5678 1.0 0.05 100.0 0.0 123.0}}',
    want: '1.23e+03|1|0.05|100|0|1e+02',
  },
  {
    name: '%# keeps the point and zeros',
    tmpl: '{{printf "%#g|%#.3g|%#e|%#.0f|%#.0e|%#v" 1.0 1.0 1.0 2.0 5.0 1.0}}',
    want: '1.00000|1.00|1.000000e+00|2.|5.e+00|1',
  },
  {
    name: '%x %X %b of floats',
    tmpl: '{{printf "%x|%X|%.3x|%#x|%b|%x" 1.0 -2.5 3.14159 0.1 1.0 0.0}}',
    want: '0x1p+00|-0X1.4P+01|0x1.922p+01|0x1.999999999999ap-04|4503599627370496p-52|0x0p+00',
  },
  { name: '%v of a negative zero', tmpl: '{{printf "%v|%.1f|%g" -0.0 -0.0 -0.0}}', want: '-0|-0.0|-0' },
  {
    name: '%t and bad verbs on bools',
    tmpl: '{{printf "%t|%v|%d|%s|%5t" true false true false true}}',
    want: 'true|false|%!d(bool=true)|%!s(bool=false)| true',
  },
  {
    name: 'bad verbs name the type and value',
    tmpl: '{{printf "%d|%s|%f|%x|%q|%e" 1.5 2 "x" true 3.5 "s"}}',
    want: '%!d(float64=1.5)|%!s(int=2)|%!f(string=x)|%!x(bool=true)|%!q(float64=3.5)|%!e(string=s)',
  },
  { name: 'bad verb keeps the width', tmpl: '{{printf "%5d|%-4s" "x" 1}}', want: '%!d(string=    x)|%!s(int=1   )' },
  { name: 'nil operands', tmpl: '{{printf "%v|%d|%s|%T|%5v" nil nil nil nil nil}}', want: '<nil>|%!d(<nil>)|%!s(<nil>)|<nil>|<nil>' },
  {
    name: '%v %s %d %q %x of a list',
    tmpl: '{{printf "%v|%s|%d|%q|%x|%5v" .l .l .l .l .l .l}}',
    data: D,
    want: '[1 x <nil> true]|[%!s(float64=1) x <nil> %!s(bool=true)]|[%!d(float64=1) %!d(string=x) <nil> %!d(bool=true)]|[%!q(float64=1) "x" <nil> %!q(bool=true)]|[0x1p+00 78 <nil> %!x(bool=true)]|[    1     x <nil>  true]',
  },
  {
    name: '%v %s %d of a map',
    tmpl: '{{printf "%v|%s|%d|%q" .m .m .m .m}}',
    data: D,
    want: 'map[a:[x] b:1.5 c:<nil>]|map[a:[x] b:%!s(float64=1.5) c:<nil>]|map[%!d(string=a):[%!d(string=x)] %!d(string=b):%!d(float64=1.5) %!d(string=c):<nil>]|map["a":["x"] "b":%!q(float64=1.5) "c":<nil>]',
  },
  { name: 'empty list and map', tmpl: '{{printf "%v %v %d %s" .e .em .e .em}}', data: D, want: '[] map[] [] map[]' },
  {
    name: '%T names Go types',
    tmpl: '{{printf "%T %T %T %T %T %T %T" 1 1.5 "s" true .l .m nil}}',
    data: D,
    want: 'int float64 string bool []interface {} map[string]interface {} <nil>',
  },
  {
    name: '%#v uses Go syntax',
    tmpl: '{{printf "%#v|%#v|%#v|%#v|%#v|%#v|%#v" 1 1.0 "s" .l .m .e nil}}',
    data: D,
    want: '1|1|"s"|[]interface {}{1, "x", interface {}(nil), true}|map[string]interface {}{"a":[]interface {}{"x"}, "b":1.5, "c":interface {}(nil)}|[]interface {}{}|<nil>',
  },
  { name: '%+v is %v for these values', tmpl: '{{printf "%+v|%+v|%+v" 1 "s" .m}}', data: D, want: '1|s|map[a:[x] b:1.5 c:<nil>]' },
  { name: 'argument indexes', tmpl: '{{printf "%[2]d %[1]d|%[1]d %[1]q %d" 1 2 65}}', want: "2 1|1 '\\x01' 2" },
  {
    name: 'bad argument indexes',
    tmpl: '{{printf "%[3]d|%[0]d|%[x]d|%[1" 1}}',
    want: '%!d(BADINDEX)|%!d(BADINDEX)|%!d(BADINDEX)|%!(NOVERB)',
  },
  {
    name: 'star width and precision',
    tmpl: '{{printf "%*d|%-*d|%*d|%.*f|%[2]*[1]d" 5 1 5 2 -4 3 2 3.14159 12 5}}',
    want: '    1|2    |3   |3.14|5',
  },
  { name: 'bad star arguments', tmpl: '{{printf "%*d|%.*d|%*d" "x" 1 -1 5 10000000 7}}', want: '%!(BADWIDTH)1|%!(BADPREC)5|%!(BADWIDTH)7' },
  { name: 'missing arguments', tmpl: '{{printf "%d %s|%v" 1}}', want: '1 %!s(MISSING)|%!v(MISSING)' },
  { name: 'extra arguments', tmpl: '{{printf "%d" 1 2 "a" nil 1.5}}', want: '1%!(EXTRA int=2, string=a, <nil>, float64=1.5)' },
  { name: 'percent sign and no verb', tmpl: '{{printf "100%% done|%" 1}}', want: '100% done|%!(NOVERB)%!(EXTRA int=1)' },
  { name: 'unknown verbs', tmpl: '{{printf "%z|%!|%." 1 2 3}}', want: '%!z(int=1)|%!!(int=2)|%!.(int=3)' },
  { name: 'absurd widths end the verb', tmpl: '{{printf "%99999999d|%.99999999d" 1 2}}', want: '%!(NOVERB)%!(EXTRA int=1, int=2)' },
  { name: 'literal text only', tmpl: '{{printf "no verbs" }}', want: 'no verbs' },
  { name: 'non-ASCII verb', tmpl: '{{printf "%\\u00e9" 1}}', want: '%!é(int=1)' },
  { name: 'print adds spaces between non-string operands', tmpl: '{{print 1 2 "a" "b" 3 nil 4 true}}', want: '1 2ab3 <nil> 4 true' },
  { name: 'print of nothing', tmpl: '[{{print}}]', want: '[]' },
  { name: 'println separates every operand', tmpl: '{{println 1 "a" 2 nil}}', want: '1 a 2 <nil>\n' },
  { name: 'print of collections', tmpl: '{{print .l .m}}', data: D, want: '[1 x <nil> true] map[a:[x] b:1.5 c:<nil>]' },
  {
    name: 'printed map keys are sorted bytewise',
    tmpl: '{{.}}',
    data: { b: 1, B: 2, a: 3, é: 4, '😀': 5, '￿': 6, '10': 7, '9': 8 },
    want: 'map[10:7 9:8 B:2 a:3 b:1 é:4 \uffff:6 😀:5]',
  },
]

runTable(rows)
