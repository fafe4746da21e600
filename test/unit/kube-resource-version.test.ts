// resourceVersionBefore: a drift cache is "behind" our own write only when
// both versions are decimal integers and the cache's is older; anything else
// answers false, so the caller asks the API server instead of assuming.

import t from 'tap'
import { resourceVersionBefore } from '../../src/kube/reflector.ts'

t.test('decimal versions compare as numbers, not as strings', async (t) => {
  t.equal(resourceVersionBefore('9', '10'), true, 'shorter is older')
  t.equal(resourceVersionBefore('10', '9'), false)
  t.equal(resourceVersionBefore('123', '124'), true)
  t.equal(resourceVersionBefore('124', '124'), false, 'equal is not behind')
  t.equal(resourceVersionBefore('99999999999999999998', '99999999999999999999'), true, 'beyond 2^53')
})

t.test('anything not a decimal version is never behind', async (t) => {
  for (const [a, b] of [
    ['', '5'],
    ['5', ''],
    [undefined, '5'],
    ['5', undefined],
    ['0', '5'],
    ['05', '6'],
    ['abc', 'abd'],
    ['5', '6x'],
  ] as const) {
    t.equal(resourceVersionBefore(a, b), false, `${a} vs ${b}`)
  }
})
