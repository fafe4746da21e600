// A person's quick series of edits to a revert Deployment, on a control plane
// that runs the cluster's own components (the deployment controller rolls out
// every edit and writes the status as it goes): the backoff holds the person
// back while they keep editing, and once they stop, the rendered state is back
// within the quiet period and a second (docs/drift-fights.md). Production
// defaults throughout; every consumer action runs as team-a's namespace admin.

import t from 'tap'
import { DEFAULT_INSTANCE_OPTIONS } from '../../src/controller/instance.ts'
import { CONTENT_JSON_PATCH } from '../../src/kube/client.ts'
import { condition, waitForCondition } from './helpers/operator.ts'
import { systemForFile } from './helpers/system.ts'
import { instantiate, publish, tenancy } from './helpers/tenancy.ts'

const { admin, system } = await systemForFile()

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const RENDERED = 'registry.example/web:1'
const deployment = [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  '  name: web',
  'spec:',
  '  replicas: 1',
  '  selector: {matchLabels: {app: web}}',
  '  template:',
  '    metadata: {labels: {app: web}}',
  '    spec:',
  `      containers: [{name: web, image: "${RENDERED}"}]`,
  '',
].join('\n')
const deployPath = (ns: string): string => `/apis/apps/v1/namespaces/${ns}/deployments/web`
type Deployment = { spec: { template: { spec: { containers: { image: string }[] } } } }

const isWrite = (verb: string): boolean => verb !== 'GET' && verb !== 'WATCH' && !verb.endsWith('-DRYRUN')

t.test('a person editing 20 times, each 200 ms after the revert, then stopping: the last edit stands for the quiet period', async (t) => {
  const quietMs = DEFAULT_INSTANCE_OPTIONS.correctionQuietMs
  // The promise: back within the quiet period and one second more.
  const limitMs = quietMs + 1000
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  const person = who.teamA.client
  await publish(who, 'web', { sync: { mode: 'revert' }, gotemplate: deployment })
  await instantiate(who, 'web', 'web')
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive')

  let corrections = 0
  const stopCounting = system.reconciler.client.observe((verb, path) => {
    if (isWrite(verb) && path.startsWith(deployPath(ns))) corrections++
  })
  t.teardown(stopCounting)
  const imageOf = async (): Promise<string | undefined> =>
    (await person.get<Deployment>(deployPath(ns))).spec.template.spec.containers[0]?.image
  /** When the rendered image was back, or undefined at the deadline. */
  const restoredBy = async (deadline: number): Promise<number | undefined> => {
    while (Date.now() <= deadline) {
      if ((await imageOf()) === RENDERED) return Date.now()
      await sleep(20)
    }
    return undefined
  }

  const latencies: number[] = []
  let conflict: string | undefined
  for (let i = 1; i <= 20; i++) {
    await person.request('PATCH', deployPath(ns), {
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: `registry.example/web:edit-${i}` }],
      contentType: CONTENT_JSON_PATCH,
      query: { fieldManager: 'kubectl-edit' },
    })
    const edited = Date.now()
    // Room to measure a slow revert; the assertion below holds it to limitMs.
    const back = await restoredBy(edited + limitMs + 4000)
    if (back === undefined) {
      t.fail(`edit ${i} still live ${limitMs + 4000} ms after it was made`)
      break
    }
    latencies.push(back - edited)
    if (i === 10) {
      const inst = await waitForCondition(admin, ns, 'web', 'Synced', 'False', 'DriftConflict', 5000)
      conflict = condition(inst, 'Synced')?.message
    }
    await sleep(200)
  }
  t.comment(`revert latencies (ms): ${latencies.join(' ')}`)
  t.equal(latencies.length, 20, 'every edit was reverted')
  const last = latencies.at(-1) ?? Infinity
  t.ok(last <= limitMs, `the last edit was reverted ${last} ms after it was made (quiet period ${quietMs} ms, limit ${limitMs} ms)`)
  t.ok(
    latencies.every((ms) => ms <= limitMs),
    `every edit, the person waiting for its revert, was reverted within ${limitMs} ms (max ${Math.max(...latencies)} ms)`,
  )
  t.ok(
    latencies.slice(5).every((ms) => ms >= quietMs - 500),
    'from the sixth edit on, the backoff held each revert back until the person had been quiet for the quiet period',
  )
  t.equal(corrections, 20, 'one correction per edit')
  t.match(conflict, /field manager "kubectl-edit" keeps changing Deployment .*\/web; corrections continue with backoff/)
  t.equal(await imageOf(), RENDERED, 'the rendered image stands at the end')

  // Left alone, the correction holds: the fight is over after the window, as before.
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive', DEFAULT_INSTANCE_OPTIONS.conflictWindowMs + 10_000)
  const ours = system.reconciler.events.filter((e) => e.message.includes(`${ns}/web`))
  t.equal(ours.filter((e) => e.reason === 'Reverted').length, 20, 'one Reverted event per edit')
  t.ok(
    ours.some((e) => e.type === 'Warning' && e.reason === 'DriftConflict' && /"kubectl-edit"/.test(e.message)),
    'DriftConflict names the person',
  )
  t.ok(
    ours.some((e) => e.reason === 'DriftConflictResolved' && /"kubectl-edit" is over/.test(e.message)),
    'an Event says corrections are immediate again',
  )
})
