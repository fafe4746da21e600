// Field sets of managedFields read against objects (src/drift/field-set.ts):
// which changes touch what template-sync applied, and which fields another
// writer added.

import t from 'tap'
import type { ManagedFieldsEntry } from '../../src/api/meta.ts'
import { fieldsOnlyIn, touchesSet } from '../../src/drift/field-set.ts'

const ours = {
  'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"templates.v2.stakater.com/template-instance-resource"': {} } },
  'f:spec': {
    'f:replicas': {},
    'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
  },
}

function deployment(edit: (d: Record<string, any>) => void = () => {}): Record<string, any> {
  const d: Record<string, any> = {
    metadata: {
      labels: { app: 'web' },
      annotations: {},
      finalizers: ['templates.v2.stakater.com/template-instance-resource'],
    },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
  }
  edit(d)
  return d
}

t.test('touchesSet: a change to a field we apply touches it; a field we never rendered does not', async (t) => {
  const before = deployment()
  const image = deployment((d) => (d.spec.template.spec.containers[0].image = 'web:2'))
  t.ok(touchesSet(ours, ['spec', 'template', 'spec', 'containers', 0, 'image'], before, image))
  const revision = deployment((d) => (d.metadata.annotations['deployment.kubernetes.io/revision'] = '1'))
  t.notOk(touchesSet(ours, ['metadata', 'annotations', 'deployment.kubernetes.io/revision'], before, revision))
  t.notOk(touchesSet(ours, ['spec', 'volumeName'], before, before))
  t.ok(
    touchesSet(
      ours,
      ['spec', 'replicas'],
      before,
      deployment((d) => (d.spec.replicas = 3)),
    ),
  )
})

t.test('touchesSet: a list we own items of may gain others, not lose ours', async (t) => {
  const before = deployment()
  const added = deployment((d) => d.metadata.finalizers.push('kubernetes.io/pvc-protection'))
  t.notOk(touchesSet(ours, ['metadata', 'finalizers'], before, added), 'another finalizer added')
  const removed = deployment((d) => (d.metadata.finalizers = []))
  t.ok(touchesSet(ours, ['metadata', 'finalizers'], before, removed), 'ours removed')
  const sidecar = deployment((d) => d.spec.template.spec.containers.push({ name: 'proxy', image: 'p' }))
  t.notOk(touchesSet(ours, ['spec', 'template', 'spec', 'containers'], before, sidecar), 'a container of someone else')
  t.ok(
    touchesSet(
      ours,
      ['spec', 'template', 'spec', 'containers'],
      before,
      deployment((d) => (d.spec.template.spec.containers = [])),
    ),
  )
})

const entry = (manager: string, fieldsV1: Record<string, unknown>): ManagedFieldsEntry => ({ manager, operation: 'Update', fieldsV1 })

t.test('fieldsOnlyIn: the top-most fields another writer added', async (t) => {
  const live = deployment((d) => {
    d.metadata.labels.extra = '1'
    d.metadata.annotations['deployment.kubernetes.io/revision'] = '1'
    d.spec.template.spec.hostNetwork = true
    Object.assign(d.spec.template.spec.containers[0], { env: [{ name: 'DEBUG', value: '1' }], securityContext: { privileged: true } })
  })
  const kubectl = entry('kubectl-edit', {
    'f:metadata': { 'f:labels': { 'f:extra': {} } },
    'f:spec': {
      'f:template': {
        'f:spec': {
          'f:hostNetwork': {},
          'f:containers': {
            'k:{"name":"web"}': {
              'f:env': { '.': {}, 'k:{"name":"DEBUG"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
              'f:securityContext': { '.': {}, 'f:privileged': {} },
            },
          },
        },
      },
    },
  })
  const controller = { 'f:metadata': { 'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} } } }
  t.same(
    fieldsOnlyIn(kubectl, [ours, controller], live).map((f) => f.steps.join('.')),
    [
      'metadata.labels.extra',
      'spec.template.spec.hostNetwork',
      'spec.template.spec.containers.0.env',
      'spec.template.spec.containers.0.securityContext',
    ],
  )
  t.same(fieldsOnlyIn(entry('kube-controller-manager', controller), [ours, controller], live), [], 'what we keep is no addition')
})

t.test('fieldsOnlyIn: a field we also set is not an addition; one the object lost is skipped', async (t) => {
  const live = deployment()
  const same = entry('kubectl-edit', { 'f:spec': { 'f:replicas': {} }, 'f:status': {} })
  t.same(fieldsOnlyIn(same, [ours], live), [])
  const gone = entry('kubectl-edit', { 'f:spec': { 'f:paused': {} } })
  t.same(fieldsOnlyIn(gone, [ours], live), [])
})
