// The chart's tenant roles on the real API server: a namespace admin may
// create TemplateInstances in her namespace and read Templates there, and
// nothing beyond it; only the template-author role writes Templates.

import t from 'tap'
import { API_VERSION } from '../../src/api/names.ts'
import { adminClient } from './helpers/cluster.ts'
import { installCrds } from './helpers/operator.ts'
import { can, refused, tenancy } from './helpers/tenancy.ts'

const admin = adminClient()
await installCrds(admin)
const GROUP = 'templates.v2.stakater.com'

t.test('a namespace admin writes TemplateInstances in her namespace only, and no Templates', async (t) => {
  const { platform, teamA, teamB } = await tenancy(t, admin)
  t.equal(await can(teamA.client, { verb: 'create', group: GROUP, resource: 'templateinstances', namespace: teamA.namespace }), true)
  t.equal(await can(teamA.client, { verb: 'get', group: GROUP, resource: 'templates', namespace: teamA.namespace }), true)
  t.equal(await can(teamA.client, { verb: 'create', group: GROUP, resource: 'templates', namespace: teamA.namespace }), undefined)
  t.equal(await can(teamA.client, { verb: 'create', group: GROUP, resource: 'templateinstances', namespace: teamB.namespace }), undefined)
  t.equal(await can(teamA.client, { verb: 'get', group: '', resource: 'secrets', namespace: teamB.namespace }), undefined)
  t.equal(await can(platform.client, { verb: 'create', group: GROUP, resource: 'templates', namespace: platform.namespace }), true)
  t.equal(await can(platform.client, { verb: 'create', group: GROUP, resource: 'templates', namespace: teamA.namespace }), undefined)

  const instance = {
    apiVersion: API_VERSION,
    kind: 'TemplateInstance',
    metadata: { name: 'mine' },
    spec: { templateRef: { name: 'x', namespace: platform.namespace } },
  }
  await teamA.client.request('POST', `/apis/${API_VERSION}/namespaces/${teamA.namespace}/templateinstances`, { body: instance })
  const other = await refused('alice creating an instance in team-b', () =>
    teamA.client.request('POST', `/apis/${API_VERSION}/namespaces/${teamB.namespace}/templateinstances`, { body: instance }),
  )
  t.equal(other.code, 403)
  const template = { apiVersion: API_VERSION, kind: 'Template', metadata: { name: 't' }, spec: { gotemplate: 'kind: x' } }
  const own = await refused('alice creating a Template', () =>
    teamA.client.request('POST', `/apis/${API_VERSION}/namespaces/${teamA.namespace}/templates`, { body: template }),
  )
  t.equal(own.code, 403)
  await platform.client.request('POST', `/apis/${API_VERSION}/namespaces/${platform.namespace}/templates`, { body: template })
})
