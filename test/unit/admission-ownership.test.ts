import t from 'tap'
import { ANNOTATION_INSTANCE_REF, LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { parseInstanceRef, readInstanceRef, readInstanceUid } from '../../src/api/ownership.ts'

t.test('parseInstanceRef accepts "<namespace>/<name>"', async (t) => {
  t.strictSame(parseInstanceRef('team-a/app1'), { namespace: 'team-a', name: 'app1' })
  t.strictSame(parseInstanceRef('a/b.c-d'), { namespace: 'a', name: 'b.c-d' }, 'names may hold dots')
  t.strictSame(parseInstanceRef(`${'n'.repeat(63)}/x`), { namespace: 'n'.repeat(63), name: 'x' })
})

t.test('parseInstanceRef rejects everything else', async (t) => {
  for (const bad of [
    '',
    'app1',
    '/app1',
    'team-a/',
    'a/b/c',
    'Team-A/app1',
    'team-a/App1',
    'team_a/app1',
    ' team-a/app1',
    'team-a/app1 ',
    '-a/app1',
    'a/app1-',
    'a.b/app1',
    `${'n'.repeat(64)}/x`,
    `a/${'n'.repeat(254)}`,
  ]) {
    t.equal(parseInstanceRef(bad), undefined, JSON.stringify(bad))
  }
})

t.test('readInstanceRef tells absent from malformed', async (t) => {
  t.strictSame(readInstanceRef(undefined), { kind: 'absent' })
  t.strictSame(readInstanceRef(null), { kind: 'absent' })
  t.strictSame(readInstanceRef({}), { kind: 'absent' })
  t.strictSame(readInstanceRef({ metadata: { annotations: {} } }), { kind: 'absent' })
  t.strictSame(readInstanceRef({ metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: 'x' } } }), { kind: 'malformed' })
  t.strictSame(readInstanceRef({ metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: 'ns/n' } } }), {
    kind: 'ref',
    ref: { namespace: 'ns', name: 'n' },
  })
  const weird = { metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: 42 } } } as unknown as Parameters<typeof readInstanceRef>[0]
  t.strictSame(readInstanceRef(weird), { kind: 'absent' }, 'a non-string value is no annotation')
})

t.test('inherited keys are never read as annotations or labels', async (t) => {
  const annotations = Object.create({ [ANNOTATION_INSTANCE_REF]: 'ns/n' }) as Record<string, string>
  t.strictSame(readInstanceRef({ metadata: { annotations } }), { kind: 'absent' })
  const labels = Object.create({ [LABEL_INSTANCE_UID]: 'u' }) as Record<string, string>
  t.equal(readInstanceUid({ metadata: { labels } }), undefined)
})

t.test('readInstanceUid', async (t) => {
  t.equal(readInstanceUid({ metadata: { labels: { [LABEL_INSTANCE_UID]: 'abc' } } }), 'abc')
  t.equal(readInstanceUid({ metadata: { labels: { [LABEL_INSTANCE_UID]: '' } } }), undefined, 'empty is missing')
  t.equal(readInstanceUid({ metadata: {} }), undefined)
})
