// Drift-to-revert latency under load: 500 ConfigMaps across 100 revert-mode
// TemplateInstances, 20 random edits per second for 60 s from a separate
// client. For each edit: the time from the edit's response to the corrected
// object appearing in a watch. Baseline, side by side on the same edits: the
// time from the edit's response to the edit itself appearing in that watch
// (the API server's own propagation delay). Also writes per correction and
// reconciler RSS.

import { startOperator, sleep, metrics, writesOf, eventWritesOf, rssMiB, percentile } from './lib/operator.ts'
import { KubeClient, CONTENT_MERGE } from '../src/kube/client.ts'
import { API_VERSION, GROUP, VERSION, LABEL_INSTANCE_UID } from '../src/api/names.ts'

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 100)
const PER = 5
const RATE = Number(process.env.BENCH_RATE ?? 20)
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 60_000)
const NS = 'bench-drift'
const log = (m: string): void => console.log(`[drift-latency] ${m}`)

interface Edit {
  name: string
  value: string
  original: string
  rv: number
  at: number
  seenAt?: number
  revertedAt?: number
}

const op = await startOperator(log)
const { client } = op
try {
  await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })
  const docs = Array.from(
    { length: PER },
    (_, i) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}-${i}\ndata:\n  index: "${i}"\n  payload: {{ repeat 40 "x" | quote }}`,
  )
  await client.request('POST', `/apis/${GROUP}/${VERSION}/namespaces/${NS}/templates`, {
    body: {
      apiVersion: API_VERSION,
      kind: 'Template',
      metadata: { name: 'five' },
      spec: { sync: { mode: 'revert' }, gotemplate: docs.join('\n---\n') },
    },
  })
  for (let i = 0; i < INSTANCES; i++) {
    await client.request('POST', `/apis/${GROUP}/${VERSION}/namespaces/${NS}/templateinstances`, {
      body: {
        apiVersion: API_VERSION,
        kind: 'TemplateInstance',
        metadata: { name: `i${i}` },
        spec: { templateRef: { name: 'five', namespace: NS } },
      },
    })
  }
  for (;;) {
    const list = await client.get<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
      `/apis/${GROUP}/${VERSION}/namespaces/${NS}/templateinstances`,
    )
    if (list.items.filter((i) => i.status?.conditions?.some((c) => c.type === 'Synced' && c.status === 'True')).length === INSTANCES) break
    await sleep(500)
  }
  log(`${INSTANCES * PER} objects under revert; starting ${RATE} edits/s for ${DURATION_MS / 1000} s`)
  await sleep(2000)

  // The observer: its own client and connection, watching every managed ConfigMap.
  const watcher = KubeClient.fromFile(op.cp.kubeconfigPath, 'bench-observer')
  const pending = new Map<string, Edit[]>()
  const ac = new AbortController()
  const watching = watcher
    .watch(
      `/api/v1/namespaces/${NS}/configmaps`,
      { labelSelector: LABEL_INSTANCE_UID, allowWatchBookmarks: true },
      (ev) => {
        if (ev.type !== 'MODIFIED' && ev.type !== 'ADDED') return
        const now = performance.now()
        const o = ev.object as { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }
        const rv = Number(o.metadata.resourceVersion)
        for (const e of pending.get(o.metadata.name) ?? []) {
          if (e.seenAt === undefined && o.data?.index === e.value) e.seenAt = now
          if (e.revertedAt === undefined && rv > e.rv && o.data?.index === e.original) e.revertedAt = now
        }
      },
      ac.signal,
    )
    .catch(() => {})
  await sleep(500)

  const editor = KubeClient.fromFile(op.cp.kubeconfigPath, 'bench-editor')
  const edits: Edit[] = []
  const m0 = await metrics(op.metricsUrl)
  const w0 = writesOf(m0)
  const start = performance.now()
  let seq = 0
  const inflight: Promise<void>[] = []
  while (performance.now() - start < DURATION_MS) {
    const target = Math.floor(Math.random() * INSTANCES * PER)
    const name = `i${Math.floor(target / PER)}-${target % PER}`
    const value = `edited-${seq++}`
    inflight.push(
      (async () => {
        const res = await editor.request<{ metadata: { resourceVersion: string } }>(
          'PATCH',
          `/api/v1/namespaces/${NS}/configmaps/${name}`,
          { body: { data: { index: value } }, contentType: CONTENT_MERGE, query: { fieldManager: 'bench-editor' } },
        )
        const e: Edit = { name, value, original: String(target % PER), rv: Number(res.metadata.resourceVersion), at: performance.now() }
        const list = pending.get(name) ?? []
        list.push(e)
        pending.set(name, list)
        edits.push(e)
      })(),
    )
    await sleep(1000 / RATE)
  }
  await Promise.all(inflight)
  // Give the last corrections time to arrive.
  const deadline = performance.now() + 15_000
  while (edits.some((e) => e.revertedAt === undefined) && performance.now() < deadline) await sleep(200)
  const m1 = await metrics(op.metricsUrl)
  if (process.env.BENCH_DUMP_METRICS) console.log(await (await fetch(op.metricsUrl)).text())
  const w1 = writesOf(m1)
  const eventWrites = eventWritesOf(m1) - eventWritesOf(m0)
  ac.abort()
  await watching
  watcher.close()
  editor.close()

  const lat = edits
    .filter((e) => e.revertedAt !== undefined)
    .map((e) => Math.max(0, (e.revertedAt as number) - e.at))
    .sort((a, b) => a - b)
  const base = edits
    .filter((e) => e.seenAt !== undefined)
    .map((e) => Math.max(0, (e.seenAt as number) - e.at))
    .sort((a, b) => a - b)
  const missed = edits.length - lat.length
  const mem = rssMiB(op.reconciler.pid)
  const p50 = percentile(lat, 50)
  const p99 = percentile(lat, 99)
  const b50 = percentile(base, 50)
  const b99 = percentile(base, 99)
  const writesPerCorrection = (w1 - w0) / Math.max(1, lat.length)
  log(`edits ${edits.length}, corrected ${lat.length}, not corrected ${missed}`)
  log(`revert latency ms: p50 ${p50.toFixed(1)} p99 ${p99.toFixed(1)} max ${(lat.at(-1) ?? 0).toFixed(1)}`)
  log(`baseline (edit itself seen in the watch) ms: p50 ${b50.toFixed(1)} p99 ${b99.toFixed(1)}`)
  log(
    `reconciler object writes ${w1 - w0} => ${writesPerCorrection.toFixed(2)} per correction (plus ${eventWrites} Event writes); RSS ${mem.rss} MiB (peak ${mem.peak})`,
  )
  console.log(
    JSON.stringify({
      bench: 'drift-latency',
      edits: edits.length,
      corrected: lat.length,
      p50_ms: Number(p50.toFixed(1)),
      p99_ms: Number(p99.toFixed(1)),
      max_ms: Number((lat.at(-1) ?? 0).toFixed(1)),
      baseline_p50_ms: Number(b50.toFixed(1)),
      baseline_p99_ms: Number(b99.toFixed(1)),
      ratio: Number((p99 / Math.max(0.1, b99)).toFixed(2)),
      writes_per_correction: Number(writesPerCorrection.toFixed(2)),
      event_writes: eventWrites,
      rss_mib: mem.rss,
      peak_rss_mib: mem.peak,
    }),
  )
} finally {
  await op.stop()
}
