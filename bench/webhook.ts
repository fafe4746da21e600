// Admission throughput and latency of the webhook over TLS, next to a
// baseline: a Fastify TLS route in the same process that parses the same body
// with Fastify's default JSON parser and returns a fixed allow. The gap
// between the two is what envelope checking, cache lookups, the decision and
// logging cost per request.
//
// - Server: this thread, both apps, certificates made with openssl.
// - Load: a worker thread (its own event loop, so client work does not queue
//   behind the servers), node:https with a keep-alive agent, concurrency 32.
// - Reviews: ~5 KB Deployments, old and new, spread over synthetic owners;
//   half are allowed (nothing guarded changed, or only ignored fields), half
//   denied (an image change, a DELETE). Every webhook answer is checked.
// - Rounds alternate webhook / baseline so load drift on the machine hits both.
//   The server thread's own CPU time per request is measured too: on a shared
//   machine it is the steadier figure, and its ratio is the throughput ratio
//   once the server has a core to itself.
// - Memory: a separate process fills the caches with 10,000 TemplateInstances
//   and 1,000 Templates (JSON list pages through the real transforms), serves
//   load, and reports its RSS.
// The last line is one JSON object.

import { execFileSync, fork } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { Agent, request as httpsRequest } from 'node:https'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import Fastify from 'fastify'
import pino from 'pino'
import { slimInstance, slimNamespace, slimTemplate } from '../src/webhook/transforms.ts'
import { buildWebhookApp } from '../src/webhook/app.ts'
import { createWebhookMetrics } from '../src/webhook/metrics.ts'
import { createLookups } from '../src/webhook/lookups.ts'
import { IgnoreCache } from '../src/webhook/ignore-cache.ts'
import { admissionReview, fullInstance, fullTemplate, MapStore, renderedDeployment, syntheticCaches } from '../src/webhook/synthetic.ts'
import type { KubeObject } from '../src/api/meta.ts'
import type { Template } from '../src/api/template.ts'
import type { TemplateInstance } from '../src/api/templateinstance.ts'

const CONCURRENCY = 32
const ROUNDS = 12
const ROUND_MS = 1_500
const WARMUP_MS = 2_000
const TEMPLATES = 1_000
const INSTANCES = 10_000

interface Certs {
  ca: string
  cert: string
  key: string
}

interface Job {
  port: number
  durationMs: number
  check: boolean
  bodies: string[]
  expected: boolean[]
}

interface RoundResult {
  count: number
  elapsedMs: number
  latencies: Float64Array
  errors: number
  mismatches: number
  /** CPU time of the server thread during the round, in microseconds (filled in by the main thread). */
  serverCpuUs?: number
}

interface WorkerInput {
  ca: string
}

function makeCerts(): Certs {
  const dir = mkdtempSync(join(tmpdir(), 'ts-bench-wh-'))
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  }
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'])
  run(['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=bench-ca', '-days', '1', '-out', 'ca.crt'])
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tls.key'])
  run(['req', '-new', '-key', 'tls.key', '-subj', '/CN=webhook', '-out', 'tls.csr'])
  writeFileSync(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')
  run(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'ext', '-out', 'tls.crt'])
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8')
  return { ca: read('ca.crt'), cert: read('tls.crt'), key: read('tls.key') }
}

// ---- load client (worker thread) --------------------------------------------

function post(agent: Agent, port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/validate', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function runRound(agent: Agent, job: Job): Promise<RoundResult> {
  const latencies: number[] = []
  let errors = 0
  let mismatches = 0
  let next = 0
  const started = performance.now()
  const deadline = started + job.durationMs
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const i = next++ % job.bodies.length
      const t0 = performance.now()
      try {
        const res = await post(agent, job.port, job.bodies[i] as string)
        latencies.push(performance.now() - t0)
        if (res.status !== 200) errors++
        else if (job.check) {
          const allowed = (JSON.parse(res.text) as { response?: { allowed?: boolean } }).response?.allowed
          if (allowed !== job.expected[i]) mismatches++
        }
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, loop))
  return { count: latencies.length, elapsedMs: performance.now() - started, latencies: Float64Array.from(latencies), errors, mismatches }
}

function workerMain(): void {
  const input = workerData as WorkerInput
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: input.ca })
  parentPort?.on('message', (job: Job | 'stop') => {
    if (job === 'stop') {
      agent.destroy()
      parentPort?.close()
      return
    }
    void runRound(agent, job).then((r) => parentPort?.postMessage(r))
  })
}

// ---- the memory measurement (child process) ---------------------------------

/** List pages as the API server sends them (500 items), parsed and transformed page by page like a relist. */
function loadLikeARelist<T extends KubeObject>(count: number, make: (i: number) => unknown, transform: (raw: never) => T, store: MapStore<T>): void {
  for (let i = 0; i < count; i += 500) {
    const items = Array.from({ length: Math.min(500, count - i) }, (_, j) => make(i + j))
    const page = JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items })
    const parsed = JSON.parse(page) as { items: unknown[] }
    for (const item of parsed.items) store.put(Object.freeze(transform(item as never)))
  }
}

interface MemoryReport {
  /** After the modules of the real webhook process are loaded, before any cache. */
  imports: number
  /** After the caches are filled (gc'd). */
  cached: number
  /** V8 heap taken by the filled caches and the app. */
  cacheHeap: number
  /** After serving load (gc'd). */
  rss: number
  maxRss: number
  heap: number
}

async function memoryChild(): Promise<void> {
  const settle = (): number => {
    globalThis.gc?.()
    return process.memoryUsage().rss
  }
  // Everything the webhook process loads, @kubernetes/client-node (through the API client) included.
  await import('../src/webhook/main.ts')
  const imports = settle()
  const heapAtImports = process.memoryUsage().heapUsed
  const certs = JSON.parse(process.env.BENCH_CERTS ?? '{}') as Certs
  const templates = new MapStore<Template>()
  const instances = new MapStore<TemplateInstance>()
  const namespaces = new MapStore<ReturnType<typeof slimNamespace>>()
  const owners: Owner[] = []
  loadLikeARelist(TEMPLATES, (i) => fullTemplate('platform', `tpl-${i}`, 'strict', ['spec.replicas', 'metadata.annotations']), slimTemplate, templates)
  loadLikeARelist(
    INSTANCES,
    (i) => {
      const ti = fullInstance(`team-${Math.floor(i / 10)}`, `app-${i}`, { namespace: 'platform', name: `tpl-${i % TEMPLATES}` })
      if (i < 200) owners.push({ namespace: ti.metadata?.namespace ?? '', instance: ti.metadata?.name ?? '', uid: ti.metadata?.uid ?? '' })
      return ti
    },
    slimInstance,
    instances,
  )
  loadLikeARelist(INSTANCES / 10, (i) => ({ metadata: { name: `team-${i}`, uid: `ns-${i}`, resourceVersion: '1' }, status: { phase: 'Active' } }), slimNamespace, namespaces)
  const lookups = createLookups({ templates, instances, namespaces, ignore: new IgnoreCache() })
  const app = buildWebhookApp({
    lookups,
    config: { operatorUsernames: [] },
    log: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: true })),
    metrics: createWebhookMetrics(),
    canServe: () => true,
    tls: { key: certs.key, cert: certs.cert },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const cached = settle()
  const cacheHeap = process.memoryUsage().heapUsed - heapAtImports
  process.send?.({ port, owners, sizes: { templates: templates.size, instances: instances.size, namespaces: namespaces.size } })
  process.on('message', (m: string) => {
    if (m !== 'report') return
    const rss = settle()
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify({ mem: process.memoryUsage(), spaces: getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.space_size / 1048576), Math.round(s.space_used_size / 1048576)]) }))
    const report: MemoryReport = { imports, cached, cacheHeap, rss, maxRss: process.resourceUsage().maxRSS * 1024, heap: process.memoryUsage().heapUsed }
    process.send?.(report, undefined, {}, () => {
      void app.close().then(() => process.exit(0))
    })
  })
}

// ---- main -------------------------------------------------------------------

interface Workload {
  bodies: string[]
  expected: boolean[]
}

interface Owner {
  namespace: string
  instance: string
  uid: string
}

function workload(owners: readonly Owner[], count: number, ignoresReplicas: (o: Owner) => boolean): Workload {
  const bodies: string[] = []
  const expected: boolean[] = []
  for (let i = 0; i < count; i++) {
    const owner = owners[i % owners.length]
    if (!owner) break
    const stored = renderedDeployment(owner)
    const changed = structuredClone(stored) as KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } }; metadata: { annotations: Record<string, string> } }
    let allowed: boolean
    switch (i % 4) {
      case 0: // an annotation (ignored everywhere) and a status change: allowed
        changed.metadata.annotations['kubectl.kubernetes.io/restartedAt'] = '2026-03-01T00:00:00Z'
        allowed = true
        break
      case 1: {
        // an image change: denied
        const c = changed.spec.template.spec.containers[0]
        if (c) c.image = 'registry.example.com/hotfix:9'
        allowed = false
        break
      }
      case 2: // replicas: allowed where the Template ignores spec.replicas, denied elsewhere
        changed.spec.replicas = 7
        allowed = ignoresReplicas(owner)
        break
      default: // DELETE: denied
        bodies.push(JSON.stringify(admissionReview({ operation: 'DELETE', oldObject: stored })))
        expected.push(false)
        continue
    }
    bodies.push(JSON.stringify(admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored })))
    expected.push(allowed)
  }
  return { bodies, expected }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

interface Summary {
  rps: number
  p50: number
  p99: number
  errors: number
  mismatches: number
  /** Server-thread CPU per request: what throughput would be once the server has a core to itself. */
  cpuUsPerRequest: number
}

function summarize(rounds: RoundResult[]): Summary {
  const count = rounds.reduce((n, r) => n + r.count, 0)
  const elapsed = rounds.reduce((n, r) => n + r.elapsedMs, 0)
  const all = new Float64Array(count)
  let at = 0
  for (const r of rounds) {
    all.set(r.latencies, at)
    at += r.latencies.length
  }
  all.sort()
  return {
    rps: count / (elapsed / 1000),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    mismatches: rounds.reduce((n, r) => n + r.mismatches, 0),
    cpuUsPerRequest: rounds.reduce((n, r) => n + (r.serverCpuUs ?? 0), 0) / count,
  }
}

async function measureMemory(certs: Certs, ask: (job: Job) => Promise<RoundResult>, nodeFlags: readonly string[] = []): Promise<MemoryReport> {
  const child = fork(fileURLToPath(import.meta.url), ['--memory-child'], {
    env: { ...process.env, BENCH_CERTS: JSON.stringify(certs) },
    execArgv: [...process.execArgv, '--expose-gc', ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  type Ready = { port: number; owners: Owner[]; sizes: Record<string, number> }
  const first = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)))
  console.log(`memory${nodeFlags.length ? ` (${nodeFlags.join(' ')})` : ''}: caches hold ${JSON.stringify(first.sizes)}; serving load for ${ROUND_MS} ms`)
  // Every Template in the child ignores spec.replicas.
  const load = workload(first.owners, 256, () => true)
  const res = await ask({ port: first.port, durationMs: ROUND_MS, check: true, ...load })
  if (res.errors > 0 || res.mismatches > 0) console.log(`WARNING: memory run had ${res.errors} errors and ${res.mismatches} wrong verdicts`)
  const report = new Promise<MemoryReport>((resolve) => child.once('message', (m) => resolve(m as MemoryReport)))
  child.send('report')
  return report
}

/** `node bench/webhook.ts --memory-only`: just the memory figure. */
async function memoryOnly(): Promise<void> {
  const certs = makeCerts()
  const worker = new Worker(new URL(import.meta.url), { workerData: { ca: certs.ca } satisfies WorkerInput })
  const ask = (job: Job): Promise<RoundResult> => new Promise((resolve) => worker.once('message', (r) => resolve(r as RoundResult)).postMessage(job))
  const flags = process.argv.filter((a) => a.startsWith('--max-semi-space-size'))
  const mem = await measureMemory(certs, ask, flags)
  worker.postMessage('stop')
  const mib = (n: number): number => Math.round((n / 1024 / 1024) * 10) / 10
  console.log(JSON.stringify({ bench: 'webhook-memory', imports_mib: mib(mem.imports), cached_mib: mib(mem.cached), cache_heap_mib: mib(mem.cacheHeap), rss_mib: mib(mem.rss), peak_rss_mib: mib(mem.maxRss), heap_mib: mib(mem.heap) }))
}

async function main(): Promise<void> {
  const certs = makeCerts()
  const caches = syntheticCaches({ templates: TEMPLATES, instances: INSTANCES })
  const ignoresReplicas = (o: Owner): boolean => {
    const ref = caches.instances.get(o.namespace, o.instance)?.spec.templateRef
    const tpl = ref ? caches.templates.get(ref.namespace, ref.name) : undefined
    return tpl?.spec.sync?.ignoreFields?.includes('spec.replicas') ?? false
  }
  const { bodies, expected } = workload(caches.owners, 256, ignoresReplicas)
  const avgBody = bodies.reduce((n, b) => n + b.length, 0) / bodies.length
  const sampleDeployment = JSON.stringify(renderedDeployment(caches.owners[0] ?? { namespace: 'a', instance: 'b', uid: 'c' })).length

  const devNull = pino.destination({ dest: '/dev/null', sync: true })
  const webhook = buildWebhookApp({
    lookups: caches.lookups,
    config: { operatorUsernames: ['system:serviceaccount:template-sync:reconciler'] },
    // Denials are logged at info in production; the bench pays for that too.
    log: pino({ level: 'info' }, devNull),
    metrics: createWebhookMetrics(),
    canServe: () => true,
    tls: { key: certs.key, cert: certs.cert },
  })
  const baseline = Fastify({ https: { key: certs.key, cert: certs.cert, minVersion: 'TLSv1.2' }, bodyLimit: 32 * 1024 * 1024 })
  baseline.post('/validate', async (req) => {
    const uid = (req.body as { request?: { uid?: string } }).request?.uid ?? ''
    return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }
  })
  await webhook.listen({ host: '127.0.0.1', port: 0 })
  await baseline.listen({ host: '127.0.0.1', port: 0 })
  const portOf = (a: ReturnType<typeof webhook.server.address>): number => (typeof a === 'object' && a ? a.port : 0)
  const ports = { webhook: portOf(webhook.server.address()), baseline: portOf(baseline.server.address()) }

  const worker = new Worker(new URL(import.meta.url), { workerData: { ca: certs.ca } satisfies WorkerInput })
  const ask = (job: Job): Promise<RoundResult> => new Promise((resolve) => worker.once('message', (r) => resolve(r as RoundResult)).postMessage(job))

  console.log(`webhook bench: concurrency ${CONCURRENCY}, ${bodies.length} distinct reviews, Deployment ${sampleDeployment} B, review body ${Math.round(avgBody)} B average`)
  console.log(`caches: ${caches.templates.size} Templates, ${caches.instances.size} TemplateInstances, ${caches.namespaces.size} Namespaces`)
  await ask({ port: ports.webhook, durationMs: WARMUP_MS, check: true, bodies, expected })
  await ask({ port: ports.baseline, durationMs: WARMUP_MS, check: false, bodies, expected })

  const rounds: { webhook: RoundResult[]; baseline: RoundResult[] } = { webhook: [], baseline: [] }
  for (let r = 0; r < ROUNDS; r++) {
    const order: ('webhook' | 'baseline')[] = r % 2 === 0 ? ['webhook', 'baseline'] : ['baseline', 'webhook']
    for (const target of order) {
      // The servers run on this thread, so its CPU time during a round is the cost of serving that round.
      const cpu = process.threadCpuUsage()
      const res = await ask({ port: ports[target], durationMs: ROUND_MS, check: target === 'webhook', bodies, expected })
      const used = process.threadCpuUsage(cpu)
      res.serverCpuUs = used.user + used.system
      rounds[target].push(res)
      const s = summarize([res])
      console.log(
        `round ${r + 1} ${target.padEnd(8)} ${Math.round(s.rps).toString().padStart(6)} req/s  p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ` +
          `server CPU ${Math.round(s.cpuUsPerRequest)} us/req  errors ${s.errors}`,
      )
    }
  }
  const w = summarize(rounds.webhook)
  const b = summarize(rounds.baseline)
  // Each webhook round next to the baseline round run right before or after it: robust to load that comes and goes.
  const pairRatios = rounds.webhook.map((r, i) => summarize([r]).rps / summarize([rounds.baseline[i] as RoundResult]).rps).sort((x, y) => x - y)
  const medianRatio = pairRatios[Math.floor(pairRatios.length / 2)] ?? NaN
  await webhook.close()
  await baseline.close()

  const mem = await measureMemory(certs, ask)
  worker.postMessage('stop')

  const mib = (n: number): number => Math.round((n / 1024 / 1024) * 10) / 10
  const ratio = w.rps / b.rps
  console.log('')
  const cpuRatio = b.cpuUsPerRequest / w.cpuUsPerRequest
  console.log(`webhook   ${Math.round(w.rps)} req/s  p50 ${w.p50.toFixed(2)} ms  p99 ${w.p99.toFixed(2)} ms  server CPU ${Math.round(w.cpuUsPerRequest)} us/req  errors ${w.errors}  wrong verdicts ${w.mismatches}`)
  console.log(`baseline  ${Math.round(b.rps)} req/s  p50 ${b.p50.toFixed(2)} ms  p99 ${b.p99.toFixed(2)} ms  server CPU ${Math.round(b.cpuUsPerRequest)} us/req  errors ${b.errors}`)
  console.log(`capacity ratio from server CPU per request (baseline / webhook): ${cpuRatio.toFixed(3)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores`)
  console.log(`ratio ${ratio.toFixed(3)} over all rounds, ${medianRatio.toFixed(3)} median of adjacent pairs (goal >= 0.8)   p99 ${w.p99.toFixed(2)} ms (goal <= 5)`)
  console.log(`webhook process with ${INSTANCES} TemplateInstances and ${TEMPLATES} Templates cached: RSS ${mib(mem.rss)} MiB (peak ${mib(mem.maxRss)} MiB; goal <= 150)`)
  console.log(`  modules loaded, no cache: ${mib(mem.imports)} MiB; caches filled: ${mib(mem.cached)} MiB; V8 heap taken by caches and app: ${mib(mem.cacheHeap)} MiB`)
  if (w.errors > 0 || w.mismatches > 0) console.log('WARNING: the webhook answered with errors or unexpected verdicts; the figures above are not valid')
  console.log(
    JSON.stringify({
      bench: 'webhook',
      ratio: Math.round(ratio * 1000) / 1000,
      ratio_median_pair: Math.round(medianRatio * 1000) / 1000,
      cpu_ratio: Math.round(cpuRatio * 1000) / 1000,
      cpu_us_per_req: Math.round(w.cpuUsPerRequest),
      baseline_cpu_us_per_req: Math.round(b.cpuUsPerRequest),
      rps: Math.round(w.rps),
      baseline_rps: Math.round(b.rps),
      p50_ms: Math.round(w.p50 * 100) / 100,
      p99_ms: Math.round(w.p99 * 100) / 100,
      baseline_p50_ms: Math.round(b.p50 * 100) / 100,
      baseline_p99_ms: Math.round(b.p99 * 100) / 100,
      rss_mib: mib(mem.rss),
      peak_rss_mib: mib(mem.maxRss),
      rss_before_caches_mib: mib(mem.imports),
      cache_heap_mib: mib(mem.cacheHeap),
      concurrency: CONCURRENCY,
      errors: w.errors,
      wrong_verdicts: w.mismatches,
    }),
  )
}

if (!isMainThread) workerMain()
else if (process.argv.includes('--memory-child')) await memoryChild()
else if (process.argv.includes('--memory-only')) await memoryOnly()
else await main()
