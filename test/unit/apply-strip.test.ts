// Revert removes what other writers added (apply/plan.ts, a strip): fields of
// a writer that is neither template-sync nor one of the cluster's components,
// which the Template does not render. Components' fields and ignored fields stay.

import t from 'tap'
import type { IdentifiedObject, ManagedFieldsEntry } from '../../src/api/meta.ts'
import { stampOwnership } from '../../src/api/ownership.ts'
import { DEFAULT_COMPONENTS } from '../../src/api/writers.ts'
import { applyActions } from '../../src/apply/apply.ts'
import type { FightOptions } from '../../src/apply/fight.ts'
import { desiredObject, type PlanContext, planObject, remember } from '../../src/apply/plan.ts'
import { removalPatch } from '../../src/drift/additions.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'

const owner = { name: 'app', namespace: 'team-a', uid: 'uid-app' }
const fight: FightOptions = { windowMs: 10_000, threshold: 3, backoffMs: 500, backoffMaxMs: 8_000, quietMs: 3_000 }
const ctx = (ignore: string[] = [], components = true): PlanContext => ({
  owner,
  ignore: compileIgnoreFields(ignore),
  now: 1_000,
  fight,
  ...(components ? { components: DEFAULT_COMPONENTS } : {}),
})

const desired = desiredObject(
  stampOwnership(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'team-a' },
      spec: { template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
    },
    owner,
    'revert',
  ),
)

const ours: ManagedFieldsEntry = {
  manager: 'template-sync',
  operation: 'Apply',
  apiVersion: 'apps/v1',
  fieldsV1: {
    'f:metadata': { 'f:labels': { 'f:templates.v2.stakater.com/instance-uid': {} } },
    'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
  },
}

/** The live Deployment with `extra` merged in and these managedFields. */
function live(entries: ManagedFieldsEntry[], extra: (d: IdentifiedObject) => void = () => {}): IdentifiedObject {
  const d = structuredClone(desired.obj)
  d.metadata = { ...d.metadata, uid: 'd-uid', resourceVersion: '42', managedFields: [ours, ...entries] }
  extra(d)
  return d
}

const privileged = (d: IdentifiedObject): void => {
  const spec = (d.spec as { template: { spec: { containers: Record<string, unknown>[]; hostNetwork?: boolean } } }).template.spec
  Object.assign(spec.containers[0] as object, { securityContext: { privileged: true } })
  spec.hostNetwork = true
  d.metadata.labels = { ...d.metadata.labels, extra: '1' }
}
const kubectl: ManagedFieldsEntry = {
  manager: 'kubectl-patch',
  operation: 'Update',
  fieldsV1: {
    'f:metadata': { 'f:labels': { 'f:extra': {} } },
    'f:spec': {
      'f:template': {
        'f:spec': { 'f:hostNetwork': {}, 'f:containers': { 'k:{"name":"web"}': { 'f:securityContext': { '.': {}, 'f:privileged': {} } } } },
      },
    },
  },
}

t.test('another writer`s additions are stripped, with one guarded patch naming the writer', async (t) => {
  const l = live([kubectl], privileged)
  const look = planObject(desired, l, {}, ctx())
  t.equal(look.type, 'strip')
  if (look.type !== 'strip') return
  t.same(
    look.additions.map((a) => [a.path, a.managers]),
    [
      ['metadata.labels.extra', ['kubectl-patch']],
      ['spec.template.spec.hostNetwork', ['kubectl-patch']],
      ['spec.template.spec.containers[0].securityContext', ['kubectl-patch']],
    ],
  )
  t.same(removalPatch(look.additions, '42'), [
    { op: 'test', path: '/metadata/resourceVersion', value: '42' },
    { op: 'remove', path: '/spec/template/spec/hostNetwork' },
    { op: 'remove', path: '/spec/template/spec/containers/0/securityContext' },
    { op: 'remove', path: '/metadata/labels/extra' },
  ])
  const sent: unknown[] = []
  const writer = {
    apply: async () => l,
    jsonPatch: async (_ref: unknown, ops: unknown) => {
      sent.push(ops)
      return l
    },
  }
  const [out] = await applyActions(writer, [look], () => 2_000)
  t.equal(sent.length, 1, 'one write')
  const { memory, corrected } = remember({}, look, out?.result, 2_000, fight)
  t.same(memory.applied, undefined, 'our apply is not what changed')
  t.ok(corrected, 'the fight state counts a correction')
})

t.test('what the components write, ignored fields and the off mode are left alone', async (t) => {
  const controller: ManagedFieldsEntry = {
    manager: 'kube-controller-manager',
    operation: 'Update',
    fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } } },
  }
  const revised = live(
    [controller],
    (d) => (d.metadata.annotations = { ...d.metadata.annotations, 'deployment.kubernetes.io/revision': '1' }),
  )
  t.not(planObject(desired, revised, {}, ctx()).type, 'strip', 'the deployment controller`s annotation')
  const label: ManagedFieldsEntry = {
    manager: 'kubectl-label',
    operation: 'Update',
    fieldsV1: { 'f:metadata': { 'f:labels': { 'f:extra': {} } } },
  }
  const labelled = live([label], (d) => (d.metadata.labels = { ...d.metadata.labels, extra: '1' }))
  t.equal(planObject(desired, labelled, {}, ctx()).type, 'strip')
  t.not(planObject(desired, labelled, {}, ctx(['metadata.labels'])).type, 'strip', 'ignoreFields wins')
  t.not(planObject(desired, labelled, {}, ctx([], false)).type, 'strip', 'no components given: off, nothing is stripped')
  const posing: ManagedFieldsEntry = { ...label, manager: 'kube-controller-manager' }
  t.not(
    planObject(
      desired,
      live([posing], (d) => (d.metadata.labels = { ...d.metadata.labels, extra: '1' })),
      {},
      ctx(),
    ).type,
    'strip',
    'a manager name is taken at its word',
  )
})

t.test('an object without our Apply entry is never stripped: what we render cannot be told', async (t) => {
  const l = live([kubectl], privileged)
  l.metadata.managedFields = [kubectl]
  t.not(planObject(desired, l, {}, ctx()).type, 'strip')
})

t.test('a rendered field another writer took over by changing it is drift to put back, not an addition', async (t) => {
  const taken: ManagedFieldsEntry = {
    manager: 'kubectl-edit',
    operation: 'Update',
    fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {} } } } } } },
  }
  const l = live([taken], (d) => {
    const c = (d.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]
    if (c) c.image = 'evil:1'
  })
  // Our Apply entry lost the field to the writer that changed it.
  l.metadata.managedFields = [
    { ...ours, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:templates.v2.stakater.com/instance-uid': {} } } } },
    taken,
  ]
  t.not(planObject(desired, l, {}, ctx()).type, 'strip')
})
