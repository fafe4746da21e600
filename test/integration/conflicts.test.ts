// Ownership conflicts as a tenant meets them (docs/ownership-conflicts.md):
// every fix the OwnershipConflict message offers works within seconds, for
// each kind of conflict (an object nobody rendered, an object left by an
// earlier instance of the same name, an object of another instance), and the
// end of a conflict is noticed whatever ended it. Every consumer action runs
// as team-a's namespace admin.

import t from 'tap'
import { LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { CONTENT_JSON_PATCH } from '../../src/kube/client.ts'
import { eventually } from './helpers/cluster.ts'
import { condition, getInstance, instancePath, waitForCondition } from './helpers/operator.ts'
import { systemForFile } from './helpers/system.ts'
import { deleteWithoutCleanup, instantiate, publish, refused, type Tenancy, tenancy } from './helpers/tenancy.ts'

const { admin, system } = await systemForFile()

/** How soon a fix must show: the issue's "within seconds". */
const FIX_MS = 5_000

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
type Cm = { metadata: { uid: string; labels?: Record<string, string> }; data?: Record<string, string> }

/** A Template rendering one ConfigMap of a fixed name (so that instances can collide on it). */
const configMapTemplate = (who: Tenancy, name: string, mode: 'revert' | 'strict', object: string, data: string): Promise<void> =>
  publish(who, name, {
    sync: { mode },
    gotemplate: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${object}\ndata:\n  from: ${data}\n`,
  })

const uidOf = async (ns: string, name: string): Promise<string> => (await getInstance(admin, ns, name))?.metadata?.uid ?? ''

/** The instance holds the object: its UID label names the instance, and the Template's data is there. */
async function heldBy(ns: string, instance: string, object: string, data: string, timeoutMs = FIX_MS): Promise<number> {
  const started = Date.now()
  const uid = await uidOf(ns, instance)
  let last: Cm | undefined
  await eventually(
    `${ns}/${object} held by ${instance} (${uid}) with from=${data}`,
    async () => {
      last = await admin.getOrUndefined<Cm>(cmPath(ns, object))
      return last?.metadata.labels?.[LABEL_INSTANCE_UID] === uid && last.data?.from === data ? true : undefined
    },
    timeoutMs,
    50,
  ).catch(async (e: unknown) => {
    const applied = condition(await getInstance(admin, ns, instance), 'Applied')
    throw new Error(
      `${(e as Error).message}; the object: ${JSON.stringify(last?.metadata.labels)} ${JSON.stringify(last?.data)}; Applied: ${JSON.stringify(applied)}`,
    )
  })
  await waitForCondition(admin, ns, instance, 'Applied', 'True', undefined, FIX_MS)
  return Date.now() - started
}

async function conflictMessage(ns: string, instance: string): Promise<string> {
  const i = await waitForCondition(admin, ns, instance, 'Applied', 'False', 'OwnershipConflict')
  return condition(i, 'Applied')?.message ?? ''
}

t.test('an object nobody rendered: annotating it or deleting it ends the conflict', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await configMapTemplate(who, 'settings', 'revert', 'mine', 'template')
  for (const fix of ['annotate', 'delete'] as const) {
    await who.teamA.client.request('POST', cmPath(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine' } } })
    await instantiate(who, `by-${fix}`, 'settings')
    const message = await conflictMessage(ns, `by-${fix}`)
    t.match(message, `ConfigMap ${ns}/mine exists and is not managed by this TemplateInstance`)
    t.match(message, `templates.v2.stakater.com/instance-ref=${ns}/by-${fix}`, 'the message names the annotation')
    if (fix === 'annotate') {
      await who.teamA.client.request('PATCH', cmPath(ns, 'mine'), {
        body: [{ op: 'add', path: '/metadata/annotations', value: { 'templates.v2.stakater.com/instance-ref': `${ns}/by-${fix}` } }],
        contentType: CONTENT_JSON_PATCH,
      })
    } else {
      await who.teamA.client.request('DELETE', cmPath(ns, 'mine'))
    }
    t.ok((await heldBy(ns, `by-${fix}`, 'mine', 'template')) < FIX_MS, `${fix}: the instance holds the object`)
    await who.teamA.client.request('DELETE', instancePath(ns, `by-${fix}`))
    await eventually('the instance and its object gone', async () =>
      (await admin.getOrUndefined(cmPath(ns, 'mine'))) === undefined ? true : undefined,
    )
  }
})

t.test('an earlier instance of the same name: the same Template takes its objects over, in strict too', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  for (const mode of ['revert', 'strict'] as const) {
    const object = `kept-${mode}`
    await configMapTemplate(who, `settings-${mode}`, mode, object, mode)
    await instantiate(who, mode, `settings-${mode}`)
    await heldBy(ns, mode, object, mode, 30_000)
    const earlier = await uidOf(ns, mode)
    await deleteWithoutCleanup(who.teamA.client, ns, mode)
    await eventually('the instance gone', async () => ((await getInstance(admin, ns, mode)) === undefined ? true : undefined))
    const kept = await admin.get<Cm>(cmPath(ns, object))
    t.equal(kept.metadata.labels?.[LABEL_INSTANCE_UID], earlier, `${mode}: the object stays, stamped with the earlier instance`)

    await instantiate(who, mode, `settings-${mode}`)
    const ms = await heldBy(ns, mode, object, mode)
    t.ok(ms < FIX_MS, `${mode}: the new instance holds it (${ms} ms)`)
    t.equal((await admin.get<Cm>(cmPath(ns, object))).metadata.uid, kept.metadata.uid, `${mode}: the same object, not a new one`)
    t.ok(
      system.reconciler.events.some(
        (e) =>
          e.reason === 'Adopted' &&
          e.message ===
            `took over ConfigMap ${ns}/${object} from an earlier TemplateInstance of this name (uid ${earlier}), rendered from the same Template`,
      ),
      `${mode}: an Event says it was taken over from the earlier instance`,
    )
  }
  // Strict stays strict under the new instance.
  await refused('editing the strict object taken over', () =>
    who.teamA.client.request('PATCH', cmPath(ns, 'kept-strict'), {
      body: [{ op: 'replace', path: '/data/from', value: 'edited' }],
      contentType: CONTENT_JSON_PATCH,
    }),
  )
})

t.test('an earlier instance of the same name rendered from another Template: the message offers the hand-over, and it works', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await configMapTemplate(who, 'old', 'revert', 'moved', 'old')
  await configMapTemplate(who, 'new', 'revert', 'moved', 'new')
  for (const fix of ['hand-over', 'delete'] as const) {
    await instantiate(who, 'app', 'old')
    await heldBy(ns, 'app', 'moved', 'old', 30_000)
    const earlier = await uidOf(ns, 'app')
    await deleteWithoutCleanup(who.teamA.client, ns, 'app')
    await eventually('the instance gone', async () => ((await getInstance(admin, ns, 'app')) === undefined ? true : undefined))
    await instantiate(who, 'app', 'new')
    const message = await conflictMessage(ns, 'app')
    t.match(
      message,
      `ConfigMap ${ns}/moved was rendered from Template ${who.platform.namespace}/old for an earlier TemplateInstance ${ns}/app (uid ${earlier})`,
    )
    t.match(message, `${LABEL_INSTANCE_UID}-`, 'the message says how to hand it over')
    t.notMatch(message, 'annotate it with', 'and does not offer the annotation, which is already there')
    if (fix === 'hand-over') {
      await who.teamA.client.request('PATCH', cmPath(ns, 'moved'), {
        body: [{ op: 'remove', path: `/metadata/labels/${LABEL_INSTANCE_UID.replace('/', '~1')}` }],
        contentType: CONTENT_JSON_PATCH,
      })
    } else {
      await who.teamA.client.request('DELETE', cmPath(ns, 'moved'))
    }
    const ms = await heldBy(ns, 'app', 'moved', 'new')
    t.ok(ms < FIX_MS, `${fix}: the instance holds the object (${ms} ms)`)
    await who.teamA.client.request('DELETE', instancePath(ns, 'app'))
    // The object goes before the finalizer does: wait for both, or the next round's create meets the old instance.
    await eventually('the instance and its object gone', async () =>
      (await admin.getOrUndefined(cmPath(ns, 'moved'))) === undefined && (await getInstance(admin, ns, 'app')) === undefined
        ? true
        : undefined,
    )
  }
})

t.test('an object of another instance: the conflict ends when that instance lets it go', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await configMapTemplate(who, 'shared', 'revert', 'shared', 'shared')
  await instantiate(who, 'first', 'shared')
  await heldBy(ns, 'first', 'shared', 'shared', 30_000)
  const first = await uidOf(ns, 'first')
  await instantiate(who, 'second', 'shared')
  const message = await conflictMessage(ns, 'second')
  t.match(message, `ConfigMap ${ns}/shared is managed by TemplateInstance ${ns}/first (uid ${first})`)
  t.notMatch(message, 'annotate it with', 'annotating cannot hand over an object another instance holds')
  await who.teamA.client.request('DELETE', instancePath(ns, 'first'))
  const ms = await heldBy(ns, 'second', 'shared', 'shared', FIX_MS * 2)
  t.ok(ms < FIX_MS * 2, `the second instance holds it once the first and its object are gone (${ms} ms)`)
  const applied = condition(await getInstance(admin, ns, 'second'), 'Applied')
  t.equal(applied?.status, 'True')
})
