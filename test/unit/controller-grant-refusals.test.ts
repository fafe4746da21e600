// A Template says which of its instances reach beyond their namespace
// without a grant (InstancesWithinGrants), and is reconciled again when that
// changes or when an instance stops using it.

import t from 'tap'
import { grantRefusalOf, instancesWithinGrants } from '../../src/api/conditions.ts'
import type { Condition } from '../../src/api/meta.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { templatesOf, templatesToRecheck } from '../../src/controller/indexes.ts'

const cond = (type: string, status: 'True' | 'False', reason: string, message = ''): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
})

function instance(template: string, conditions: Condition[] = [], resolved?: string): TemplateInstance {
  return {
    metadata: { name: 'app', namespace: 'team-a' },
    spec: { templateRef: { name: template, namespace: 'platform' } },
    status: { conditions, ...(resolved ? { resolvedTemplateRef: { name: resolved, namespace: 'platform' } } : {}) },
  }
}

const forbidden = cond('ParametersValid', 'False', 'ParameterSourceForbidden', 'parameter "pw": valueFrom reads Secret victim/db, ...')

t.test('grantRefusalOf reads the two refusal reasons and nothing else', async (t) => {
  t.same(grantRefusalOf(instance('t', [forbidden])), {
    instance: 'team-a/app',
    reason: 'ParameterSourceForbidden',
    message: forbidden.message,
  })
  t.same(grantRefusalOf(instance('t', [cond('Rendered', 'False', 'ObjectForbidden', 'm')]))?.reason, 'ObjectForbidden')
  t.equal(grantRefusalOf(instance('t', [cond('ParametersValid', 'False', 'InvalidParameter', 'm')])), undefined)
  t.equal(grantRefusalOf(instance('t', [cond('ParametersValid', 'True', 'AllParametersResolved')])), undefined)
})

t.test('instancesWithinGrants: True with none, False naming the first few', async (t) => {
  t.same(instancesWithinGrants([]), { type: 'InstancesWithinGrants', status: 'True', reason: 'AllWithinGrants', message: '' })
  const many = Array.from({ length: 5 }, (_, i) => ({ instance: `ns/i${i}`, reason: 'ObjectForbidden' as const, message: `m${i}` }))
  const c = instancesWithinGrants(many)
  t.equal(c.status, 'False')
  t.equal(c.reason, 'ObjectForbidden')
  t.equal(
    c.message,
    '5 TemplateInstance(s) reach beyond their namespace without a grant of this Template: ns/i0: m0; ns/i1: m1; ns/i2: m2; and 2 more',
  )
})

t.test('templatesToRecheck: a refusal that starts or ends, and a Template no longer used', async (t) => {
  t.same(templatesToRecheck(instance('t', [forbidden]), instance('t')), ['platform/t'], 'refused now')
  t.same(templatesToRecheck(instance('t'), instance('t', [forbidden])), ['platform/t'], 'no longer refused')
  t.same(templatesToRecheck(instance('t', [forbidden]), instance('t', [forbidden])), [], 'unchanged')
  t.same(templatesToRecheck(instance('new', [], 'new'), instance('new', [], 'old')), ['platform/old'], 'the last render moved on')
  t.same(templatesOf(instance('new', [], 'old')), ['platform/new', 'platform/old'])
})
