// One slow Template must not stop drift correction for everyone
// (docs/render-time-limit.md). A Go template that loops within the engine's
// size limits but for far longer than the render time limit is present when
// the reconciler starts, as a new leader finds it: the reconciler's thread
// (which renews the Lease and serves drift events) stays responsive, a Lease
// held with the production timing in this same process is never lost, team-a's
// edits of a revert object elsewhere are put back within a second, and the
// slow Template and its instance say that the render ran past the limit.
// Consumer actions run as team-a's namespace admin.

import { monitorEventLoopDelay } from 'node:perf_hooks'
import t from 'tap'
import { LeaderElector } from '../../src/kube/lease.ts'
import { CONTENT_JSON_PATCH } from '../../src/kube/client.ts'
import { DEFAULT_RENDER_TIMEOUT_MS, formatLimit } from '../../src/render/time-limit.ts'
import { adminClient, eventually, freshNamespace } from './helpers/cluster.ts'
import { condition, installCrds, waitForCondition, waitForTemplateCondition } from './helpers/operator.ts'
import { startSystem } from './helpers/system.ts'
import { instantiate, publish, tenancy } from './helpers/tenancy.ts'

const admin = adminClient()
await installCrds(admin)
t.teardown(() => admin.close())

/** Within the engine's size limits, but minutes of work: 400,000 digests of 40 KB. */
const SLOW = '{{ range $i := until 400000 }}{{ $s := repeat 20000 "ab" | sha256sum }}{{ end }}\n'
const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`
type Cm = { data?: Record<string, string> }

t.test('a Template over the render time limit at start: the Lease holds, drift elsewhere is put back within a second', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'slow', { sync: { mode: 'revert' }, gotemplate: SLOW })
  await publish(who, 'settings', {
    sync: { mode: 'revert' },
    gotemplate:
      '{{ range $i := until 5 }}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{{ $i }}\ndata:\n  level: info\n{{ end }}',
  })
  await instantiate(who, 'slow', 'slow')

  // A Lease held with the production timing by this process, whose thread the reconciler shares.
  const leaseNs = await freshNamespace(t, admin, 'lease')
  const lost: number[] = []
  const elector = new LeaderElector({
    client: admin,
    namespace: leaseNs,
    name: 'template-sync',
    identity: 'slow-template-test',
    log: () => {},
    callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => void lost.push(Date.now()) },
  })
  const electing = elector.run()
  t.teardown(async () => {
    elector.stop()
    await electing
  })
  await eventually('the Lease held', async () => (elector.isLeader() ? true : undefined))

  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const system = await startSystem(admin)
  t.teardown(() => system.stop())

  await instantiate(who, 'settings', 'settings')
  await waitForCondition(admin, ns, 'settings', 'Applied', 'True', undefined, 30_000)

  // Team-a edits five revert objects, one after the other; each edit is put back within a second.
  const revertMs: number[] = []
  for (let i = 0; i < 5; i++) {
    await who.teamA.client.request('PATCH', cmPath(ns, `settings-${i}`), {
      body: [{ op: 'replace', path: '/data/level', value: `debug-${i}` }],
      contentType: CONTENT_JSON_PATCH,
    })
    const edited = Date.now()
    await eventually(
      `edit ${i} put back`,
      async () => ((await admin.get<Cm>(cmPath(ns, `settings-${i}`))).data?.level === 'info' ? true : undefined),
      10_000,
      20,
    )
    revertMs.push(Date.now() - edited)
    await new Promise((r) => setTimeout(r, 500))
  }
  t.ok(
    revertMs.every((ms) => ms < 1_000),
    `every edit put back within a second while the slow Template renders: ${revertMs.join(', ')} ms`,
  )

  const limit = `time limit of ${formatLimit(DEFAULT_RENDER_TIMEOUT_MS)}`
  const tpl = await waitForTemplateCondition(admin, who.platform.namespace, 'slow', 'Valid', 'False', 'RenderTimeout', 60_000)
  t.match(condition(tpl, 'Valid')?.message ?? '', limit, `Valid=False names the limit (${limit})`)
  const inst = await waitForCondition(admin, ns, 'slow', 'Rendered', 'False', 'RenderTimeout', 60_000)
  t.match(condition(inst, 'Rendered')?.message ?? '', limit, `the instance's Rendered=False names the limit (${limit})`)

  delay.disable()
  const worstMs = delay.max / 1e6
  t.ok(worstMs < 1_000, `the reconciler's thread was never held for a second (longest delay ${Math.round(worstMs)} ms)`)
  t.same(lost, [], 'the Lease was never lost')
  t.ok(elector.isLeader(), 'and is still held')
})
