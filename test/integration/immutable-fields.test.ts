// A new render that changes an immutable field (a Job's spec.template) on the
// real API server: the dry-run gate recognises the rejection as such
// (Applied=False/ImmutableFieldChanged, naming the field), applies nothing of
// the render, and does not delete the object; deleting it by hand lets the
// reconciler create it from the new render (docs/immutable-fields.md).

import t from 'tap'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { adminClient, eventually, freshNamespace } from './helpers/cluster.ts'
import {
  condition,
  createInstance,
  createTemplate,
  installCrds,
  patchTemplateSpec,
  type RunningManager,
  startManager,
  waitForCondition,
} from './helpers/operator.ts'

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

const jobPath = (ns: string, name: string): string => `/apis/batch/v1/namespaces/${ns}/jobs/${name}`
const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`

/** A suspended Job (no Pods are made) and a ConfigMap, both rendered from one image tag. */
const body = (tag: string): string =>
  [
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata: { name: migrate }',
    'spec:',
    '  suspend: true',
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    `      containers: [{ name: migrate, image: "registry.example.com/migrate:${tag}", command: ["true"] }]`,
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata: { name: migrate-version }',
    `data: { tag: "${tag}" }`,
  ].join('\n')

const imageOf = (job: IdentifiedObject | undefined): unknown =>
  (job?.spec as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined)?.template?.spec?.containers?.[0]?.image

t.test(
  'a render that changes a Job template is reported as ImmutableFieldChanged; after a manual delete the Job is created anew',
  async (t) => {
    const ns = await freshNamespace(t, client)
    await createTemplate(client, ns, 'tpl', { sync: { mode: 'revert' }, gotemplate: body('1') })
    await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
    await waitForCondition(client, ns, 'app', 'Ready', 'True')
    const before = await client.get<IdentifiedObject>(jobPath(ns, 'migrate'))
    t.equal(imageOf(before), 'registry.example.com/migrate:1')

    await patchTemplateSpec(client, ns, 'tpl', { gotemplate: body('2') })
    const rejected = await waitForCondition(client, ns, 'app', 'Applied', 'False', 'ImmutableFieldChanged')
    const message = condition(rejected, 'Applied')?.message ?? ''
    t.comment(message)
    t.match(
      message,
      new RegExp(`changes spec\\.template[.a-z]* of Job ${ns}/migrate, which the API server does not allow to change; nothing was applied`),
    )
    t.match(message, new RegExp(`Delete Job ${ns}/migrate to have it created from the new render`))
    t.equal(condition(rejected, 'Ready')?.reason, 'ImmutableFieldChanged', 'Ready carries the reason')
    const warning = op.events.find((e) => e.type === 'Warning' && e.reason === 'ImmutableFieldChanged')
    t.match(
      warning?.message,
      new RegExp(`spec\\.template[.a-z]* of Job ${ns}/migrate.*\\(spec\\.template[.a-z]*: field is immutable\\)`),
      'a Warning Event names the field',
    )
    for (const text of [message, warning?.message ?? '']) {
      t.notOk(text.includes('migrate:2'), 'the value the API server quotes is not repeated')
    }
    const kept = await client.get<IdentifiedObject>(jobPath(ns, 'migrate'))
    t.equal(kept.metadata.uid, before.metadata.uid, 'the Job is not deleted or recreated')
    t.equal(imageOf(kept), 'registry.example.com/migrate:1', 'the Job is unchanged')
    t.same((await client.get<IdentifiedObject>(cmPath(ns, 'migrate-version'))).data, { tag: '1' }, 'nothing of the render was applied')

    // The documented way out: delete the Job; the reconciler creates it from the new render.
    await client.request('DELETE', jobPath(ns, 'migrate'), {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
    })
    const recreated = await eventually(
      'the Job created from the new render',
      async () => {
        const job = await client.getOrUndefined<IdentifiedObject>(jobPath(ns, 'migrate'))
        return job && job.metadata.uid !== before.metadata.uid && !job.metadata.deletionTimestamp ? job : undefined
      },
      30_000,
    )
    t.equal(imageOf(recreated), 'registry.example.com/migrate:2')
    await waitForCondition(client, ns, 'app', 'Applied', 'True')
    t.same((await client.get<IdentifiedObject>(cmPath(ns, 'migrate-version'))).data, { tag: '2' }, 'the rest of the render follows')
  },
)
