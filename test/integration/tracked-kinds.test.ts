// status.trackedKinds across an upgrade, against the real API server: a
// status written by an older release (trackedGVKs, "/v1/ConfigMap") is read
// and moved, and a CRD that predates trackedKinds (Helm does not upgrade
// CRDs) never makes the reconciler lose track of what it rendered.

import t from 'tap'
import { adminClient, freshNamespace, eventually } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  waitForCondition,
  deleteInstance,
  getInstance,
  instancePath,
  configMapTemplate,
  type RunningManager,
} from './helpers/operator.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { ANNOTATION_TRACKED_KINDS, CRD_TEMPLATE_INSTANCE, FINALIZER_INSTANCE } from '../../src/api/names.ts'
import type { JSONSchemaProps } from '../../src/api/schema.ts'
import { CONTENT_APPLY, CONTENT_MERGE } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op.stop()
  // Leave the current CRDs for whatever runs next.
  await installCrds(client)
  client.close()
})

const getCm = (ns: string, name: string): Promise<IdentifiedObject | undefined> =>
  client.getOrUndefined<IdentifiedObject>(`/api/v1/namespaces/${ns}/configmaps/${name}`)
const touch = (ns: string, name: string, value: string): Promise<unknown> =>
  client.request('PATCH', instancePath(ns, name), { body: { metadata: { labels: { touched: value } } }, contentType: CONTENT_MERGE })

/** status.trackedKinds once trackedGVKs is gone. */
async function movedKinds(ns: string, name: string): Promise<string[] | undefined> {
  const moved = await eventually('moved to trackedKinds', async () => {
    const i = await getInstance(client, ns, name)
    return i?.status?.trackedKinds && i.status.trackedGVKs === undefined ? i : undefined
  })
  return moved.status?.trackedKinds
}

t.test('a status written by an older release is read and moved to trackedKinds', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', { gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  await createInstance(client, ns, 'old', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'old', 'Ready', 'True')
  // What an older reconciler left behind. A status write alone wakes no reconcile.
  await client.request('PATCH', `${instancePath(ns, 'old')}/status`, {
    body: { status: { trackedKinds: null, trackedGVKs: ['/v1/ConfigMap'] } },
    contentType: CONTENT_MERGE,
  })
  const before = await getInstance(client, ns, 'old')
  t.same(before?.status?.trackedGVKs, ['/v1/ConfigMap'], 'the CRD keeps the older field')
  t.equal(before?.status?.trackedKinds, undefined)
  await touch(ns, 'old', 'yes')
  t.same(await movedKinds(ns, 'old'), ['v1/ConfigMap'], 'in trackedKinds, trackedGVKs gone')
  // Cleanup still finds the kind that only the older field named.
  await deleteInstance(client, ns, 'old')
  t.equal(await getCm(ns, 'old'), undefined, 'rendered object deleted with the instance')
})

t.test('a CRD without trackedKinds: the kinds are kept in trackedGVKs, said so, and moved once the CRD is updated', async (t) => {
  const current = crdManifests().find((c) => c.metadata.name === CRD_TEMPLATE_INSTANCE)
  if (!current) throw new Error('no TemplateInstance CRD')
  const old = structuredClone(current)
  const statusSchema = old.spec.versions[0]?.schema.openAPIV3Schema.properties?.status as JSONSchemaProps
  delete statusSchema.properties?.trackedKinds
  await client.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_TEMPLATE_INSTANCE}`, {
    body: old,
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync-test', force: true },
  })
  // The API server applies a new schema shortly after the update: wait until trackedKinds is pruned.
  const probeNs = await freshNamespace(t, client)
  await createTemplate(client, probeNs, 'tpl', { gotemplate: configMapTemplate('p', { a: '"1"' }) })
  await eventually('old schema in force', async () => {
    const name = `probe-${Date.now()}`
    await createInstance(client, probeNs, name, { templateRef: { name: 'tpl', namespace: probeNs } })
    const w = await client.request<{ status?: { trackedKinds?: unknown; trackedGVKs?: unknown } }>(
      'PATCH',
      `${instancePath(probeNs, name)}/status`,
      { body: { status: { trackedKinds: ['v1/X'], trackedGVKs: ['/v1/X'] } }, contentType: CONTENT_MERGE },
    )
    return w.status?.trackedKinds === undefined && w.status?.trackedGVKs !== undefined ? true : undefined
  })

  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }),
  })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  const inst = await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  t.same(inst.status?.trackedGVKs, ['/v1/ConfigMap'], 'kept where the older CRD stores it, in its spelling')
  t.equal(inst.status?.trackedKinds, undefined)
  t.ok(
    op.events.some((e) => e.type === 'Warning' && e.reason === 'OutdatedCRD' && /charts\/template-sync\/crds/.test(e.message)),
    'the instance says what to do',
  )
  // Nothing is lost meanwhile: drift is reverted, and a restarted reconciler still finds the objects.
  await op.stop()
  op = await startManager()
  await client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/app`, { body: { data: { a: 'x' } }, contentType: CONTENT_MERGE })
  await eventually('reverted', async () => ((await getCm(ns, 'app'))?.data as Record<string, string> | undefined)?.a === '1' || undefined)

  // Updating the CRD: the next reconciler start moves the list.
  await installCrds(client)
  await op.stop()
  op = await startManager()
  await touch(ns, 'app', 'after-update')
  t.same(await movedKinds(ns, 'app'), ['v1/ConfigMap'], 'in trackedKinds, trackedGVKs gone')
  await deleteInstance(client, ns, 'app')
  t.equal(await getCm(ns, 'app'), undefined, 'cleaned up through the tracked kind')
})

t.test('the kinds go on the instance with its finalizer before any apply, and cleanup reads them there', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', { gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  const ready = await waitForCondition(client, ns, 'app', 'Ready', 'True')
  t.equal(ready.metadata?.annotations?.[ANNOTATION_TRACKED_KINDS], 'v1/ConfigMap', 'recorded in the annotation')
  t.ok(ready.metadata?.finalizers?.includes(FINALIZER_INSTANCE), 'with our finalizer')
  t.same(ready.status?.trackedKinds, ['v1/ConfigMap'], 'and in status')
  // A pass that ended after its applies and before its status write leaves
  // the kinds in the annotation only; the instance is deleted meanwhile.
  await op.stop()
  await client.request('DELETE', instancePath(ns, 'app'))
  await client.request('PATCH', `${instancePath(ns, 'app')}/status`, {
    body: { status: { trackedKinds: null } },
    contentType: CONTENT_MERGE,
  })
  const bare = await getInstance(client, ns, 'app')
  t.equal(bare?.status?.trackedKinds, undefined, 'status names no kind')
  t.ok(bare?.metadata?.deletionTimestamp, 'held by our finalizer')
  op = await startManager()
  await eventually('instance gone', async () => ((await getInstance(client, ns, 'app')) === undefined ? true : undefined))
  t.equal(await getCm(ns, 'app'), undefined, 'its object deleted through the annotated kind')
})
