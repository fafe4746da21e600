// From a pass's change set to Events and the Applied condition, and how a
// rejected request is classified (an immutable field, a kind not served, or
// anything else).

import t from 'tap'
import type { ObjectRef } from '../../src/api/meta.ts'
import { Reason } from '../../src/api/conditions.ts'
import { type ChangeSetEntry, failures, objectError } from '../../src/apply/changeset.ts'
import { DEFAULT_FIGHT_OPTIONS } from '../../src/apply/fight.ts'
import { applyFailure, dryRunFailure, eventsFor, kindNotFound, ownershipConflict, unservedKindOf } from '../../src/controller/report.ts'
import { KIND_NOT_SERVED, UnknownKindError } from '../../src/kube/discovery.ts'
import { immutableFields, KubeApiError } from '../../src/kube/errors.ts'

const cm: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'cfg' }
const job: ObjectRef = { apiVersion: 'batch/v1', kind: 'Job', namespace: 'team-a', name: 'migrate' }

/** A 422 as the API server sends it for a changed Job template. */
const immutableJob = KubeApiError.fromResponse(
  'PATCH',
  '/apis/batch/v1/namespaces/team-a/jobs/migrate',
  422,
  JSON.stringify({
    kind: 'Status',
    status: 'Failure',
    reason: 'Invalid',
    code: 422,
    message: 'Job.batch "migrate" is invalid: spec.template: Invalid value: "object": field is immutable',
    details: { causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": field is immutable', field: 'spec.template' }] },
  }),
)

t.test('immutable-field rejections are told apart from other errors', async (t) => {
  t.same(immutableFields(immutableJob), [{ field: 'spec.template', detail: 'field is immutable' }])
  const service = KubeApiError.fromResponse(
    'PATCH',
    '/api/v1/namespaces/team-a/services/web',
    422,
    JSON.stringify({
      reason: 'Invalid',
      message: 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.9"]: may not change once set',
      details: {
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: ["10.0.0.9"]: may not change once set', field: 'spec.clusterIPs[0]' },
        ],
      },
    }),
  )
  t.same(immutableFields(service), [{ field: 'spec.clusterIPs[0]', detail: 'may not change once set' }])
  const fromMessage = KubeApiError.fromResponse(
    'PATCH',
    '/x',
    422,
    JSON.stringify({ message: 'admission webhook denied: spec.foo is immutable' }),
  )
  t.same(immutableFields(fromMessage), [{ field: '(unnamed field)', detail: 'is immutable' }], 'a message without causes')
  const configMap = KubeApiError.fromResponse(
    'PATCH',
    '/x',
    422,
    JSON.stringify({
      message: 'ConfigMap "x" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      details: {
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'data' }],
      },
    }),
  )
  t.same(immutableFields(configMap), [{ field: 'data', detail: 'field is immutable when `immutable` is set' }])
  const invalid = KubeApiError.fromResponse(
    'PATCH',
    '/x',
    422,
    JSON.stringify({
      message: 'ConfigMap "x" is invalid: data: Invalid value',
      details: { causes: [{ field: 'data', message: 'Invalid value' }] },
    }),
  )
  t.same(immutableFields(invalid), [], 'an ordinary invalid value')
  t.same(
    immutableFields(KubeApiError.fromResponse('PATCH', '/x', 409, JSON.stringify({ message: 'field is immutable' }))),
    [],
    'only a 422',
  )
  t.same(immutableFields(new Error('field is immutable')), [], 'only an API error')
  t.same(
    objectError(job, 'dry-run', immutableJob),
    { ref: job, operation: 'dry-run', immutable: ['spec.template'], message: 'spec.template: field is immutable', error: immutableJob },
    'the message names the field and why, never the value the server quotes',
  )
})

t.test('a rejected dry-run: DryRunFailed, or ImmutableFieldChanged naming the field and what to do', async (t) => {
  const plain = dryRunFailure(objectError(cm, 'dry-run', new KubeApiError('PATCH', '/x', 422, 'Invalid', 'data.a: Invalid value')))
  t.same(plain.condition, {
    type: 'Applied',
    status: 'False',
    reason: Reason.DryRunFailed,
    message: 'server-side dry-run of ConfigMap team-a/cfg failed, nothing was applied: data.a: Invalid value',
  })
  t.same(plain.event, { type: 'Warning', reason: Reason.DryRunFailed, message: 'ConfigMap team-a/cfg: data.a: Invalid value' })
  const immutable = dryRunFailure(objectError(job, 'dry-run', immutableJob))
  t.equal(immutable.condition.reason, Reason.ImmutableFieldChanged)
  t.equal(
    immutable.condition.message,
    'the new render changes spec.template of Job team-a/migrate, which the API server does not allow to change; nothing was applied. ' +
      'Delete Job team-a/migrate to have it created from the new render, or change the Template back',
  )
  t.same(immutable.event, {
    type: 'Warning',
    reason: Reason.ImmutableFieldChanged,
    message:
      'the new render changes spec.template of Job team-a/migrate, which the API server does not allow to change (spec.template: field is immutable)',
  })
})

t.test('failed applies: one condition for all, ImmutableFieldChanged when one is', async (t) => {
  t.equal(applyFailure([]), undefined)
  const plain = applyFailure([objectError(cm, 'apply', new KubeApiError('PATCH', '/x', 500, 'InternalError', 'etcd timeout'))])
  t.same(plain?.condition, { type: 'Applied', status: 'False', reason: Reason.ApplyFailed, message: 'ConfigMap team-a/cfg: etcd timeout' })
  t.same(plain?.event, { type: 'Warning', reason: Reason.ApplyFailed, message: 'ConfigMap team-a/cfg: etcd timeout' })
  const mixed = applyFailure([
    objectError(cm, 'apply', new KubeApiError('PATCH', '/x', 500, 'InternalError', 'etcd timeout')),
    objectError(job, 'apply', immutableJob),
  ])
  t.equal(mixed?.condition.reason, Reason.ImmutableFieldChanged)
  t.equal(
    mixed?.condition.message,
    'ConfigMap team-a/cfg: etcd timeout; the new render changes spec.template of Job team-a/migrate, which the API server does not allow to change (spec.template: field is immutable)',
  )
})

t.test('ownership conflicts: one condition naming each holder with the fix that fits it, one Event', async (t) => {
  const app = { namespace: 'team-a', name: 'app' }
  const set: ChangeSetEntry[] = [
    { action: 'conflict', ref: cm, holder: { kind: 'none' } },
    {
      action: 'conflict',
      ref: { ...cm, name: 'other' },
      holder: { kind: 'instance', uid: 'uid-x', ref: { namespace: 'team-a', name: 'first' } },
    },
    {
      action: 'conflict',
      ref: { ...cm, name: 'left' },
      holder: { kind: 'earlier', uid: 'uid-old', template: { namespace: 'platform', name: 'old' } },
    },
    { action: 'conflict', ref: { ...cm, name: 'more' }, holder: { kind: 'none' } },
  ]
  const r = ownershipConflict(set, app)
  t.equal(r?.condition.reason, Reason.OwnershipConflict)
  t.equal(
    r?.condition.message,
    'ConfigMap team-a/cfg exists and is not managed by this TemplateInstance. ' +
      'Delete or rename the existing object, or annotate it with templates.v2.stakater.com/instance-ref=team-a/app to let this instance adopt it. ' +
      'ConfigMap team-a/other is managed by TemplateInstance team-a/first (uid uid-x). ' +
      'Two instances cannot render one object: rename it in one of them, or delete TemplateInstance team-a/first; ' +
      'this instance creates it as soon as that instance no longer holds it. ' +
      'ConfigMap team-a/left was rendered from Template platform/old for an earlier TemplateInstance team-a/app (uid uid-old), which no longer exists. ' +
      'This instance takes it over when it renders from Template platform/old (spec.templateRef). ' +
      'Otherwise, hand it over as it is by removing its templates.v2.stakater.com/instance-uid label ' +
      '(kubectl label configmap left -n team-a templates.v2.stakater.com/instance-uid-), or delete it to have it created again ' +
      '(while Template platform/old is strict, it keeps the object protected from both). (1 more in conflict)',
  )
  t.same(r?.event, {
    type: 'Warning',
    reason: Reason.OwnershipConflict,
    message:
      'ConfigMap team-a/cfg exists and is not managed by this TemplateInstance. ' +
      'Delete or rename the existing object, or annotate it with templates.v2.stakater.com/instance-ref=team-a/app to let this instance adopt it',
  })
  t.equal(ownershipConflict([{ action: 'created', ref: cm }], app), undefined)
  const unrecorded = ownershipConflict([{ action: 'conflict', ref: cm, holder: { kind: 'earlier', uid: 'uid-old' } }], app)
  t.equal(
    unrecorded?.condition.message,
    'ConfigMap team-a/cfg was rendered for an earlier TemplateInstance team-a/app (uid uid-old), which no longer exists. ' +
      'Hand it over as it is by removing its templates.v2.stakater.com/instance-uid label ' +
      '(kubectl label configmap cfg -n team-a templates.v2.stakater.com/instance-uid-), or delete it to have it created again.',
    'without a recorded Template, only the hand-over and the delete',
  )
})

t.test('Events name what happened to each object, paths but never values', async (t) => {
  const changes = Array.from({ length: 12 }, (_, i) => ({ pointer: `/data/k${i}`, path: `data.k${i}`, kind: 'changed' as const }))
  const set: ChangeSetEntry[] = [
    { action: 'created', ref: cm },
    { action: 'updated', ref: cm },
    { action: 'corrected', ref: cm, changes: changes.slice(0, 2), writers: ['kubectl-edit'] },
    { action: 'corrected', ref: cm, changes, writers: ['fighter'], resumed: { waitedMs: 1500, manager: 'fighter' } },
    {
      action: 'corrected',
      ref: cm,
      changes: [{ pointer: '/metadata/labels/extra', path: 'metadata.labels.extra', kind: 'added' }],
      writers: ['kubectl-label', 'kubectl-edit'],
      removed: true,
    },
    { action: 'pruned', ref: cm },
    { action: 'released', ref: cm },
    { action: 'failed', ref: cm, error: objectError(cm, 'delete', new Error('forbidden')) },
    { action: 'failed', ref: cm, error: objectError(cm, 'apply', new Error('reported once per pass')) },
    { action: 'conflict', ref: cm, holder: { kind: 'none' } },
    { action: 'adopted', ref: cm, adoption: { kind: 'earlier', uid: 'uid-old' } },
    { action: 'adopted', ref: cm, adoption: { kind: 'annotation' } },
    { action: 'fight', ref: cm, notice: { kind: 'conflict', manager: 'fighter', streak: 3, nextInMs: 2000 } },
    { action: 'fight', ref: cm, notice: { kind: 'ended', manager: 'fighter', calmMs: 10_000 } },
  ]
  t.same(eventsFor(set, DEFAULT_FIGHT_OPTIONS), [
    { type: 'Normal', reason: 'Created', message: 'created ConfigMap team-a/cfg' },
    { type: 'Normal', reason: 'Updated', message: 'updated ConfigMap team-a/cfg' },
    {
      type: 'Normal',
      reason: 'Reverted',
      message: 'reverted drift in ConfigMap team-a/cfg: data.k0, data.k1, changed by field manager "kubectl-edit"',
    },
    {
      type: 'Normal',
      reason: 'Reverted',
      message:
        'reverted drift in ConfigMap team-a/cfg: data.k0, data.k1, data.k2, data.k3, data.k4, data.k5, data.k6, data.k7, data.k8, data.k9 and 2 more' +
        ', changed by field manager "fighter" (after a 1.5s backoff: field manager "fighter" keeps changing it)',
    },
    {
      type: 'Normal',
      reason: 'Reverted',
      message:
        'removed from ConfigMap team-a/cfg what the Template does not render: metadata.labels.extra, added by field manager "kubectl-label", "kubectl-edit"',
    },
    { type: 'Normal', reason: 'Pruned', message: 'deleted ConfigMap team-a/cfg: no longer rendered' },
    { type: 'Normal', reason: 'ObjectDeleted', message: 'ConfigMap team-a/cfg was deleted outside template-sync; it will be re-created' },
    { type: 'Warning', reason: 'DeleteFailed', message: 'could not delete ConfigMap team-a/cfg: forbidden' },
    {
      type: 'Normal',
      reason: 'Adopted',
      message:
        'took over ConfigMap team-a/cfg from an earlier TemplateInstance of this name (uid uid-old), rendered from the same Template',
    },
    {
      type: 'Normal',
      reason: 'Adopted',
      message: 'adopted ConfigMap team-a/cfg: it carried the templates.v2.stakater.com/instance-ref annotation naming this instance',
    },
    {
      type: 'Warning',
      reason: 'DriftConflict',
      message:
        'ConfigMap team-a/cfg drifted again right after each of the last 3 corrections; field manager "fighter" keeps changing it. ' +
        'Corrections continue with backoff: the next in 2s, later ones at least every 5m and 3s after the last write once the writer stops',
    },
    {
      type: 'Normal',
      reason: 'DriftConflictResolved',
      message:
        'ConfigMap team-a/cfg stayed as rendered for 10s after the last correction; the fight with field manager "fighter" is over and drift is corrected at once again',
    },
  ])
  t.same(
    failures(set, 'apply').map((e) => e.message),
    ['reported once per pass'],
  )
})

t.test('one Event per pass names every object created, updated, pruned or let go; corrections stay one per object', async (t) => {
  const ref = (name: string): ObjectRef => ({ ...cm, name })
  const names = Array.from({ length: 23 }, (_, i) => `c${i}`)
  const set: ChangeSetEntry[] = [
    ...['a', 'b', 'c', 'd', 'e'].map((n): ChangeSetEntry => ({ action: 'created', ref: ref(n) })),
    { action: 'corrected', ref: ref('x'), changes: [{ pointer: '/data/k', path: 'data.k', kind: 'changed' }], writers: ['w'] },
    { action: 'corrected', ref: ref('y'), changes: [{ pointer: '/data/j', path: 'data.j', kind: 'removed' }], writers: ['w'] },
    ...names.map((n): ChangeSetEntry => ({ action: 'pruned', ref: ref(n) })),
    { action: 'released', ref: ref('r1') },
    { action: 'released', ref: ref('r2') },
    { action: 'updated', ref: ref('u') },
  ]
  t.same(eventsFor(set, DEFAULT_FIGHT_OPTIONS), [
    {
      type: 'Normal',
      reason: 'Created',
      message: 'created 5 objects: ConfigMap team-a/a, ConfigMap team-a/b, ConfigMap team-a/c, ConfigMap team-a/d, ConfigMap team-a/e',
    },
    { type: 'Normal', reason: 'Reverted', message: 'reverted drift in ConfigMap team-a/x: data.k, changed by field manager "w"' },
    { type: 'Normal', reason: 'Reverted', message: 'reverted drift in ConfigMap team-a/y: data.j, changed by field manager "w"' },
    {
      type: 'Normal',
      reason: 'Pruned',
      message: `deleted 23 objects no longer rendered: ${names
        .slice(0, 20)
        .map((n) => `ConfigMap team-a/${n}`)
        .join(', ')} and 3 more`,
    },
    {
      type: 'Normal',
      reason: 'ObjectDeleted',
      message: '2 objects were deleted outside template-sync; they will be re-created: ConfigMap team-a/r1, ConfigMap team-a/r2',
    },
    { type: 'Normal', reason: 'Updated', message: 'updated ConfigMap team-a/u' },
  ])
})

const widget: ObjectRef = { apiVersion: 'acc90.example.com/v1', kind: 'Widget', namespace: 'team-a', name: 'w1' }

t.test('a kind the API server does not serve is KindNotFound, however the request learned it', async (t) => {
  interface Case {
    readonly name: string
    readonly error: unknown
    readonly want: { apiVersion: string; kind: string; detail?: string } | undefined
  }
  const cases: Case[] = [
    {
      name: 'a path answered 404 without a Status object ("404 page not found")',
      error: KubeApiError.fromResponse('PATCH', '/apis/acc90.example.com/v1/namespaces/team-a/widgets/w1', 404, '404 page not found\n'),
      want: { apiVersion: widget.apiVersion, kind: 'Widget' },
    },
    {
      name: 'discovery does not list the kind',
      error: new UnknownKindError(widget.apiVersion, 'Widget', KIND_NOT_SERVED),
      want: { apiVersion: widget.apiVersion, kind: 'Widget' },
    },
    {
      name: 'discovery failed: its error is kept',
      error: new UnknownKindError(widget.apiVersion, 'Widget', 'GET /apis/acc90.example.com/v1: 503 ServiceUnavailable: down'),
      want: { apiVersion: widget.apiVersion, kind: 'Widget', detail: 'GET /apis/acc90.example.com/v1: 503 ServiceUnavailable: down' },
    },
    {
      name: 'not a 404 with a Status: the namespace (or object) is missing, the kind is served',
      error: KubeApiError.fromResponse(
        'PATCH',
        '/api/v1/namespaces/gone/configmaps/cfg',
        404,
        JSON.stringify({ kind: 'Status', reason: 'NotFound', code: 404, message: 'namespaces "gone" not found' }),
      ),
      want: undefined,
    },
    { name: 'not another status', error: new KubeApiError('PATCH', '/x', 422, 'Invalid', 'data.a: Invalid value'), want: undefined },
  ]
  for (const c of cases) t.same(unservedKindOf(widget, c.error), c.want, c.name)
})

t.test('KindNotFound names each kind, says nothing was applied and that it applies once served', async (t) => {
  const one = kindNotFound([{ apiVersion: 'acc90.example.com/v1', kind: 'Widget' }])
  t.same(one.condition, {
    type: 'Applied',
    status: 'False',
    reason: Reason.KindNotFound,
    message:
      'Widget acc90.example.com/v1 is not served by the API server (is its CRD installed?); nothing was applied; applies once it is served',
  })
  t.same(one.event, {
    type: 'Warning',
    reason: Reason.KindNotFound,
    message: 'Widget acc90.example.com/v1 is not served by the API server (is its CRD installed?); nothing was applied',
  })
  const two = kindNotFound([
    { apiVersion: 'a.example.com/v1', kind: 'Widget' },
    { apiVersion: 'b.example.com/v2', kind: 'Gadget', detail: 'GET /apis/b.example.com/v2: 503 ServiceUnavailable: down' },
  ])
  t.equal(
    two.condition.message,
    'Widget a.example.com/v1, Gadget b.example.com/v2 (discovery failed: GET /apis/b.example.com/v2: 503 ServiceUnavailable: down) ' +
      'are not served by the API server (are their CRDs installed?); nothing was applied; applies once they are served',
  )
  const dryRun = dryRunFailure(objectError(widget, 'dry-run', KubeApiError.fromResponse('PATCH', '/apis/x', 404, '404 page not found')))
  t.same(dryRun, one, 'a dry-run answered "404 page not found" is the same report')
})
