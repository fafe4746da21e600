// preserveIgnoredFields (src/drift/preserve.ts): ignored fields keep their
// live values on a re-apply, but what the API server writes itself and the
// protected ownership keys never come from the live object.

import t from 'tap'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { preserveIgnoredFields } from '../../src/drift/preserve.ts'

const desired = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cfg',
    namespace: 'team-a',
    labels: { app: 'web', 'templates.v2.stakater.com/instance-uid': 'ours' },
    annotations: { 'templates.v2.stakater.com/instance-ref': 'team-a/app' },
    finalizers: ['templates.v2.stakater.com/template-instance-resource'],
  },
  data: { a: '1' },
}

/** An object someone made for adoption: their labels, an ownerReference, and everything the API server adds. */
const live = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'cfg',
    namespace: 'team-a',
    uid: 'u',
    resourceVersion: '7',
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    labels: { app: 'mine', extra: 'x' },
    annotations: { 'templates.v2.stakater.com/instance-ref': 'team-a/app', note: 'n' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'mine', uid: 'o' }],
  },
  data: { a: '2' },
}

t.test('with metadata ignored, live metadata is kept but neither server fields nor protected keys come from it', async (t) => {
  const out = preserveIgnoredFields(desired, live, compileIgnoreFields(['metadata']))
  t.strictSame(out.metadata, {
    name: 'cfg',
    namespace: 'team-a',
    labels: { app: 'mine', extra: 'x', 'templates.v2.stakater.com/instance-uid': 'ours' },
    annotations: { 'templates.v2.stakater.com/instance-ref': 'team-a/app', note: 'n' },
    finalizers: ['templates.v2.stakater.com/template-instance-resource'],
  })
  t.strictSame(out.data, { a: '1' }, 'what is not ignored is as rendered')
})

t.test('with metadata.labels ignored, the ownership labels are still sent', async (t) => {
  const out = preserveIgnoredFields(desired, live, compileIgnoreFields(['metadata.labels']))
  t.strictSame(out.metadata.labels, { app: 'mine', extra: 'x', 'templates.v2.stakater.com/instance-uid': 'ours' })
  t.equal((out.metadata as Record<string, unknown>).managedFields, undefined)
})

t.test('nothing ignored: the desired object as it is', async (t) => {
  t.strictSame(preserveIgnoredFields(desired, live, compileIgnoreFields([])), desired)
})
