import t from 'tap'
import type { LabelSelector } from '../../src/api/meta.ts'
import { LabelSelectorError, matchesLabelSelector, validateLabelSelector } from '../../src/render/selector.ts'

interface MatchCase {
  readonly name: string
  readonly selector: LabelSelector
  readonly labels: Record<string, string>
  readonly want: boolean
}

const labels = { team: 'a', tier: 'web', 'example.com/env': 'prod', empty: '' }

const cases: MatchCase[] = [
  { name: 'an empty selector matches everything', selector: {}, labels, want: true },
  { name: 'an empty selector matches a namespace without labels', selector: {}, labels: {}, want: true },
  {
    name: 'empty matchLabels and matchExpressions match everything',
    selector: { matchLabels: {}, matchExpressions: [] },
    labels,
    want: true,
  },
  { name: 'matchLabels matches equal values', selector: { matchLabels: { team: 'a', tier: 'web' } }, labels, want: true },
  { name: 'matchLabels fails on a different value', selector: { matchLabels: { team: 'b' } }, labels, want: false },
  { name: 'matchLabels fails on a missing key', selector: { matchLabels: { owner: 'x' } }, labels, want: false },
  { name: 'matchLabels with an empty value matches an empty label', selector: { matchLabels: { empty: '' } }, labels, want: true },
  { name: 'matchLabels with an empty value needs the key', selector: { matchLabels: { other: '' } }, labels, want: false },
  { name: 'prefixed keys match', selector: { matchLabels: { 'example.com/env': 'prod' } }, labels, want: true },
  {
    name: 'In matches one of the values',
    selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['api', 'web'] }] },
    labels,
    want: true,
  },
  {
    name: 'In fails on another value',
    selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['api'] }] },
    labels,
    want: false,
  },
  {
    name: 'In fails on a missing key',
    selector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] },
    labels,
    want: false,
  },
  {
    name: 'NotIn passes on another value',
    selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['api'] }] },
    labels,
    want: true,
  },
  {
    name: 'NotIn fails on a listed value',
    selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] },
    labels,
    want: false,
  },
  {
    name: 'NotIn passes on a missing key',
    selector: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] },
    labels,
    want: true,
  },
  { name: 'Exists passes on a present key', selector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, labels, want: true },
  {
    name: 'Exists passes on a present empty label',
    selector: { matchExpressions: [{ key: 'empty', operator: 'Exists' }] },
    labels,
    want: true,
  },
  { name: 'Exists fails on a missing key', selector: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels, want: false },
  {
    name: 'DoesNotExist passes on a missing key',
    selector: { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] },
    labels,
    want: true,
  },
  {
    name: 'DoesNotExist fails on a present key',
    selector: { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] },
    labels,
    want: false,
  },
  {
    name: 'all terms are ANDed',
    selector: { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['api'] }] },
    labels,
    want: false,
  },
  {
    name: 'all terms holding matches',
    selector: {
      matchLabels: { team: 'a' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['web'] },
        { key: 'zone', operator: 'DoesNotExist' },
      ],
    },
    labels,
    want: true,
  },
  {
    name: 'inherited members are not labels',
    selector: { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] },
    labels,
    want: false,
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    t.equal(matchesLabelSelector(c.selector, c.labels), c.want)
  })
}

interface InvalidCase {
  readonly name: string
  readonly selector: unknown
  readonly message: RegExp
}

const invalid: InvalidCase[] = [
  {
    name: 'an unknown operator',
    selector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] },
    message: /matchExpressions\[0\]\.operator "Equals" is not one of In, NotIn, Exists, DoesNotExist/,
  },
  {
    name: 'In without values',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
    message: /operator In needs at least one value/,
  },
  {
    name: 'NotIn without values',
    selector: { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
    message: /operator NotIn needs at least one value/,
  },
  {
    name: 'Exists with values',
    selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
    message: /operator Exists takes no values/,
  },
  {
    name: 'DoesNotExist with values',
    selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
    message: /operator DoesNotExist takes no values/,
  },
  { name: 'an invalid key', selector: { matchLabels: { 'bad key': 'x' } }, message: /matchLabels key "bad key"/ },
  { name: 'an invalid key prefix', selector: { matchLabels: { 'Bad_Prefix/x': 'x' } }, message: /prefix must be a DNS subdomain/ },
  { name: 'an invalid value', selector: { matchLabels: { a: 'not valid!' } }, message: /matchLabels\["a"\] value "not valid!"/ },
  {
    name: 'a value that is too long',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['x'.repeat(64)] }] },
    message: /values\[0\]/,
  },
  {
    name: 'a missing key',
    selector: { matchExpressions: [{ operator: 'Exists' }] },
    message: /matchExpressions\[0\]\.key undefined: must be a string/,
  },
  { name: 'matchLabels that is a list', selector: { matchLabels: ['a'] }, message: /matchLabels must be a mapping/ },
  { name: 'matchExpressions that is a map', selector: { matchExpressions: { key: 'a' } }, message: /matchExpressions must be a list/ },
  {
    name: 'values that are not a list',
    selector: { matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] },
    message: /values must be a list/,
  },
  { name: 'a selector that is not a mapping', selector: 'team=a', message: /selector must be a mapping/ },
]

for (const c of invalid) {
  t.test(`rejects ${c.name}`, async (t) => {
    const v = validateLabelSelector(c.selector)
    t.equal(v.ok, false)
    if (!v.ok) t.match(v.message, c.message)
    t.throws(() => matchesLabelSelector(c.selector as LabelSelector, labels), LabelSelectorError)
  })
}

t.test('accepts a valid selector', async (t) => {
  t.same(validateLabelSelector({ matchLabels: { 'example.com/a': 'b', c: '' }, matchExpressions: [{ key: 'd', operator: 'Exists' }] }), {
    ok: true,
  })
})

t.test('the thrown error names the problem', async (t) => {
  t.throws(() => matchesLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' as 'In', values: ['x'] }] }, {}), {
    name: 'LabelSelectorError',
    message: /invalid label selector: matchExpressions\[0\]\.operator "Bogus"/,
  })
})
