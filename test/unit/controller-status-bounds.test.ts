// What the status may carry of values from outside (exposed parameters,
// outputs): values over a bound are left out, in order, and named; the
// ParametersValid condition says which and why.

import t from 'tap'
import { Reason } from '../../src/api/conditions.ts'
import type { ResolvedParameter } from '../../src/api/templateinstance.ts'
import { parametersResolved } from '../../src/controller/instance/render.ts'
import {
  boundOutputs,
  boundParameters,
  leftOutText,
  OUTPUT_BOUNDS,
  PARAMETER_BOUNDS,
  type StatusBounds,
} from '../../src/controller/status-bounds.ts'

const small: StatusBounds = { valueBytes: 10, totalBytes: 25 }

t.test('parameters: a value over its own bound is left out, its entry and valueFrom stay', async (t) => {
  const resolved: ResolvedParameter[] = [
    { name: 'a', value: 'x'.repeat(8) },
    { name: 'big', value: 'x'.repeat(9), valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
    { name: 'hidden' },
  ]
  const out = boundParameters(resolved, small)
  t.same(out.resolved, [
    { name: 'a', value: 'xxxxxxxx' },
    { name: 'big', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
    { name: 'hidden' },
  ])
  t.same(out.leftOut, [{ name: 'big', bytes: 11, over: 'value' }], 'serialized size: the quotes count')
  t.same(resolved[1]?.value, 'x'.repeat(9), 'the input is not changed')
})

t.test('parameters: values fill the total in declaration order; a later small one may still fit', async (t) => {
  const out = boundParameters(
    [
      { name: 'one', value: 'x'.repeat(8) },
      { name: 'two', value: 'x'.repeat(8) },
      { name: 'three', value: 'x'.repeat(8) },
      { name: 'four', value: '' },
    ],
    small,
  )
  t.same(
    out.resolved.map((p) => p.name + (p.value === undefined ? '' : '=')),
    ['one=', 'two=', 'three', 'four='],
  )
  t.same(out.leftOut, [{ name: 'three', bytes: 10, over: 'total' }])
})

t.test('parameters: lists and maps count as their JSON', async (t) => {
  const out = boundParameters([{ name: 'list', value: ['a', 'b', 'c'] }], { valueBytes: 12, totalBytes: 100 })
  t.same(out.leftOut, [{ name: 'list', bytes: 13, over: 'value' }])
})

t.test('the default bounds: 16 KiB a value, 64 KiB in all', async (t) => {
  t.same(PARAMETER_BOUNDS, { valueBytes: 16384, totalBytes: 65536 })
  const out = boundParameters([{ name: 'blob', value: 'x'.repeat(1 << 20) }])
  t.same(out.leftOut, [{ name: 'blob', bytes: (1 << 20) + 2, over: 'value' }])
  t.same(boundParameters([{ name: 'fits', value: 'x'.repeat(16382) }]).leftOut, [], 'exactly 16384 bytes fits')
})

t.test('outputs: a value over a bound is left out, and a field left with no key goes', async (t) => {
  const out = boundOutputs({ web: { url: 'x'.repeat(8), big: 'x'.repeat(9) }, other: { only: 'x'.repeat(12) } }, small)
  t.same(out.outputs, { web: { url: 'xxxxxxxx' } })
  t.same(out.leftOut, [
    { name: 'web/big', bytes: 11, over: 'value' },
    { name: 'other/only', bytes: 14, over: 'value' },
  ])
  const none = { web: { url: 'a' } }
  t.equal(boundOutputs(none).outputs, none, 'within the bounds: the same object')
  t.same(OUTPUT_BOUNDS, { valueBytes: 16384, totalBytes: 262144 })
})

t.test('the words for what was left out name each value, its size and the bound it broke', async (t) => {
  t.equal(
    leftOutText(
      [
        { name: 'blob', bytes: 1048578, over: 'value' },
        { name: 'b', bytes: 9000, over: 'total' },
      ],
      PARAMETER_BOUNDS,
    ),
    '"blob" (1048578 bytes; each value may take at most 16384 bytes), "b" (9000 bytes; all values together may take at most 65536 bytes)',
  )
})

t.test('ParametersValid names values too large for the status and those read from Secrets', async (t) => {
  t.same(parametersResolved([], []), { type: 'ParametersValid', status: 'True', reason: Reason.AllParametersResolved, message: '' })
  t.equal(parametersResolved(['token'], []).reason, Reason.SecretNotExposed)
  const big = parametersResolved([], [{ name: 'blob', bytes: 1048578, over: 'value' }])
  t.same(big, {
    type: 'ParametersValid',
    status: 'True',
    reason: Reason.ExposedValueTooLarge,
    message:
      'not recorded in status.resolvedParameters despite exposeInStatus, too large for the status: ' +
      '"blob" (1048578 bytes; each value may take at most 16384 bytes); the values are used in the render all the same',
  })
  const both = parametersResolved(['token'], [{ name: 'blob', bytes: 1048578, over: 'value' }])
  t.equal(both.reason, Reason.ExposedValueTooLarge, 'the size wins the reason')
  t.match(both.message, /"blob".*\. not recorded in status\.resolvedParameters despite exposeInStatus: "token"; values read from Secrets/)
})
