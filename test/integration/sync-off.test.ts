// Sync mode `off`: applied until the first clean pass, then frozen against
// every input change; manual edits survive; a manually deleted object is
// released (not stuck in Terminating) and not recreated; flipping the mode to
// revert applies the current render at once; flipping back freezes again.

import t from 'tap'
import { adminClient, freshNamespace, eventually } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  getInstance,
  instancePath,
  condition,
  type RunningManager,
} from './helpers/operator.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import { LABEL_SYNC_MODE } from '../../src/api/names.ts'
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
const body = (v: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  v: ${v}\n  p: {{ .parameters.p | quote }}\n  s: {{ .parameters.s | quote }}\n`

t.test('off: frozen after the first clean pass, resumed by a mode flip, frozen again by flipping back', async (t) => {
  const ns = await freshNamespace(t, client)
  await client.request('POST', cmPath(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' }, data: { s: 's1' } } })
  await createTemplate(client, ns, 'tpl', { parameters: [{ name: 'p', value: 'p1' }, { name: 's' }], gotemplate: body('one') })
  await createInstance(client, ns, 'app', {
    templateRef: { name: 'tpl', namespace: ns },
    parameters: [{ name: 's', valueFrom: { configMapKeyRef: { name: 'src', key: 's' } } }],
  })
  const frozen = await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')
  t.ok(frozen.status?.firstAppliedAt, 'firstAppliedAt recorded')
  t.equal(frozen.status?.phase, 'Ready')
  t.same(await dataOf(ns, 'app'), { v: 'one', p: 'p1', s: 's1' })
  t.equal((await getCm(ns, 'app'))?.metadata.labels?.[LABEL_SYNC_MODE], 'off')

  // No input change re-applies anything.
  await patchTemplateSpec(client, ns, 'tpl', { gotemplate: body('two') })
  await client.request('PATCH', instancePath(ns, 'app'), {
    body: {
      spec: {
        parameters: [
          { name: 'p', value: 'p2' },
          { name: 's', valueFrom: { configMapKeyRef: { name: 'src', key: 's' } } },
        ],
      },
    },
    contentType: CONTENT_MERGE,
  })
  await client.request('PATCH', cmPath(ns, 'src'), { body: { data: { s: 's2' } }, contentType: CONTENT_MERGE })
  await client.request('PATCH', cmPath(ns, 'app'), { body: { data: { manual: 'edit' } }, contentType: CONTENT_MERGE })
  await new Promise((r) => setTimeout(r, 3000))
  t.same(await dataOf(ns, 'app'), { v: 'one', p: 'p1', s: 's1', manual: 'edit' }, 'nothing re-applied; the manual edit survives')
  t.equal((await getInstance(client, ns, 'app'))?.status?.firstAppliedAt, frozen.status?.firstAppliedAt, 'still the same freeze')

  // Flip to revert: the accumulated changes land at once.
  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'revert' } })
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  await eventually('current render applied', async () => {
    const d = await dataOf(ns, 'app')
    return d?.v === 'two' && d.p === 'p2' && d.s === 's2' ? true : undefined
  })
  t.equal((await getCm(ns, 'app'))?.metadata.labels?.[LABEL_SYNC_MODE], 'revert')

  // Flip back: frozen again immediately, only the mode label follows.
  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'off' } })
  await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')
  await eventually('mode label updated', async () =>
    (await getCm(ns, 'app'))?.metadata.labels?.[LABEL_SYNC_MODE] === 'off' ? true : undefined,
  )
  await eventually('finalizer released once frozen', async () =>
    ((await getCm(ns, 'app'))?.metadata.finalizers ?? []).length === 0 ? true : undefined,
  )
})

t.test('off: a manually deleted object is released, not recreated, and reported missing', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    parameters: [
      { name: 'p', value: 'x' },
      { name: 's', value: 'y' },
    ],
    gotemplate: body('one'),
  })
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')
  t.notOk((await getCm(ns, 'app'))?.metadata.finalizers?.length, 'no finalizer holds a frozen object')
  await client.request('DELETE', cmPath(ns, 'app'))
  await eventually(
    'object really gone (not stuck in Terminating)',
    async () => ((await getCm(ns, 'app')) === undefined ? true : undefined),
    10_000,
  )
  // The status learns about it at the next look at the instance; any change to it will do.
  await client.request('PATCH', instancePath(ns, 'app'), { body: { metadata: { annotations: { poke: '1' } } }, contentType: CONTENT_MERGE })
  await new Promise((r) => setTimeout(r, 2000))
  t.equal(await getCm(ns, 'app'), undefined, 'not recreated under off')
  const inst = await eventually('missing reported', async () => {
    const i = await getInstance(client, ns, 'app')
    return /missing/.test(condition(i, 'Synced')?.message ?? '') ? i : undefined
  })
  t.match(condition(inst, 'Synced')?.message, /ConfigMap .*\/app/)
})
