// applyChangesNothing: the local proof that our forced server-side apply of an
// intent would leave the live object as it is. Every case where it must not
// claim so (a value differs or is missing, a field we owned was dropped, list
// items it cannot follow, another apiVersion, no entry of ours) is false.

import t from 'tap'
import type { IdentifiedObject, ManagedFieldsEntry } from '../../src/api/meta.ts'
import { FIELD_MANAGER } from '../../src/api/names.ts'
import { stampOwnership } from '../../src/api/ownership.ts'
import { applyChangesNothing, ownApplyEntry } from '../../src/drift/apply-noop.ts'
import { preserveIgnoredFields } from '../../src/drift/preserve.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { ourApplyEntry } from './helpers/field-set.ts'

const owner = { name: 'app', namespace: 'team-a', uid: 'uid-app' }

function rendered(data: Record<string, unknown>, extra: Record<string, unknown> = {}): IdentifiedObject {
  return stampOwnership(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'team-a' }, data, ...extra },
    owner,
    'revert',
  )
}

/** What the API server holds after our apply of `applied`, with other managers' entries and edits on top. */
function stored(applied: IdentifiedObject, entries: ManagedFieldsEntry[] = [ourApplyEntry(applied)]): IdentifiedObject {
  const out = structuredClone(applied)
  out.metadata = { ...out.metadata, uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z', managedFields: entries }
  return out
}

/** The map at `path` inside an entry's fieldsV1, to edit. */
function fieldsAt(entry: ManagedFieldsEntry, ...path: string[]): Record<string, unknown> {
  let at = entry.fieldsV1 as Record<string, unknown>
  for (const k of path) at = at[k] as Record<string, unknown>
  return at
}

t.test('a ConfigMap as we applied it: nothing to change', async (t) => {
  const intent = rendered({ a: '1', b: 'two' })
  t.equal(applyChangesNothing(intent, stored(intent)), true)
  t.equal(
    applyChangesNothing(intent, { ...stored(intent), apiVersion: undefined, kind: undefined } as unknown as IdentifiedObject),
    true,
    'a listed item without apiVersion and kind',
  )
})

t.test('our labels and annotations, and fields of other managers the intent does not name', async (t) => {
  const intent = rendered({ a: '1' })
  const live = stored(intent, [
    ourApplyEntry(intent),
    { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:extra': {} } } },
  ])
  live.data = { a: '1', extra: 'theirs' }
  live.metadata.labels = { ...live.metadata.labels, 'team.example/cost': 'x' }
  live.metadata.annotations = { ...live.metadata.annotations, 'kubectl.kubernetes.io/last-applied': '{}' }
  t.equal(applyChangesNothing(intent, live), true, 'other managers keep their own fields; our apply does not touch them')

  const unstamped = structuredClone(live)
  delete unstamped.metadata.labels?.['templates.v2.stakater.com/instance-uid']
  t.equal(applyChangesNothing(intent, unstamped), false, 'a label we stamp is missing from the live object')
  const otherRef = structuredClone(live)
  if (otherRef.metadata.annotations) otherRef.metadata.annotations['templates.v2.stakater.com/instance-ref'] = 'elsewhere/app'
  t.equal(applyChangesNothing(intent, otherRef), false, 'an annotation we stamp holds another value')
})

t.test('a value that differs, or is missing in the live object', async (t) => {
  const intent = rendered({ a: '1', b: '2' })
  const changed = stored(intent)
  changed.data = { a: '1', b: 'drifted' }
  t.equal(applyChangesNothing(intent, changed), false, 'changed value')
  const missing = stored(intent)
  missing.data = { a: '1' }
  t.equal(applyChangesNothing(intent, missing), false, 'missing leaf')
  const noData = stored(intent)
  delete noData.data
  t.equal(applyChangesNothing(intent, noData), false, 'missing map')
  const emptyMap = rendered({ a: '1' }, { binaryData: {} })
  const withoutEmpty = stored(emptyMap)
  delete withoutEmpty.binaryData
  t.equal(applyChangesNothing(emptyMap, withoutEmpty), false, 'an empty map of the intent the live object does not have')
})

t.test('a scalar is equal only to itself: no number for a string, no null', async (t) => {
  const intent = rendered({}, { spec: { replicas: 1, size: '1Gi', on: true } })
  const live = stored(intent)
  t.equal(applyChangesNothing(intent, live), true)
  const asString = structuredClone(live)
  ;(asString as unknown as { spec: Record<string, unknown> }).spec.replicas = '1'
  t.equal(applyChangesNothing(intent, asString), false, '"1" for 1')
  const spelled = structuredClone(live)
  ;(spelled as unknown as { spec: Record<string, unknown> }).spec.size = '1024Mi'
  t.equal(applyChangesNothing(intent, spelled), false, 'another spelling of the same quantity')
  const withNull = rendered({}, { spec: { replicas: null } })
  t.equal(applyChangesNothing(withNull, stored(withNull)), false, 'null in the intent asks for a removal')
})

t.test('a field we owned that the intent dropped: the apply removes it', async (t) => {
  const before = rendered({ a: '1', gone: 'x' })
  const intent = rendered({ a: '1' })
  // The live object still has everything the intent has, but our entry still owns data.gone.
  t.equal(applyChangesNothing(intent, stored(before)), false)
  const label = rendered({ a: '1' })
  label.metadata.labels = { ...label.metadata.labels, tier: 'web' }
  t.equal(applyChangesNothing(intent, stored(label)), false, 'a label we set before')
})

t.test('our finalizer, a set of scalars: each owned item must stay in the intent', async (t) => {
  const intent = rendered({ a: '1' })
  t.match(ourApplyEntry(intent).fieldsV1, {
    'f:metadata': { 'f:finalizers': { 'v:"templates.v2.stakater.com/template-instance-resource"': {} } },
  })
  t.equal(applyChangesNothing(intent, stored(intent)), true, 'v: items the intent still holds')
  const more = structuredClone(intent)
  more.metadata.finalizers = [...(more.metadata.finalizers ?? []), 'example.com/keep']
  t.equal(applyChangesNothing(intent, stored(intent, [ourApplyEntry(more)])), false, 'an item we owned that the intent dropped')
  const bad = structuredClone(ourApplyEntry(intent))
  fieldsAt(bad, 'f:metadata', 'f:finalizers')['v:not json'] = {}
  t.equal(applyChangesNothing(intent, stored(intent, [bad])), false, 'an item that does not parse')
  const reordered = stored(intent)
  reordered.metadata.finalizers = [...(reordered.metadata.finalizers ?? []), 'example.com/other']
  t.equal(applyChangesNothing(intent, reordered), false, 'a list that is not exactly the intent`s')
})

t.test('list items it cannot follow: k:, i:, lists of maps', async (t) => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'team-a' },
    spec: { containers: [{ name: 'web', image: 'web:1' }] },
  } as IdentifiedObject
  const entry: ManagedFieldsEntry = {
    manager: FIELD_MANAGER,
    operation: 'Apply',
    apiVersion: 'v1',
    fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
  }
  t.equal(applyChangesNothing(pod, stored(pod, [entry])), false, 'a list of maps in the intent')
  const cm = rendered({ a: '1' })
  const keyed = ourApplyEntry(cm)
  fieldsAt(keyed)['f:spec'] = { 'k:{"name":"x"}': {} }
  const withSpec = { ...cm, spec: {} } as IdentifiedObject
  t.equal(applyChangesNothing(withSpec, stored(withSpec, [keyed])), false, 'a k: segment')
  const indexed = ourApplyEntry(cm)
  fieldsAt(indexed, 'f:metadata')['f:finalizers'] = { 'i:0': {} }
  t.equal(applyChangesNothing(cm, stored(cm, [indexed])), false, 'an i: segment')
  const valued = ourApplyEntry(cm)
  fieldsAt(valued)['f:data'] = { 'v:"a"': {} }
  t.equal(applyChangesNothing(cm, stored(cm, [valued])), false, 'a v: segment under a map')
  const nested = rendered({}, { spec: { args: [['a']] } })
  t.equal(applyChangesNothing(nested, stored(nested)), false, 'a list of lists')
})

t.test('an ignored field that differs: the intent carries the live value', async (t) => {
  const ignore = compileIgnoreFields(['data.replicas'])
  const desired = rendered({ a: '1', replicas: '2' })
  const live = stored(desired)
  live.data = { a: '1', replicas: '5' }
  t.equal(applyChangesNothing(desired, live), false, 'the rendered value differs')
  t.equal(applyChangesNothing(preserveIgnoredFields(desired, live, ignore), live), true, 'the intent sends what is live')
})

t.test('our entry must be the one Apply entry of our manager, of the intent`s apiVersion', async (t) => {
  const intent = rendered({ a: '1' })
  t.equal(applyChangesNothing(intent, stored(intent, [])), false, 'no managedFields')
  t.equal(applyChangesNothing(intent, stored(intent, [{ ...ourApplyEntry(intent), manager: 'kubectl' }])), false, 'another manager')
  t.equal(applyChangesNothing(intent, stored(intent, [{ ...ourApplyEntry(intent), operation: 'Update' }])), false, 'our Update entry')
  t.equal(applyChangesNothing(intent, stored(intent, [{ ...ourApplyEntry(intent), subresource: 'status' }])), false, 'a subresource')
  t.equal(applyChangesNothing(intent, stored(intent, [ourApplyEntry(intent, 'v2')])), false, 'another apiVersion')
  const bare = ourApplyEntry(intent)
  delete bare.fieldsV1
  t.equal(applyChangesNothing(intent, stored(intent, [bare])), false, 'an entry without fieldsV1 (a slimmed cache)')
  t.equal(applyChangesNothing(intent, stored(intent, [ourApplyEntry(intent), ourApplyEntry(intent)])), false, 'two entries of ours')
  t.equal(ownApplyEntry(stored(intent, [ourApplyEntry(intent), ourApplyEntry(intent)])), undefined)
  t.ok(ownApplyEntry(stored(intent)))
})
