// Shared setup for the reconciler benchmarks: a local control plane, the CRDs,
// and the real reconciler process with its metrics endpoint, so that its RSS
// and API request counts are its own and not the benchmark's. The reconciler
// runs as the image runs it: compiled dist/, the ENTRYPOINT's Node flags and
// the chart's reconciler flags (BENCH_RECONCILER_NODE_FLAGS, space-separated,
// tries others instead); from src/ Node's type stripper alone would add ~30 MiB. Like a kubelet,
// the harness starts a reconciler again when one exits on its own (it does when
// it loses its Lease), and counts those exits as leadership losses.

import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { startControlPlane, freePort, type ControlPlane } from '../../src/local/controlplane.ts'
import { KubeClient, CONTENT_APPLY } from '../../src/kube/client.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { GROUP, VERSION } from '../../src/api/names.ts'
import { buildDist, chartNodeOptions, DIST_MAIN, IMAGE_NODE_FLAGS } from './image.ts'

export interface BenchOperator {
  readonly cp: ControlPlane
  readonly client: KubeClient
  /** The reconciler process running now. */
  readonly reconciler: ChildProcess
  /** Its metrics endpoint. */
  readonly metricsUrl: string
  /** "lost leadership" lines the reconcilers logged so far. */
  leadershipLosses(): number
  /** Reconciler exits nobody asked for so far (each was replaced by a new process). */
  unexpectedExits(): number
  /** Stops the reconciler with SIGTERM (it releases its Lease) and starts a new one; resolves with the new one's start time. */
  replaceReconciler(): Promise<number>
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

/** kube-apiserver flags for the benchmark only: BENCH_APISERVER_ARGS, space-separated. */
function benchApiServerArgs(): string[] {
  return (process.env.BENCH_APISERVER_ARGS ?? '').split(/\s+/).filter(Boolean)
}

interface Running {
  child: ChildProcess
  metricsUrl: string
  /** Set before a stop the harness asked for. */
  stopping: boolean
}

export async function startOperator(log: (m: string) => void): Promise<BenchOperator> {
  const extraApiServerArgs = benchApiServerArgs()
  if (extraApiServerArgs.length > 0) log(`kube-apiserver flags for this benchmark: ${extraApiServerArgs.join(' ')}`)
  const cp = await startControlPlane({ log, ...(extraApiServerArgs.length > 0 ? { extraApiServerArgs } : {}) })
  const client = KubeClient.fromFile(cp.kubeconfigPath, 'bench')
  await installCrds(client)
  buildDist()
  const override = process.env.BENCH_RECONCILER_NODE_FLAGS
  const nodeFlags = override === undefined ? chartNodeOptions('reconciler') : override.split(/\s+/).filter(Boolean)
  log(`reconciler: dist/main.js with Node flags ${[...IMAGE_NODE_FLAGS, ...nodeFlags].join(' ')}`)
  let losses = 0
  let exits = 0
  let closed = false

  const launch = async (): Promise<Running> => {
    const port = await freePort()
    const child = spawn(
      process.execPath,
      [
        ...IMAGE_NODE_FLAGS,
        ...nodeFlags,
        DIST_MAIN,
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
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        process.stderr.write(`${line}\n`)
        if (/lost leadership/.test(line)) losses++
      })
    }
    const r: Running = { child, metricsUrl: `http://127.0.0.1:${port}/metrics`, stopping: false }
    child.once('exit', (code, signal) => {
      if (r.stopping || closed) return
      exits++
      log(`reconciler exited by itself (code ${code}, signal ${signal}); starting another`)
      void launch().then((next) => {
        current = next
      })
    })
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`)
        if (res.status === 200) break
      } catch {
        // not listening yet
      }
      await sleep(100)
    }
    return r
  }

  const stopOne = async (r: Running): Promise<void> => {
    r.stopping = true
    if (r.child.exitCode !== null || r.child.signalCode !== null) return
    const exited = new Promise((resolve) => r.child.once('exit', resolve))
    r.child.kill('SIGTERM')
    await exited
  }

  let current = await launch()
  return {
    cp,
    client,
    get reconciler() {
      return current.child
    },
    get metricsUrl() {
      return current.metricsUrl
    },
    leadershipLosses: () => losses,
    unexpectedExits: () => exits,
    async replaceReconciler() {
      await stopOne(current)
      const startedAt = Date.now()
      current = await launch()
      return startedAt
    },
    async stop() {
      closed = true
      await stopOne(current)
      client.close()
      await cp.stop()
    },
  }
}

/** Parses the reconciler's request counter: verb -> count. */
export async function metrics(url: string): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  for (const [name, labels, value] of await scrape(url)) {
    if (name === 'template_sync_kube_requests_total' && labels.verb !== undefined) out.set(labels.verb, value)
  }
  return out
}

/** Every sample of a metrics endpoint as [name, labels, value]. */
export async function scrape(url: string): Promise<[string, Record<string, string>, number][]> {
  const text = await (await fetch(url)).text()
  const out: [string, Record<string, string>, number][] = []
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = l[2] as string
    out.push([m[1] as string, labels, Number(m[3])])
  }
  return out
}

/** Writes to objects and status (not dry runs, Leases or Events). */
export function writesOf(m: Map<string, number>): number {
  let n = 0
  for (const [verb, c] of m)
    if (verb !== 'GET' && verb !== 'WATCH' && !verb.endsWith('-DRYRUN') && !verb.startsWith('LEASE-') && !verb.startsWith('EVENT-')) n += c
  return n
}

/** Status writes, where the reconciler counts them apart (STATUS-PATCH); 0 for one that does not. */
export function statusWritesOf(m: Map<string, number>): number {
  let n = 0
  for (const [verb, c] of m) if (verb.startsWith('STATUS-')) n += c
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

/** after - before, by verb, sorted by verb. */
export function delta(after: Map<string, number>, before: Map<string, number> = new Map()): Record<string, number> {
  const out: Record<string, number> = {}
  for (const v of [...after.keys()].sort()) {
    const n = (after.get(v) ?? 0) - (before.get(v) ?? 0)
    if (n !== 0) out[v] = n
  }
  return out
}

export function perInstance(verbs: Record<string, number>, instances: number): Record<string, number> {
  return Object.fromEntries(Object.entries(verbs).map(([v, n]) => [v, Number((n / instances).toFixed(2))]))
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
