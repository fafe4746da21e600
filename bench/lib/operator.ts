// Shared setup for the reconciler benchmarks: a local control plane, the CRDs,
// and the real reconciler process with its metrics endpoint, so that its RSS
// and API request counts are its own and not the benchmark's.

import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { startControlPlane, freePort, type ControlPlane } from '../../src/local/controlplane.ts'
import { KubeClient, CONTENT_APPLY } from '../../src/kube/client.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { GROUP, VERSION } from '../../src/api/names.ts'

export interface BenchOperator {
  cp: ControlPlane
  client: KubeClient
  reconciler: ChildProcess
  metricsUrl: string
  stop(): Promise<void>
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms))
}

export async function installCrds(client: KubeClient): Promise<void> {
  for (const crd of crdManifests()) {
    const name = (crd as { metadata: { name: string } }).metadata.name
    await client.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, {
      body: crd,
      contentType: CONTENT_APPLY,
      query: { fieldManager: 'bench', force: true },
    })
  }
  for (;;) {
    // Right after creation the new resource answers 429 while its storage initializes.
    if (await client.getOrUndefined(`/apis/${GROUP}/${VERSION}/templates`).catch(() => undefined)) return
    await sleep(200)
  }
}

export async function startOperator(log: (m: string) => void): Promise<BenchOperator> {
  const cp = await startControlPlane({ log })
  const client = KubeClient.fromFile(cp.kubeconfigPath, 'bench')
  await installCrds(client)
  const port = await freePort()
  const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))
  const reconciler = spawn(
    process.execPath,
    [
      bin,
      'reconciler',
      '--kubeconfig',
      cp.kubeconfigPath,
      '--health-port',
      String(port),
      '--leader-election-namespace',
      'default',
      '--log-level',
      'warn',
      '--workers',
      '8',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  )
  const metricsUrl = `http://127.0.0.1:${port}/metrics`
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`)
      if (r.status === 200 && (await metrics(metricsUrl)).size >= 0) break
    } catch {
      // not listening yet
    }
    await sleep(200)
  }
  return {
    cp,
    client,
    reconciler,
    metricsUrl,
    async stop() {
      reconciler.kill('SIGTERM')
      await new Promise((r) => (reconciler.exitCode !== null ? r(null) : reconciler.once('exit', r)))
      client.close()
      await cp.stop()
    },
  }
}

/** Parses the reconciler's request counter: verb -> count. */
export async function metrics(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text()
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const m = /^template_sync_kube_requests_total\{verb="([^"]+)"\} (\d+)/.exec(line)
    if (m) out.set(m[1] as string, Number(m[2]))
  }
  return out
}

export function writesOf(m: Map<string, number>): number {
  let n = 0
  for (const [verb, c] of m)
    if (verb !== 'GET' && verb !== 'WATCH' && !verb.endsWith('-DRYRUN') && !verb.startsWith('LEASE-') && !verb.startsWith('EVENT-')) n += c
  return n
}

/** Event writes (Event objects created or aggregated). */
export function eventWritesOf(m: Map<string, number>): number {
  let n = 0
  for (const [verb, c] of m) if (verb.startsWith('EVENT-')) n += c
  return n
}

export function total(m: Map<string, number>): number {
  let n = 0
  for (const c of m.values()) n += c
  return n
}

export function rssMiB(pid: number | undefined): { rss: number; peak: number } {
  if (pid === undefined) return { rss: 0, peak: 0 }
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0)
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}
