// Objects left behind by a TemplateInstance that was force-deleted (its
// finalizer removed by hand while no reconciler ran) must never hang in
// Terminating: the reconciler releases our finalizer from them, deletes
// nothing, and lets go of the watches it held to find them.

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
import { FINALIZER_RESOURCE } from '../../src/api/names.ts'
import { ORPHAN_OWNER } from '../../src/controller/orphans.ts'
import { CONTENT_JSON_PATCH } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op.stop()
  client.close()
})

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const getCm = (ns: string, name: string): Promise<IdentifiedObject | undefined> => client.getOrUndefined<IdentifiedObject>(cmPath(ns, name))

/** What `kubectl delete` followed by removing the finalizers by hand does. */
async function forceDelete(ns: string, name: string): Promise<void> {
  await client.request('DELETE', instancePath(ns, name))
  await client.request('PATCH', instancePath(ns, name), {
    body: [{ op: 'remove', path: '/metadata/finalizers' }],
    contentType: CONTENT_JSON_PATCH,
  })
  await eventually('instance gone', async () => ((await getInstance(client, ns, name)) === undefined ? true : undefined))
}

t.test(
  'objects of an instance force-deleted while no reconciler ran: a pending delete completes, the rest is released and kept',
  async (t) => {
    const ns = await freshNamespace(t, client)
    await createTemplate(client, ns, 'guarded', {
      sync: { mode: 'revert' },
      gotemplate: [
        configMapTemplate('a-{{ .instance.name }}', { v: '"1"' }),
        '---',
        configMapTemplate('b-{{ .instance.name }}', { v: '"2"' }),
      ].join('\n'),
    })
    // Another instance still tracks ConfigMaps (frozen under off, so no drift watch of its own).
    await createTemplate(client, ns, 'frozen', { gotemplate: configMapTemplate('{{ .instance.name }}', { v: '"3"' }) })
    await createInstance(client, ns, 'victim', { templateRef: { name: 'guarded', namespace: ns } })
    await createInstance(client, ns, 'bystander', { templateRef: { name: 'frozen', namespace: ns } })
    await waitForCondition(client, ns, 'victim', 'Synced', 'True', 'SyncActive')
    await waitForCondition(client, ns, 'bystander', 'Synced', 'False', 'Frozen')
    t.ok((await getCm(ns, 'a-victim'))?.metadata.finalizers?.includes(FINALIZER_RESOURCE), 'rendered under revert: carries our finalizer')

    await op.stop()
    await forceDelete(ns, 'victim')
    // Without a reconciler this delete hangs in Terminating.
    await client.request('DELETE', cmPath(ns, 'a-victim'))
    await new Promise((r) => setTimeout(r, 1000))
    t.ok((await getCm(ns, 'a-victim'))?.metadata.deletionTimestamp, 'Terminating while nobody releases it')

    op = await startManager()
    await eventually('the pending delete completed', async () => ((await getCm(ns, 'a-victim')) === undefined ? true : undefined), 10_000)
    const kept = await eventually(
      'the other object released',
      async () => {
        const cm = await getCm(ns, 'b-victim')
        return cm && !cm.metadata.finalizers?.includes(FINALIZER_RESOURCE) ? cm : undefined
      },
      10_000,
    )
    t.notOk(kept.metadata.deletionTimestamp, 'an orphan is not deleted')
    t.same(kept.data, { v: '2' }, 'nor changed')
    t.ok(
      op.events.some((e) => e.reason === 'OrphanReleased' && /victim .*no longer exists/.test(e.message)),
      'an Event on the object says why',
    )
    // kubectl delete of the former object now completes at once.
    await client.request('DELETE', cmPath(ns, 'b-victim'))
    await eventually('deleted', async () => ((await getCm(ns, 'b-victim')) === undefined ? true : undefined), 5000)
    await eventually(
      'the watch held to find them is let go',
      async () => (op.manager.orphans.heldKinds().length === 0 ? true : undefined),
      10_000,
    )
    // Other instances in the cluster may still watch ConfigMaps; the hold for orphans is gone.
    t.notOk(op.manager.drift.ownersOf('v1/ConfigMap').includes(ORPHAN_OWNER), 'the drift watch is no longer held for orphans')
    t.ok(await getCm(ns, 'bystander'), "the bystander's object is untouched")
  },
)

// Every instance that goes away has its kinds held until their watch shows no orphan.
t.test('a normal delete leaves no orphan watch behind', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', { gotemplate: configMapTemplate('{{ .instance.name }}', { v: '"1"' }) })
  await createInstance(client, ns, 'fine', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'fine', 'Ready', 'True')
  await deleteInstance(client, ns, 'fine')
  t.equal(await getCm(ns, 'fine'), undefined, 'cleaned up by the instance itself')
  await eventually('hold released', async () => (op.manager.orphans.heldKinds().length === 0 ? true : undefined), 10_000)
  t.pass('released')
})
