// No fail-open by exhaustion (docs/webhook-limits.md, docs/fail-open-entries.md),
// on the real API server: while other peers flood the webhook with idle
// keep-alive TLS connections (twice its connection cap, each after a 404) and
// slow senders (half-sent headers, large and small bodies at one byte a
// second), team-a's namespace admin tries to evict a strict Pod and to scale
// a strict Deployment, and both are denied by the webhook itself, not let
// through by a failure policy; reviews meanwhile are answered within a
// second. The webhook runs in this process with the chart's memory limit
// (which sizes its connection cap and body budget) behind the chart's own
// webhook configuration; the flood runs in a process of its own, from
// loopback addresses other than the API server's 127.0.0.1.
//
// The chart's tenant roles, which the tenancy fixture installs, are removed at
// the end: they carry no Helm ownership, and a later `helm install` of the
// chart (chart.test.ts) would refuse to adopt them.
//
// The API server's connections to the webhook are opened during the flood:
// until then it has called the webhook only through another configuration
// (another CA bundle, so another connection pool), to know that it has
// loaded the chart's.

import t from 'tap'
import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { mintCA } from '../../src/certs/mint.ts'
import { applyManifest, renderWebhookConfiguration } from '../../src/cli/local-system.ts'
import { KubeClient, CONTENT_MERGE } from '../../src/kube/client.ts'
import { RestMapper } from '../../src/kube/discovery.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { policyFor } from '../../src/webhook/connection-policy.ts'
import { parseMemoryQuantity, sizeFor } from '../../src/webhook/sizing.ts'
import { DEFAULT_BODY_LIMIT } from '../../src/webhook/app.ts'
import { loopbackPeers, startFloodProcess, type FloodOptions } from '../fixtures/webhook-flood.ts'
import { adminClient, clusterInfo, eventually, mountedServingCert } from './helpers/cluster.ts'
import { installCrds } from './helpers/operator.ts'
import { decisionCount, ownerIn, ownershipMeta, startTestWebhook } from './helpers/strict.ts'
import { refused, tenancy } from './helpers/tenancy.ts'
import { installValidatingWebhook, waitUntilCalled } from './helpers/webhook.ts'

const admin = adminClient()
t.teardown(() => admin.close())
await installCrds(admin)

// ---- the webhook, in process, with the chart's memory limit ------------------------------

const values = load(readFileSync(new URL('../../charts/template-sync/values.yaml', import.meta.url), 'utf8')) as {
  webhook: { resources: { limits: { memory: string } } }
}
const memoryLimitBytes = parseMemoryQuantity(values.webhook.resources.limits.memory)
if (memoryLimitBytes === undefined) throw new Error('values.yaml: webhook.resources.limits.memory is not a quantity')
const sizing = sizeFor(memoryLimitBytes, DEFAULT_BODY_LIMIT)
const cap = sizing.maxConnections

const operator = `system:serviceaccount:template-sync:flood${process.pid}-reconciler`
const pair = mountedServingCert(['127.0.0.1'])
const certDir = pair.certDir
const webhookClient = KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync-webhook-test')
const server = await startTestWebhook({ client: webhookClient, operatorUsernames: [operator], certDir, memoryLimitBytes })
t.teardown(async () => {
  await server.shutdown()
  webhookClient.close()
})

// ---- strict objects of team-a, rendered before any webhook configuration exists ----------

const who = await tenancy(t, admin)
const ns = who.teamA.namespace
const owner = await ownerIn(admin, server.caches, ns)
const podPath = (name = ''): string => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`
const deployPath = (name = ''): string => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`
const cmPath = (name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`

await admin.request('POST', podPath(), {
  body: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...ownershipMeta(owner) },
    spec: { containers: [{ name: 'c', image: 'example.invalid/c:1' }] },
  },
})
// The test control plane runs no deployment controller and no scheduler: nothing writes these
// objects (and so calls the webhook) before the flood.
const created = await admin.request<{ metadata: { uid: string } }>('POST', deployPath(), {
  body: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', ...ownershipMeta(owner) },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'example.invalid/c:1' }] } },
    },
  },
})
await admin.request('POST', cmPath(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', ...ownershipMeta(owner) } } })
await eventually('the Pod in the webhook Pod cache', async () => (server.caches.pods?.get(ns, 'p') ? true : undefined))
await eventually('the Deployment in the scale-target cache', async () =>
  server.caches.scaleTargets.get('apps/deployments')?.get(ns, 'web')?.metadata?.uid === created.metadata.uid ? true : undefined,
)

// ---- the chart's webhook configuration, known to be loaded ----------------------------------

const vwcName = `flood-${process.pid}`
const mapper = new RestMapper(admin)
const [vwc] = await renderWebhookConfiguration(`${server.url}/validate`, pair.ca, { extraOperatorUsernames: [operator] })
if (vwc === undefined) throw new Error('the chart rendered no ValidatingWebhookConfiguration')
await applyManifest(admin, mapper, { ...vwc, metadata: { ...vwc.metadata, name: vwcName } })
const deleteVwc = async (name: string): Promise<void> => {
  try {
    await admin.request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`)
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 404)) throw e
  }
}
t.teardown(() => deleteVwc(vwcName))
// The probe goes out through a configuration created after the chart's (the API server loads them in
// order) with another CA bundle: its connections are not the ones the chart's entries use.
const probe = `flood-probe-${process.pid}`
const removeProbe = await installValidatingWebhook(admin, {
  name: probe,
  url: `${server.url}/validate`,
  caPem: `${pair.ca}\n${mintCA({ validityDays: 1 }).certPem}`,
  rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE'], scope: 'Namespaced' }],
  objectSelector: { matchLabels: { 'flood-probe': probe } },
})
await admin.request('POST', cmPath(), {
  body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', labels: { 'flood-probe': probe } } },
})
const before = await decisionCount(server)
await waitUntilCalled(
  () =>
    admin.request('PATCH', cmPath('probe'), {
      body: { data: { a: String(Math.random()) } },
      contentType: CONTENT_MERGE,
      query: { dryRun: 'All' },
    }),
  async () => (await decisionCount(server)) > before,
)
await removeProbe()

// ---- the flood ----------------------------------------------------------------------------

t.test(
  'under a flood of idle connections and slow senders, evictions and scales of strict objects are denied by the webhook',
  async (t) => {
    const policy = policyFor(cap)
    const peers = loopbackPeers(12)
    // Each kind from addresses of its own: from the idle flood's, its share of the cap would keep the others out.
    const flood = (from: string[], kind: Pick<FloodOptions, 'idle' | 'halfHeaders' | 'slowBodies'>) =>
      startFloodProcess({ port: server.port, ca: pair.ca, peers: from, ...kind })
    const floods = [
      await flood(peers.slice(0, 8), { idle: 2 * cap, halfHeaders: 0, slowBodies: [] }),
      await flood(peers.slice(8, 10), { idle: 0, halfHeaders: 200, slowBodies: [] }),
      // Small bodies that would take the whole body budget twice over, and eight of 20 MiB.
      await flood(peers.slice(10), {
        idle: 0,
        halfHeaders: 0,
        slowBodies: [
          { count: 40, bytes: Math.floor(sizing.budgetBytes / 20) },
          { count: 8, bytes: 20 * 1024 * 1024 },
        ],
      }),
    ]
    let stopped = false
    const stop = async (): Promise<void> => {
      if (stopped) return
      stopped = true
      for (const f of floods) t.comment(`flood: ${JSON.stringify(await f.stop())}`)
    }
    t.teardown(stop)
    // Let it reach the cap.
    await new Promise((r) => setTimeout(r, 1_500))
    const held = (await Promise.all(floods.map((f) => f.held()))).reduce((a, b) => a + b, 0)
    const open = await new Promise<number>((resolve, reject) =>
      server.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    )
    t.ok(held >= policy.reclaimAbove - 10, `the flood holds ${held} connections; the webhook has ${open} open, cap ${cap}`)

    const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> => {
      const started = performance.now()
      const value = await fn()
      return { value, ms: performance.now() - started }
    }
    const evict = await timed(() =>
      refused('team-a evicting the strict Pod', () =>
        who.teamA.client.request('POST', `${podPath('p')}/eviction`, {
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: ns } },
        }),
      ),
    )
    t.equal(evict.value.code, 403)
    t.match(
      evict.value.apiMessage,
      /admission webhook "pods\.templates\.v2\.stakater\.com" denied the request: .*pods\/eviction/,
      `the eviction is denied by the webhook, in ${Math.round(evict.ms)} ms`,
    )
    const scale = await timed(() =>
      refused('team-a scaling the strict Deployment', () =>
        who.teamA.client.request('PATCH', `${deployPath('web')}/scale`, { body: { spec: { replicas: 3 } }, contentType: CONTENT_MERGE }),
      ),
    )
    t.equal(scale.value.code, 403)
    t.match(
      scale.value.apiMessage,
      /admission webhook "scale\.templates\.v2\.stakater\.com" denied the request: .*spec\.replicas/,
      `the scale is denied by the webhook, in ${Math.round(scale.ms)} ms`,
    )

    // Reviews meanwhile, some in bursts, so that the API server opens more connections during the flood.
    const latencies: number[] = []
    for (let round = 0; round < 8; round++) {
      const burst = round % 2 === 0 ? 4 : 1
      const answers = await Promise.all(
        Array.from({ length: burst }, () =>
          timed(() =>
            refused('team-a editing the strict ConfigMap', () =>
              who.teamA.client.request('PATCH', cmPath('cfg'), {
                body: { data: { a: String(Math.random()) } },
                contentType: CONTENT_MERGE,
                query: { dryRun: 'All' },
              }),
            ),
          ),
        ),
      )
      for (const a of answers) {
        latencies.push(a.ms)
        t.match(a.value.apiMessage, /admission webhook "strict\.templates\.v2\.stakater\.com" denied the request/, 'judged by the webhook')
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    // The flood shares this machine's two cores with the API server and the webhook (an attacker's pods
    // would run on other nodes): the typical review within a second, and none near the 5 s timeout at
    // which the API server would give up on it.
    const all = [evict.ms, scale.ms, ...latencies].sort((a, b) => a - b)
    const median = all[Math.floor(all.length / 2)] ?? 0
    const worst = all[all.length - 1] ?? 0
    t.ok(median < 1_000, `the median review within a second: ${Math.round(median)} ms of ${all.length}`)
    t.ok(worst < 4_000, `every review well within the webhook's 5 s timeout: worst ${Math.round(worst)} ms`)
    await stop()

    t.ok(await admin.getOrUndefined(podPath('p')), 'the Pod is still there')
    const d = await admin.get<{ spec: { replicas: number } }>(deployPath('web'))
    t.equal(d.spec.replicas, 1, 'the Deployment is not scaled')
    const refusals = (await server.metrics.registry.render())
      .split('\n')
      .filter((l) => /rejected_requests_total\{code="(0|408|503)"/.test(l))
    t.ok(
      refusals.some((l) => /cause="(TooSlow|Busy)"\} [1-9]/.test(l)),
      'the slow bodies filled the body budget: some were cut or refused for room',
    )
    t.comment(
      `the webhook refused or closed: ${refusals.map((l) => l.replace('template_sync_webhook_rejected_requests_total', '')).join(', ')}`,
    )
  },
)
