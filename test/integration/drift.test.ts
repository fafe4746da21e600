// Drift correction for revert/strict against the real API server, one test per
// behaviour, including the regressions the peer seeds describe: no write loops
// at rest, deleted objects re-created every time (also after a watch restart),
// parameter-source changes propagating, restart safety, shared watches, an API
// server restart, and edits through both an update (kubectl edit) and an apply
// by another field manager. Fights over a field: drift-fight.test.ts.

import t from 'tap'
import { adminClient, freshNamespace, eventually, restartApiServer } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  deleteInstance,
  condition,
  getInstance,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_APPLY, CONTENT_MERGE } from '../../src/kube/client.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op?.stop()
  client.close()
})

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const getCm = (ns: string, name: string): Promise<IdentifiedObject | undefined> => client.getOrUndefined<IdentifiedObject>(cmPath(ns, name))
const dataOf = async (ns: string, name: string): Promise<Record<string, string> | undefined> =>
  (await getCm(ns, name))?.data as Record<string, string> | undefined
const editCm = (ns: string, name: string, data: Record<string, string | null>, manager = 'kubectl-edit'): Promise<IdentifiedObject> =>
  client.request<IdentifiedObject>('PATCH', cmPath(ns, name), {
    body: { data },
    contentType: CONTENT_MERGE,
    query: { fieldManager: manager },
  })

const isWrite = (v: string): boolean =>
  v !== 'GET' && v !== 'WATCH' && !v.endsWith('-DRYRUN') && !v.startsWith('LEASE-') && !v.startsWith('EVENT-')
/**
 * Counts the reconciler's writes into one namespace from now on. Other tests'
 * namespaces are being torn down meanwhile, and cleaning those up is
 * legitimate work that must not count here.
 */
function writesIn(ns: string): () => number {
  let n = 0
  op.client.observe((verb, path) => {
    if (isWrite(verb) && path.includes(`/namespaces/${ns}/`)) n++
  })
  return () => n
}

async function revertSetup(
  t: { teardown(fn: () => unknown): void },
  mode: 'revert' | 'strict' = 'revert',
  ignoreFields: string[] = [],
): Promise<string> {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode, ignoreFields },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  color: blue\n  size: "3"\n',
  })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  return ns
}

t.test('after convergence: no writes and no delete/create cycles for 60 s', async (t) => {
  const ns = await revertSetup(t)
  const before = await getCm(ns, 'app')
  // Let any in-flight work settle, then measure.
  await new Promise((r) => setTimeout(r, 3000))
  const inNs = writesIn(ns)
  await new Promise((r) => setTimeout(r, 60_000))
  t.equal(inNs(), 0, 'the reconciler wrote nothing at rest')
  const after = await getCm(ns, 'app')
  t.equal(after?.metadata.uid, before?.metadata.uid, 'same object (never deleted and re-created)')
  t.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion, 'object never written')
})

t.test('an edit is reverted with exactly one write, and an event names the field', async (t) => {
  const ns = await revertSetup(t)
  await new Promise((r) => setTimeout(r, 500))
  const inNs = writesIn(ns)
  await editCm(ns, 'app', { color: 'red' })
  await eventually('reverted', async () => ((await dataOf(ns, 'app'))?.color === 'blue' ? true : undefined))
  await new Promise((r) => setTimeout(r, 1500))
  t.equal(inNs(), 1, 'one apply, nothing else')
  t.ok(
    op.events.some((e) => e.reason === 'Reverted' && /app/.test(e.message) && /data\.color/.test(e.message)),
    'Reverted event names the field',
  )
})

t.test('a deleted rendered object is re-created every time, also after its watch restarted', async (t) => {
  const ns = await revertSetup(t)
  for (let round = 1; round <= 3; round++) {
    const old = await getCm(ns, 'app')
    await client.request('DELETE', cmPath(ns, 'app'))
    await eventually(`re-created (round ${round})`, async () => {
      const cm = await getCm(ns, 'app')
      return cm && cm.metadata.uid !== old?.metadata.uid && !cm.metadata.deletionTimestamp ? true : undefined
    })
    if (round === 2) op.manager.drift.get('v1/ConfigMap')?.restartWatch()
  }
  t.equal((await dataOf(ns, 'app'))?.color, 'blue')
  const inst = await waitForCondition(client, ns, 'app', 'Ready', 'True')
  t.equal(condition(inst, 'Synced')?.reason, 'SyncActive')
})

t.test('an update of a parameter source propagates to the rendered object', async (t) => {
  const ns = await freshNamespace(t, client)
  await client.request('POST', cmPath(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { level: 'one' } },
  })
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    parameters: [{ name: 'level' }],
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out\ndata:\n  level: {{ .parameters.level | quote }}\n',
  })
  await createInstance(client, ns, 'app', {
    templateRef: { name: 'tpl', namespace: ns },
    parameters: [{ name: 'level', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level' } } }],
  })
  await waitForCondition(client, ns, 'app', 'Ready', 'True')
  t.equal((await dataOf(ns, 'out'))?.level, 'one')
  await editCm(ns, 'settings', { level: 'two' }, 'someone')
  await eventually('source change propagated', async () => ((await dataOf(ns, 'out'))?.level === 'two' ? true : undefined))
  t.pass('propagated')
})

t.test('a reconciler restart leaves correct objects untouched', async (t) => {
  const ns = await revertSetup(t)
  const before = await getCm(ns, 'app')
  const instBefore = await getInstance(client, ns, 'app')
  await op.stop()
  op = await startManager()
  await new Promise((r) => setTimeout(r, 5000))
  const after = await getCm(ns, 'app')
  t.equal(after?.metadata.uid, before?.metadata.uid, 'not re-created')
  t.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion, 'not written')
  const instAfter = await getInstance(client, ns, 'app')
  t.equal(instAfter?.metadata?.resourceVersion, instBefore?.metadata?.resourceVersion, 'instance status not rewritten')
  // Still protected after the restart.
  await editCm(ns, 'app', { color: 'green' })
  await eventually('reverted after restart', async () => ((await dataOf(ns, 'app'))?.color === 'blue' ? true : undefined))
})

t.test('two instances share a drift watch; removing one keeps the other protected', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  v: base\n',
  })
  await createInstance(client, ns, 'one', { templateRef: { name: 'tpl', namespace: ns } })
  await createInstance(client, ns, 'two', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'one', 'Synced', 'True')
  await waitForCondition(client, ns, 'two', 'Synced', 'True')
  const owners = op.manager.drift.ownersOf('v1/ConfigMap')
  t.ok(owners.includes(`${ns}/one`) && owners.includes(`${ns}/two`), 'one watch, both owners')
  await deleteInstance(client, ns, 'one')
  t.notOk(op.manager.drift.ownersOf('v1/ConfigMap').includes(`${ns}/one`), 'released by the deleted instance')
  t.ok(op.manager.drift.get('v1/ConfigMap'), 'watch still running for the other')
  await editCm(ns, 'two', { v: 'changed' })
  await eventually('two still reverted', async () => ((await dataOf(ns, 'two'))?.v === 'base' ? true : undefined))
})

t.test('switching a Template to off releases its drift watches', async (t) => {
  const ns = await revertSetup(t)
  t.ok(op.manager.drift.ownersOf('v1/ConfigMap').includes(`${ns}/app`))
  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'off' } })
  await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')
  t.notOk(op.manager.drift.ownersOf('v1/ConfigMap').includes(`${ns}/app`), 'released')
  await editCm(ns, 'app', { color: 'kept' })
  await new Promise((r) => setTimeout(r, 2000))
  t.equal((await dataOf(ns, 'app'))?.color, 'kept', 'no revert under off')
})

t.test('drift after a kube-apiserver restart is still corrected', async (t) => {
  const ns = await revertSetup(t)
  await restartApiServer()
  await editCm(ns, 'app', { color: 'after-restart' })
  await eventually(
    'reverted after API server restart',
    async () => ((await dataOf(ns, 'app'))?.color === 'blue' ? true : undefined),
    60_000,
  )
  t.pass('corrected')
})

t.test('edits through an update (kubectl edit) and an apply by another manager are both reverted', async (t) => {
  const ns = await revertSetup(t)
  const cm = await getCm(ns, 'app')
  if (!cm) throw new Error('no object')
  const { managedFields: _mf, ...meta } = cm.metadata
  await client.request('PUT', cmPath(ns, 'app'), {
    body: { ...cm, metadata: meta, data: { ...(cm.data as Record<string, string>), size: '99' } },
    query: { fieldManager: 'kubectl-edit' },
  })
  await eventually('update reverted', async () => ((await dataOf(ns, 'app'))?.size === '3' ? true : undefined))
  await client.request('PATCH', cmPath(ns, 'app'), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: ns }, data: { color: 'applied-by-kubectl' } },
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'kubectl', force: true },
  })
  await eventually('apply reverted', async () => ((await dataOf(ns, 'app'))?.color === 'blue' ? true : undefined))
  t.pass('both reverted')
})

t.test('ignored fields keep their live value when another field is corrected', async (t) => {
  const ns = await revertSetup(t, 'revert', ['data.size'])
  await editCm(ns, 'app', { size: '7' }, 'autoscaler')
  await new Promise((r) => setTimeout(r, 1500))
  t.equal((await dataOf(ns, 'app'))?.size, '7', 'ignored change stays')
  await editCm(ns, 'app', { color: 'red' })
  await eventually('color reverted', async () => ((await dataOf(ns, 'app'))?.color === 'blue' ? true : undefined))
  t.equal((await dataOf(ns, 'app'))?.size, '7', 'ignored field not reset by the correction')
})

t.test('a watch that cannot run shows on the Synced condition', async (t) => {
  const ns = await freshNamespace(t, client)
  // A kind the API does not serve: the drift watch cannot start.
  const owner = `${ns}/ghost`
  op.manager.drift.setOwnerKeys(owner, ['example.invalid/v1/Ghost'])
  t.teardown(() => op.manager.drift.release(owner))
  await eventually('watch failure recorded', async () => (op.manager.drift.state('example.invalid/v1/Ghost').error ? true : undefined))
  t.match(op.manager.drift.state('example.invalid/v1/Ghost').error, /Ghost/, 'the error names the kind')
  t.equal(op.manager.drift.state('example.invalid/v1/Ghost').synced, false)
})
