// status.trackedKinds: the "<apiVersion>/<kind>" spelling, the older
// trackedGVKs field and its leading-slash core spelling read alike, and when
// the older field may go.

import t from 'tap'
import {
  legacyTrackedKind,
  legacyTrackedKindsCopied,
  normalizeTrackedKind,
  parseTrackedKind,
  parseTrackedKindsAnnotation,
  recordedKinds,
  trackedKind,
  trackedKindsAnnotation,
  trackedKindsOf,
  TrackedKindError,
} from '../../src/api/templateinstance-kinds.ts'
import { ANNOTATION_TRACKED_KINDS } from '../../src/api/names.ts'

t.test('trackedKind and parseTrackedKind are inverse; core kinds have no leading slash', async (t) => {
  const cases: [string, string, string][] = [
    ['v1', 'ConfigMap', 'v1/ConfigMap'],
    ['apps/v1', 'Deployment', 'apps/v1/Deployment'],
    ['templates.v2.stakater.com/v2alpha1', 'Template', 'templates.v2.stakater.com/v2alpha1/Template'],
  ]
  for (const [apiVersion, kind, want] of cases) {
    t.equal(trackedKind(apiVersion, kind), want)
    t.same(parseTrackedKind(want), { apiVersion, kind })
  }
})

t.test('the older spelling parses to the same kind', async (t) => {
  t.same(parseTrackedKind('/v1/ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap' })
  t.equal(normalizeTrackedKind('/v1/Secret'), 'v1/Secret')
  t.equal(normalizeTrackedKind('apps/v1/Deployment'), 'apps/v1/Deployment', 'non-core entries were spelled the same')
  t.equal(legacyTrackedKind('v1/ConfigMap'), '/v1/ConfigMap')
  t.equal(legacyTrackedKind('apps/v1/Deployment'), 'apps/v1/Deployment')
})

t.test('bad strings are refused with the string in the message', async (t) => {
  for (const bad of ['', 'ConfigMap', 'v1/', '/ConfigMap', 'a/b/c/D', '//v1/X', 'apps//Deployment']) {
    t.throws(() => parseTrackedKind(bad), { name: 'TrackedKindError', message: JSON.stringify(bad) }, bad)
  }
  t.throws(() => trackedKind('', 'X'), TrackedKindError)
  t.throws(() => trackedKind('a/b/c', 'X'), TrackedKindError)
  t.throws(() => trackedKind('v1', ''), TrackedKindError)
  t.throws(() => trackedKind('v1', 'A/B'), TrackedKindError)
  t.equal(normalizeTrackedKind('not a kind'), 'not a kind', 'kept as written, so nothing recorded is dropped')
})

t.test('trackedKindsOf reads both fields, in the current spelling, sorted, once each', async (t) => {
  t.same(trackedKindsOf(undefined), [])
  t.same(trackedKindsOf({}), [])
  t.same(trackedKindsOf({ trackedGVKs: ['/v1/Secret', '/v1/ConfigMap', 'apps/v1/Deployment'] }), [
    'apps/v1/Deployment',
    'v1/ConfigMap',
    'v1/Secret',
  ])
  t.same(trackedKindsOf({ trackedKinds: ['v1/ConfigMap'], trackedGVKs: ['/v1/ConfigMap', '/v1/Secret'] }), ['v1/ConfigMap', 'v1/Secret'])
})

t.test('the older field may go only once every entry is in trackedKinds', async (t) => {
  t.equal(legacyTrackedKindsCopied({}), true)
  t.equal(legacyTrackedKindsCopied({ trackedKinds: ['v1/ConfigMap'] }), true)
  t.equal(legacyTrackedKindsCopied({ trackedGVKs: ['/v1/ConfigMap'] }), false)
  t.equal(legacyTrackedKindsCopied({ trackedKinds: ['v1/ConfigMap'], trackedGVKs: ['/v1/ConfigMap', '/v1/Secret'] }), false)
  t.equal(legacyTrackedKindsCopied({ trackedKinds: ['v1/ConfigMap', 'v1/Secret'], trackedGVKs: ['/v1/ConfigMap', '/v1/Secret'] }), true)
})

t.test('the tracked-kinds annotation: its value, and every kind an instance records', async (t) => {
  t.equal(trackedKindsAnnotation(['v1/Secret', 'v1/ConfigMap', 'v1/Secret']), 'v1/ConfigMap,v1/Secret', 'sorted, once each')
  t.equal(trackedKindsAnnotation([]), '')
  t.same(
    parseTrackedKindsAnnotation('v1/ConfigMap, /v1/Secret,,'),
    ['v1/ConfigMap', 'v1/Secret'],
    'spaces, empty entries, the older spelling',
  )
  t.same(parseTrackedKindsAnnotation(undefined), [])
  t.same(parseTrackedKindsAnnotation('v1/ConfigMap,garbage,a/b/c/D'), ['v1/ConfigMap'], 'an entry that does not parse is skipped')
  const inst = {
    metadata: { annotations: { [ANNOTATION_TRACKED_KINDS]: 'apps/v1/Deployment,v1/ConfigMap' } },
    status: { trackedKinds: ['v1/ConfigMap'], trackedGVKs: ['/v1/Secret'] },
  }
  t.same(recordedKinds(inst), ['apps/v1/Deployment', 'v1/ConfigMap', 'v1/Secret'], 'status, the older field and the annotation')
  t.same(recordedKinds({ metadata: {}, status: {} }), [])
  t.same(
    recordedKinds({ metadata: { annotations: { [ANNOTATION_TRACKED_KINDS]: 'v1/ConfigMap' } } }),
    ['v1/ConfigMap'],
    'a pass that ended before its status write',
  )
})
