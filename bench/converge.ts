// 100 TemplateInstances x 5 ConfigMaps (sync mode revert) against a local
// control plane and the real reconciler process: time until every instance is
// Ready, API requests per instance, writes during the next 60 s at rest, and
// reconciler RSS. Baseline, in the same run: applying the same 500 objects
// directly with one server-side apply each (the least work any tool could do).

import { startOperator, sleep, metrics, writesOf, total, rssMiB } from './lib/operator.ts'
import { CONTENT_APPLY } from '../src/kube/client.ts'
import { API_VERSION, GROUP, VERSION } from '../src/api/names.ts'

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100)
const PER = 5
const REST_MS = Number(process.env.BENCH_REST_MS ?? 60_000)
const log = (m: string): void => console.log(`[converge] ${m}`)

const op = await startOperator(log)
const { client } = op
try {
  for (const ns of ['bench-tpl', 'bench-a', 'bench-base'])
    await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })
  const docs = Array.from(
    { length: PER },
    (_, i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}-${i}\ndata:\n  index: "${i}"\n  owner: {{ .parameters.owner | quote }}\n  payload: {{ repeat 40 "x" | quote }}`,
  )
  await client.request('POST', `/apis/${GROUP}/${VERSION}/namespaces/bench-tpl/templates`, {
    body: {
      apiVersion: API_VERSION,
      kind: 'Template',
      metadata: { name: 'five' },
      spec: {
        sync: { mode: 'revert' },
        parameters: [{ name: 'owner', value: 'bench' }],
        targetNamespaces: { explicit: { allow: { literal: ['*'] } } },
        gotemplate: docs.join('\n---\n'),
      },
    },
  })

  // Baseline: the same 500 objects, one apply each, 4 at a time.
  const tb = Date.now()
  const baseline = Array.from({ length: INSTANCES * PER }, (_, k) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `b${Math.floor(k / PER)}-${k % PER}`, namespace: 'bench-base' },
    data: { index: String(k % PER), owner: 'bench', payload: 'x'.repeat(40) },
  }))
  const queue = [...baseline]
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let o = queue.shift(); o; o = queue.shift())
        await client.request('PATCH', `/api/v1/namespaces/bench-base/configmaps/${o.metadata.name}`, {
          body: o,
          contentType: CONTENT_APPLY,
          query: { fieldManager: 'bench-baseline', force: true },
        })
    }),
  )
  const baselineMs = Date.now() - tb
  log(`baseline: ${INSTANCES * PER} direct applies in ${baselineMs} ms`)

  const m0 = await metrics(op.metricsUrl)
  const t0 = Date.now()
  for (let i = 0; i < INSTANCES; i++) {
    await client.request('POST', `/apis/${GROUP}/${VERSION}/namespaces/bench-a/templateinstances`, {
      body: {
        apiVersion: API_VERSION,
        kind: 'TemplateInstance',
        metadata: { name: `i${i}` },
        spec: { templateRef: { name: 'five', namespace: 'bench-tpl' } },
      },
    })
  }
  let ready = 0
  for (;;) {
    const list = await client.get<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
      `/apis/${GROUP}/${VERSION}/namespaces/bench-a/templateinstances`,
    )
    ready = list.items.filter(
      (i) =>
        i.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        i.status?.conditions?.some((c) => c.type === 'Synced' && c.status === 'True'),
    ).length
    if (ready === INSTANCES) break
    if (Date.now() - t0 > 600_000) throw new Error(`only ${ready}/${INSTANCES} Ready after 600 s`)
    await sleep(250)
  }
  const convergeMs = Date.now() - t0
  const m1 = await metrics(op.metricsUrl)
  log(`converged: ${INSTANCES} instances (${INSTANCES * PER} objects) Ready+Synced in ${convergeMs} ms`)
  await sleep(3000)
  const m2 = await metrics(op.metricsUrl)
  await sleep(REST_MS)
  const m3 = await metrics(op.metricsUrl)
  const restWrites = writesOf(m3) - writesOf(m2)
  const requests = total(m1) - total(m0)
  const verbs: Record<string, number> = {}
  for (const [v, n] of m1) verbs[v] = n - (m0.get(v) ?? 0)
  const mem = rssMiB(op.reconciler.pid)
  log(`requests while converging: ${requests} (${(requests / INSTANCES).toFixed(1)} per instance) ${JSON.stringify(verbs)}`)
  log(`writes in ${REST_MS / 1000} s at rest: ${restWrites}; reconciler RSS ${mem.rss} MiB (peak ${mem.peak} MiB)`)
  console.log(
    JSON.stringify({
      bench: 'converge',
      instances: INSTANCES,
      objects: INSTANCES * PER,
      converge_ms: convergeMs,
      baseline_ms: baselineMs,
      ratio: Number((convergeMs / baselineMs).toFixed(2)),
      requests_per_instance: Number((requests / INSTANCES).toFixed(1)),
      rest_writes: restWrites,
      rest_s: REST_MS / 1000,
      rss_mib: mem.rss,
      peak_rss_mib: mem.peak,
    }),
  )
} finally {
  await op.stop()
}
