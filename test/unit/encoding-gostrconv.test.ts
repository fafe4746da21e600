// Expected values were produced with Go's strconv.ParseFloat(s, 64),
// strconv.ParseBool and fmt.Sprint on float64.

import t from 'tap'
import { formatGoFloat, isGoBool, isGoFloat } from '../../src/encoding/gostrconv.ts'

const floats: Array<[text: string, valid: boolean, why: string]> = [
  ['0', true, 'zero'],
  ['3', true, 'integer'],
  ['3.14', true, 'decimal'],
  ['-2.5e10', true, 'signed with exponent'],
  ['+1', true, 'plus sign'],
  ['1.', true, 'trailing point'],
  ['.5', true, 'leading point'],
  ['-.5e-3', true, 'signed leading point with exponent'],
  ['1E5', true, 'upper-case exponent'],
  ['1_000', true, 'underscore between digits'],
  ['1e1_0', true, 'underscore in the exponent'],
  ['4_2.0', true, 'underscore before the point'],
  ['0x1p-2', true, 'hex float'],
  ['0X1P+2', true, 'hex float, upper case'],
  ['0x.8p1', true, 'hex float, leading point'],
  ['0x_1p0', true, 'underscore after the hex prefix'],
  ['0x1.fffffffffffffp1023', true, 'largest finite hex float'],
  ['0x1.fffffffffffff7p1023', true, 'hex float that rounds down to the largest finite'],
  ['inf', true, 'inf'],
  ['+Inf', true, 'signed Inf'],
  ['-INFINITY', true, 'signed INFINITY'],
  ['NaN', true, 'NaN'],
  ['1e-400', true, 'underflow is not an error'],
  ['1.7976931348623157e308', true, 'largest finite decimal'],
  ['three', false, 'a word'],
  ['two', false, 'a number word'],
  ['', false, 'empty'],
  [' 1', false, 'leading space'],
  ['1 ', false, 'trailing space'],
  ['.', false, 'point only'],
  ['+', false, 'sign only'],
  ['1e', false, 'exponent without digits'],
  ['1e+', false, 'exponent sign without digits'],
  ['1.2.3', false, 'two points'],
  ['_1', false, 'leading underscore'],
  ['1_', false, 'trailing underscore'],
  ['1__0', false, 'double underscore'],
  ['1_.5', false, 'underscore before the point'],
  ['1_e5', false, 'underscore before the exponent'],
  ['0x1', false, 'hex float without the p exponent'],
  ['0x1e5', false, 'hex digits, no p exponent'],
  ['0x', false, 'hex prefix only'],
  ['0b101', false, 'binary literal'],
  ['0o17', false, 'octal literal'],
  ['+nan', false, 'signed nan'],
  ['infin', false, 'truncated infinity'],
  ['1e400', false, 'overflow is a range error'],
  ['-1e400', false, 'negative overflow'],
  ['1.7976931348623159e308', false, 'just above the largest finite decimal'],
  ['0x1p1024', false, 'hex overflow'],
  ['0x1.fffffffffffff8p1023', false, 'hex float that rounds up to infinity'],
  ['١', false, 'a non-ASCII digit'],
]

for (const [text, valid, why] of floats) {
  t.test(`ParseFloat ${valid ? 'accepts' : 'rejects'} ${JSON.stringify(text)} (${why})`, async (t) => {
    t.equal(isGoFloat(text), valid)
  })
}

t.test("ParseBool accepts exactly Go's twelve spellings", async (t) => {
  for (const s of ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']) {
    t.ok(isGoBool(s), s)
  }
  for (const s of ['yes', 'no', 'on', 'off', 'y', 'tRue', '', ' true', 'true ', '2']) {
    t.notOk(isGoBool(s), JSON.stringify(s))
  }
})

const prints: Array<[value: number, want: string]> = [
  [0, '0'],
  [0.1, '0.1'],
  [1.5, '1.5'],
  [100, '100'],
  [123456, '123456'],
  [123456.789, '123456.789'],
  [1e6, '1e+06'],
  [1234567, '1.234567e+06'],
  [12345678.9, '1.23456789e+07'],
  [-2.5e10, '-2.5e+10'],
  [1e21, '1e+21'],
  [1e100, '1e+100'],
  [1e-4, '0.0001'],
  [-0.0001, '-0.0001'],
  [1e-5, '1e-05'],
  [2.5e-7, '2.5e-07'],
  [5e-324, '5e-324'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [1 / 3, '0.3333333333333333'],
  [Infinity, '+Inf'],
  [-Infinity, '-Inf'],
  [NaN, 'NaN'],
]

t.test('formatGoFloat prints like fmt.Sprint(float64)', async (t) => {
  for (const [value, want] of prints) t.equal(formatGoFloat(value), want, String(value))
})
