// Sprig arithmetic: int64 casting (floats truncate, strings parse), decimal
// float operations, rounding, min/max and division errors.

import { calls, group } from './case.ts'
import type { Case } from './case.ts'

const P = 'math'
const d = { i: 7, f: 2.5, nf: -2.5, s: '10', sf: '1.5', n: null, big: 9.2e18, l: [1] }

export const sprigMathCases: Case[] = [
  ...calls(
    P,
    'add',
    ['1 2', '1 2 3 4', '', '.f .f', '.i .s', '.sf 1', '.n 1', 'true true', '9223372036854775807 1', '.l 1', '"x" 1', '1.9 1.9', '-1.9 0'],
    d,
  ),
  ...calls(P, 'add1', ['1', '.f', '"5"', '.n', '-1.5'], d),
  ...calls(P, 'sub', ['5 3', '3 5', '.f 1', '.i .f', '-9223372036854775808 1'], d),
  ...calls(P, 'mul', ['2 3', '2 3 4', '.f 2', '5', '.i .i .i', '4294967296 4294967296'], d),
  ...calls(P, 'div', ['7 2', '-7 2', '7 -2', '1 0', '.f 2', '7.9 2', '-9223372036854775808 -1'], d),
  ...calls(P, 'mod', ['7 3', '-7 3', '7 -3', '1 0', '.i 4'], d),
  ...calls(P, 'max', ['1 5 3', '"9" 2', '.f 2', '-1', '.n -1'], d),
  ...calls(P, 'biggest', ['1 5 3'], d),
  ...calls(P, 'min', ['4 2 8', '.f 3', '-1 "-5"'], d),
  ...calls(P, 'maxf', ['1 2.5 1.7', '.i .f', '"3.5" 1', '(float64 "NaN") 1', '0 (mulf -1 0)', '-1'], d),
  ...calls(P, 'minf', ['1 2.5 0.3', '.nf .f', '(float64 "-inf") (float64 "nan")', '(mulf -1 0) 0'], d),
  ...calls(P, 'addf', ['1.1 2.2', '0.1 0.2', '1 2 3', '', '.f .s', '"x" 1', '1e20 1', '(float64 "inf") 1'], d),
  ...calls(P, 'add1f', ['1.5', '.n', '0.1'], d),
  ...calls(P, 'subf', ['10 3.3', '0.3 0.1', '5', '1 0.1 0.1 0.1'], d),
  ...calls(P, 'mulf', ['1.1 3', '0.1 0.1', '2', '1e200 1e200', '-1 0'], d),
  ...calls(P, 'divf', ['10 3', '1 0', '2 3', '1 7', '-2 3', '22 7 2', '1e-10 3', '5 2', '0.3 0.1', '2 -3'], d),
  ...calls(P, 'floor', ['2.7', '-2.3', '"3.9"', '5', '.n'], d),
  ...calls(P, 'ceil', ['2.1', '-2.7', '"1.01"', '5'], d),
  ...calls(
    P,
    'round',
    ['2.5 0', '2.4 0', '-2.5 0', '3.14159 2', '3.14159 3', '1234.5678 -2', '2.5 0 0.6', '1.005 2', '0.5 0', '"7.77" 1', '.f 0'],
    d,
  ),
  ...group(P, [
    ['int-vs-float-add', '{{ add 1 1.5 }} {{ addf 1 1.5 }}'],
    ['json-number-add', '{{ add .i 1 }} {{ typeOf (add .i 1) }}', d],
    ['add-result-compare', '{{ if eq (add 1 2) 3 }}eq{{ end }}'],
    ['add-result-lt-float', '{{ lt (add 1 2) 3.5 }}'],
    ['div-float-truncates', '{{ div 10 4 }} {{ divf 10 4 }}'],
    ['mul-overflow-wraps', '{{ mul 9223372036854775807 2 }}'],
    ['add-big-float', '{{ add .big .big }}', d],
    ['round-print', '{{ round 2.0 0 }} {{ round 1e21 0 }}'],
    ['floor-type', '{{ typeOf (floor 1) }} {{ floor 1 }}'],
    ['len-arith', '{{ sub (len "héllo") 1 }}'],
    ['arith-in-range', '{{ range $i, $x := list "a" "b" "c" }}{{ add $i 1 }}.{{ $x }} {{ end }}'],
    ['mod-even-odd', '{{ range until 4 }}{{ if eq (mod . 2) 0 }}e{{ else }}o{{ end }}{{ end }}'],
    ['percent-calc', '{{ div (mul 37 100) 50 }}%'],
    ['divf-repeating', '{{ divf 1 3 }} {{ divf 2 3 }} {{ divf 100 7 }}'],
  ]),
]
