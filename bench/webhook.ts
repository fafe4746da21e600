// Admission throughput and latency of the webhook over TLS, next to a
// baseline: a Fastify TLS route in the same process that parses the same body
// with Fastify's default JSON parser and returns a fixed allow. The gap
// between the two is what envelope checking, cache lookups, the decision and
// logging cost per request.
//
// - Server: this thread, both apps, certificates from src/certs/mint.ts, with the
//   chart's Node flags (webhook.nodeOptions; the bench restarts itself with them).
// - Load: a worker thread (its own event loop, so client work does not queue
//   behind the servers), node:https with a keep-alive agent, concurrency 32.
// - Reviews: ~5 KB Deployments, old and new, spread over synthetic owners;
//   half are allowed (nothing guarded changed, or only ignored fields), half
//   denied (an image change, a DELETE). Every webhook answer is checked.
// - Rounds alternate webhook / baseline so load drift on the machine hits both.
//   The server thread's own CPU time per request is measured too: on a shared
//   machine it is the steadier figure, and its ratio is the throughput ratio
//   once the server has a core to itself.
// - Memory: the webhook as the image runs it (dist/ compiled by tsc first,
//   --enable-source-maps, bench/webhook-memory-child.mjs) lists 10,000
//   TemplateInstances, 1,000 Templates and 1,000 Namespaces from a small API
//   server in this process through its real Reflectors, serves load, and
//   reports its RSS.
// The last line is one JSON object.

import { fork, spawnSync } from 'node:child_process'
import { createServer, type ServerResponse } from 'node:http'
import { Agent, request as httpsRequest } from 'node:https'
import { availableParallelism, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import Fastify from 'fastify'
import { mintCA, mintServingCert } from '../src/certs/mint.ts'
import { buildWebhookApp } from '../src/webhook/app.ts'
import { createWebhookMetrics } from '../src/webhook/metrics.ts'
import { bufferedLogDestination, createWebhookLogger } from '../src/webhook/logger.ts'
import { admissionReview, fullInstance, fullTemplate, renderedDeployment, syntheticCaches } from '../test/fixtures/webhook-synthetic.ts'
import type { KubeObject } from '../src/api/meta.ts'
import { buildDist, chartMemoryLimit, chartNodeOptions } from './lib/image.ts'
import {
  floodCases,
  hostileCases,
  LATENCY_GOAL_MS,
  RSS_GOAL_MIB,
  runHostileCases,
  type Case,
  type HostileResult,
  type HostileTarget,
} from './webhook-hostile.ts'

const CONCURRENCY = 32
// BENCH_ROUNDS=4 for a quicker, noisier look.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12)
const ROUND_MS = 1_500
const WARMUP_MS = 2_000
/** Fixed arrival rates for the latency below saturation: a busy cluster, and about two thirds of the webhook's capacity here. */
const OPEN_LOOP_RATES = [500, 2_000]
const OPEN_LOOP_ROUNDS = 4
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
  /** Open loop: send at this fixed rate (latency counted from each request's due time) instead of 32 back-to-back loops. */
  ratePerSec?: number
  /** Open loop: every n-th request goes over a new connection, as an API server's do when its idle ones are busy. */
  freshEvery?: number
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
  /** Answers by status code; "error" for a request whose connection failed. */
  statuses: Record<string, number>
  /** Open loop: when each answered request was due, in ms from the round's start (parallel to latencies). */
  dues?: Float64Array
  /** CPU time of the server thread during the round, in microseconds (filled in by the main thread). */
  serverCpuUs?: number
}

interface WorkerInput {
  ca: string
}

function makeCerts(): Certs {
  const ca = mintCA({ validityDays: 1 })
  const serving = mintServingCert({ ca, dnsNames: [], ipAddresses: ['127.0.0.1'], validityDays: 1 })
  return { ca: ca.certPem, cert: serving.certPem, key: serving.keyPem }
}

// ---- load client (worker thread) --------------------------------------------

function post(agent: Agent, port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
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
  return roundResult(started, latencies, { errors, mismatches, statuses: {} })
}

function roundResult(
  started: number,
  latencies: readonly number[],
  tallies: Pick<RoundResult, 'errors' | 'mismatches' | 'statuses'>,
  dues?: readonly number[],
): RoundResult {
  return {
    count: latencies.length,
    elapsedMs: performance.now() - started,
    latencies: Float64Array.from(latencies),
    ...tallies,
    ...(dues !== undefined ? { dues: Float64Array.from(dues) } : {}),
  }
}

/**
 * Requests at a fixed rate, whatever the answers' speed, like API server
 * traffic that does not wait for the webhook. Latency is counted from when a
 * request was due, so a stalled server is not hidden by sends that were
 * delayed behind it. At most CONCURRENCY are in flight (the agent queues the rest).
 */
async function runOpenLoop(agent: Agent, fresh: Agent, job: Job & { ratePerSec: number }): Promise<RoundResult> {
  const interval = 1000 / job.ratePerSec
  const total = Math.floor(job.durationMs / interval)
  const latencies: number[] = []
  const dues: number[] = []
  let errors = 0
  let mismatches = 0
  const statuses: Record<string, number> = {}
  const count = (status: string): void => {
    statuses[status] = (statuses[status] ?? 0) + 1
  }
  const pending: Promise<void>[] = []
  const started = performance.now()
  for (let n = 0; n < total; n++) {
    const due = started + n * interval
    const wait = due - performance.now()
    if (wait >= 1) await new Promise((r) => setTimeout(r, wait))
    const i = n % job.bodies.length
    const via = job.freshEvery !== undefined && n % job.freshEvery === 0 ? fresh : agent
    pending.push(
      post(via, job.port, job.bodies[i] as string).then(
        (res) => {
          latencies.push(performance.now() - due)
          dues.push(due - started)
          count(String(res.status))
          if (res.status !== 200) errors++
          else if (job.check && (JSON.parse(res.text) as { response?: { allowed?: boolean } }).response?.allowed !== job.expected[i])
            mismatches++
        },
        () => {
          count('error')
          errors++
        },
      ),
    )
  }
  await Promise.all(pending)
  return roundResult(started, latencies, { errors, mismatches, statuses }, dues)
}

function workerMain(): void {
  const input = workerData as WorkerInput
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: input.ca })
  // One connection per request: what an API server opens when its idle connections are all in use.
  const fresh = new Agent({ keepAlive: false, ca: input.ca })
  parentPort?.on('message', (job: Job | 'stop') => {
    if (job === 'stop') {
      agent.destroy()
      fresh.destroy()
      parentPort?.close()
      return
    }
    const run = job.ratePerSec === undefined ? runRound(agent, job) : runOpenLoop(agent, fresh, { ...job, ratePerSec: job.ratePerSec })
    void run.then((r) => parentPort?.postMessage(r))
  })
}

// ---- the memory measurement (child process) ---------------------------------

/**
 * A minimal API server for the child's Reflectors: paged lists (500 items,
 * with continue tokens) of 1,000 Templates, 10,000 TemplateInstances and
 * 1,000 Namespaces made by the synthetic generators, empty lists for the
 * scale-target kinds, and watches that stay open without events.
 */
function fakeApiServer(): Promise<{ url: string; owners: Owner[]; close: () => void }> {
  const owners: Owner[] = []
  const instances = Array.from({ length: INSTANCES }, (_, i) => {
    const ti = fullInstance(`team-${Math.floor(i / 10)}`, `app-${i}`, { namespace: 'platform', name: `tpl-${i % TEMPLATES}` })
    if (i < 200) owners.push({ namespace: ti.metadata?.namespace ?? '', instance: ti.metadata?.name ?? '', uid: ti.metadata?.uid ?? '' })
    return ti
  })
  // Every Template ignores spec.replicas, so the load's expected verdicts do not depend on the owner.
  const collections: Record<string, (i: number) => unknown> = {
    '/apis/templates.v2.stakater.com/v2alpha1/templates': (i) =>
      i < TEMPLATES ? fullTemplate('platform', `tpl-${i}`, 'strict', ['spec.replicas', 'metadata.annotations']) : undefined,
    '/apis/templates.v2.stakater.com/v2alpha1/templateinstances': (i) => instances[i],
    '/api/v1/namespaces': (i) =>
      i < INSTANCES / 10
        ? {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: `team-${i}`, uid: `ns-${i}`, resourceVersion: '1' },
            status: { phase: 'Active' },
          }
        : undefined,
  }
  const watches = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench')
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.flushHeaders()
      watches.add(res)
      res.on('close', () => watches.delete(res))
      return
    }
    const make = collections[url.pathname]
    const from = Number(url.searchParams.get('continue') ?? '0')
    const limit = Number(url.searchParams.get('limit') ?? '500')
    const items: unknown[] = []
    for (let i = from; make && items.length < limit; i++) {
      const item = make(i)
      if (item === undefined) break
      items.push(item)
    }
    const next = make && make(from + items.length) !== undefined ? String(from + items.length) : undefined
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1000', ...(next ? { continue: next } : {}) }, items }),
    )
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}`,
        owners,
        close: () => {
          for (const w of watches) w.destroy()
          server.close()
        },
      })
    })
  })
}

interface MemoryReport {
  /** After the modules of the webhook process are loaded, before any cache. */
  imports: number
  /** After the caches have synced (gc'd). */
  cached: number
  /** V8 heap taken by the filled caches and the server. */
  cacheHeap: number
  /** After serving load (gc'd). */
  rss: number
  maxRss: number
  heap: number
}

type Ready = { ready: true; port: number; imports: number; cached: number; cacheHeap: number; sizes: Record<string, number> }

interface MemoryChild {
  readonly pid: number
  readonly ready: Ready
  report(): Promise<{ rss: number; maxRss: number; heap: number }>
  /** Starts recording how late the webhook's event loop runs. */
  mark(): Promise<void>
  /** What the webhook refused or closed, from its metrics ({"<code> <cause>": count}), and its event loop's delay since mark(). */
  rejected(): Promise<{ rejected: Record<string, number>; loopDelay: { maxMs: number; p99Ms: number } }>
  exit(): Promise<void>
}

/** The webhook as the image runs it, synced from the bench API server. */
async function startMemoryChild(api: { url: string }, certs: Certs, nodeFlags: readonly string[]): Promise<MemoryChild> {
  const operator = 'system:serviceaccount:template-sync:reconciler'
  const memoryLimitBytes = chartMemoryLimit()
  const child = fork(fileURLToPath(new URL('./webhook-memory-child.mjs', import.meta.url)), [], {
    env: {
      ...process.env,
      BENCH_MEMORY_CHILD: JSON.stringify({ server: api.url, cert: certs.cert, key: certs.key, operator, memoryLimitBytes }),
    },
    // The image's flag (Dockerfile ENTRYPOINT) and the chart's NODE_OPTIONS, plus gc exposed for steady readings.
    execArgv: ['--enable-source-maps', '--expose-gc', ...nodeFlags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready))
    child.once('exit', (code) => reject(new Error(`the memory child exited with code ${code} before it was ready`)))
  })
  if (child.pid === undefined) throw new Error('the memory child has no pid')
  return {
    pid: child.pid,
    ready,
    report: () => {
      const answer = new Promise<{ rss: number; maxRss: number; heap: number }>((resolve) =>
        child.once('message', (m) => resolve(m as { rss: number; maxRss: number; heap: number })),
      )
      child.send('report')
      return answer
    },
    mark: () => {
      const answer = new Promise<void>((resolve) => child.once('message', () => resolve()))
      child.send('mark')
      return answer
    },
    rejected: () => {
      const answer = new Promise<{ rejected: Record<string, number>; loopDelay: { maxMs: number; p99Ms: number } }>((resolve) =>
        child.once('message', (m) => resolve(m as { rejected: Record<string, number>; loopDelay: { maxMs: number; p99Ms: number } })),
      )
      child.send('rejected')
      return answer
    },
    exit: async () => {
      // A child killed by the case has exited already.
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.send('exit')
      await exited
    },
  }
}

async function measureMemory(
  certs: Certs,
  ask: (job: Job) => Promise<RoundResult>,
  nodeFlags: readonly string[] = chartNodeOptions(),
  hostile: readonly Case[] = [],
): Promise<MemoryReport & { hostile: HostileResult[] }> {
  buildDist()
  const api = await fakeApiServer()
  const child = await startMemoryChild(api, certs, nodeFlags)
  const first = child.ready
  console.log(
    `memory${nodeFlags.length ? ` (${nodeFlags.join(' ')})` : ''}: dist/ webhook synced ${JSON.stringify(first.sizes)} from the bench API server; serving load for ${ROUND_MS} ms`,
  )
  const load = workload(api.owners, 256, () => true)
  const res = await ask({ port: first.port, durationMs: ROUND_MS, check: true, ...load })
  if (res.errors > 0 || res.mismatches > 0) console.log(`WARNING: memory run had ${res.errors} errors and ${res.mismatches} wrong verdicts`)
  // The memory figure is that of normal load; the hostile cases come after it.
  const last = await child.report()
  await child.exit()
  const hostileResults: HostileResult[] = []
  if (hostile.length > 0) {
    // Each case meets a fresh process (what one request costs, not what earlier ones left behind),
    // while the load thread sends valid reviews at 50 per second.
    const fresh = async (): Promise<HostileTarget> => {
      const c = await startMemoryChild(api, certs, nodeFlags)
      await ask({ port: c.ready.port, durationMs: 1_000, check: true, ...load })
      return {
        pid: c.pid,
        port: c.ready.port,
        valid: (durationMs, opts = {}) => ask({ port: c.ready.port, durationMs, ratePerSec: 50, check: true, ...opts, ...load }),
        mark: c.mark,
        rejected: c.rejected,
        stop: c.exit,
      }
    }
    for (const r of await runHostileCases(fresh, certs.ca, hostile)) {
      hostileResults.push(r)
      console.log(
        `hostile: ${r.name}: answers ${JSON.stringify(r.answers)}; RSS ${r.rssBeforeMib} -> peak ${r.peakRssMib} MiB (goal <= ${RSS_GOAL_MIB}); ` +
          `valid reviews meanwhile: ${r.validAnswered}, p99 ${r.p99ValidMs} ms, worst ${r.worstValidMs} ms (goal <= ${LATENCY_GOAL_MS}; sent at ${r.worstValidAtMs} ms of the attack), ` +
          `errors ${r.validErrors} ${JSON.stringify(r.validStatuses)}; webhook CPU ${r.cpuMs} ms in ${r.ms} ms; ` +
          `its event loop ran late by ${r.loopDelay.maxMs} ms at most (p99 ${r.loopDelay.p99Ms}); it refused or closed ${JSON.stringify(r.serverRejected)}`,
      )
    }
  }
  api.close()
  return { imports: first.imports, cached: first.cached, cacheHeap: first.cacheHeap, ...last, hostile: hostileResults }
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
    const changed = structuredClone(stored) as KubeObject & {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } }
      metadata: { annotations: Record<string, string> }
    }
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

/** `node bench/webhook.ts --memory-only [--hostile]`: just the memory figure (and the hostile cases). */
async function memoryOnly(): Promise<void> {
  const certs = makeCerts()
  const worker = new Worker(new URL(import.meta.url), { workerData: { ca: certs.ca } satisfies WorkerInput })
  const ask = (job: Job): Promise<RoundResult> =>
    new Promise((resolve) => worker.once('message', (r) => resolve(r as RoundResult)).postMessage(job))
  // `--memory-only --node-flags=--max-semi-space-size=4` tries other flags than the chart's.
  const given = process.argv.find((a) => a.startsWith('--node-flags='))
  const mem = await measureMemory(
    certs,
    ask,
    given === undefined
      ? undefined
      : given
          .slice('--node-flags='.length)
          .split(' ')
          .filter((f) => f !== ''),
    process.argv.includes('--hostile') ? hostileCases : [],
  )
  worker.postMessage('stop')
  const mib = (n: number): number => Math.round((n / 1024 / 1024) * 10) / 10
  console.log(
    JSON.stringify({
      bench: 'webhook-memory',
      imports_mib: mib(mem.imports),
      cached_mib: mib(mem.cached),
      cache_heap_mib: mib(mem.cacheHeap),
      rss_mib: mib(mem.rss),
      peak_rss_mib: mib(mem.maxRss),
      heap_mib: mib(mem.heap),
      ...(mem.hostile.length > 0 && {
        hostile_peak_rss_mib: Math.max(...mem.hostile.map((h) => h.peakRssMib)),
        hostile_worst_valid_ms: Math.max(...mem.hostile.map((h) => h.worstValidMs)),
      }),
    }),
  )
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

  const webhook = buildWebhookApp({
    lookups: caches.lookups,
    config: { operatorUsernames: ['system:serviceaccount:template-sync:reconciler'] },
    // The production logger (denials at info, redaction, buffered writes), writing to /dev/null instead of stdout.
    log: createWebhookLogger('info', bufferedLogDestination('/dev/null')),
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
  const ask = (job: Job): Promise<RoundResult> =>
    new Promise((resolve) => worker.once('message', (r) => resolve(r as RoundResult)).postMessage(job))

  console.log(
    `webhook bench: concurrency ${CONCURRENCY}, ${bodies.length} distinct reviews, Deployment ${sampleDeployment} B, review body ${Math.round(avgBody)} B average; Node flags ${process.execArgv.join(' ') || 'none'}`,
  )
  console.log(
    `caches: ${caches.templates.size} Templates, ${caches.instances.size} TemplateInstances, ${caches.namespaces.size} Namespaces`,
  )
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
  const pairRatios = rounds.webhook
    .map((r, i) => summarize([r]).rps / summarize([rounds.baseline[i] as RoundResult]).rps)
    .sort((x, y) => x - y)
  const medianRatio = pairRatios[Math.floor(pairRatios.length / 2)] ?? NaN

  // Latency below saturation: fixed arrival rates, webhook and baseline alternating.
  const openLoop: { rate: number; webhook: Summary; baseline: Summary }[] = []
  for (const rate of OPEN_LOOP_RATES) {
    const byTarget: { webhook: RoundResult[]; baseline: RoundResult[] } = { webhook: [], baseline: [] }
    for (let r = 0; r < OPEN_LOOP_ROUNDS; r++) {
      for (const target of r % 2 === 0 ? (['webhook', 'baseline'] as const) : (['baseline', 'webhook'] as const)) {
        byTarget[target].push(
          await ask({ port: ports[target], durationMs: ROUND_MS, ratePerSec: rate, check: target === 'webhook', bodies, expected }),
        )
      }
    }
    const entry = { rate, webhook: summarize(byTarget.webhook), baseline: summarize(byTarget.baseline) }
    openLoop.push(entry)
    console.log(
      `open loop ${rate} req/s: webhook p50 ${entry.webhook.p50.toFixed(2)} ms p99 ${entry.webhook.p99.toFixed(2)} ms; ` +
        `baseline p50 ${entry.baseline.p50.toFixed(2)} ms p99 ${entry.baseline.p99.toFixed(2)} ms; errors ${entry.webhook.errors + entry.baseline.errors}, wrong verdicts ${entry.webhook.mismatches}`,
    )
  }
  await webhook.close()
  await baseline.close()

  const mem = await measureMemory(certs, ask, chartNodeOptions(), process.argv.includes('--no-hostile') ? [] : hostileCases)
  worker.postMessage('stop')

  const mib = (n: number): number => Math.round((n / 1024 / 1024) * 10) / 10
  const ratio = w.rps / b.rps
  console.log('')
  const cpuRatio = b.cpuUsPerRequest / w.cpuUsPerRequest
  console.log(
    `webhook   ${Math.round(w.rps)} req/s  p50 ${w.p50.toFixed(2)} ms  p99 ${w.p99.toFixed(2)} ms  server CPU ${Math.round(w.cpuUsPerRequest)} us/req  errors ${w.errors}  wrong verdicts ${w.mismatches}`,
  )
  console.log(
    `baseline  ${Math.round(b.rps)} req/s  p50 ${b.p50.toFixed(2)} ms  p99 ${b.p99.toFixed(2)} ms  server CPU ${Math.round(b.cpuUsPerRequest)} us/req  errors ${b.errors}`,
  )
  console.log(
    `capacity ratio from server CPU per request (baseline / webhook): ${cpuRatio.toFixed(3)}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  )
  console.log(
    `ratio ${ratio.toFixed(3)} over all rounds, ${medianRatio.toFixed(3)} median of adjacent pairs (goal >= 0.9)   p99 ${w.p99.toFixed(2)} ms at concurrency ${CONCURRENCY}, closed loop (goal <= 5; the baseline alone: ${b.p99.toFixed(2)} ms)`,
  )
  console.log(
    `webhook process with ${INSTANCES} TemplateInstances and ${TEMPLATES} Templates cached: RSS ${mib(mem.rss)} MiB (peak ${mib(mem.maxRss)} MiB; goal <= 150)`,
  )
  console.log(
    `  modules loaded, no cache: ${mib(mem.imports)} MiB; caches filled: ${mib(mem.cached)} MiB; V8 heap taken by caches and app: ${mib(mem.cacheHeap)} MiB`,
  )
  const openErrors = openLoop.reduce((n, o) => n + o.webhook.errors + o.webhook.mismatches + o.baseline.errors, 0)
  if (w.errors > 0 || w.mismatches > 0 || openErrors > 0)
    console.log('WARNING: the webhook answered with errors or unexpected verdicts; the figures above are not valid')
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
      open_loop: openLoop.map((o) => ({
        rate: o.rate,
        p50_ms: Math.round(o.webhook.p50 * 100) / 100,
        p99_ms: Math.round(o.webhook.p99 * 100) / 100,
        baseline_p50_ms: Math.round(o.baseline.p50 * 100) / 100,
        baseline_p99_ms: Math.round(o.baseline.p99 * 100) / 100,
      })),
      rss_mib: mib(mem.rss),
      peak_rss_mib: mib(mem.maxRss),
      rss_before_caches_mib: mib(mem.imports),
      cache_heap_mib: mib(mem.cacheHeap),
      concurrency: CONCURRENCY,
      hostile: mem.hostile.map((h) => ({
        case: h.name,
        answers: h.answers,
        peak_rss_mib: h.peakRssMib,
        worst_valid_ms: h.worstValidMs,
        valid_errors: h.validErrors,
      })),
      hostile_peak_rss_mib: Math.max(0, ...mem.hostile.map((h) => h.peakRssMib)),
      hostile_worst_valid_ms: Math.max(0, ...mem.hostile.map((h) => h.worstValidMs)),
      errors: w.errors + openLoop.reduce((n, o) => n + o.webhook.errors, 0),
      wrong_verdicts: w.mismatches + openLoop.reduce((n, o) => n + o.webhook.mismatches, 0),
    }),
  )
}

/**
 * `node bench/webhook.ts --flood`: the flood cases alone, each on a fresh
 * webhook process as the image runs it, the first (no attack) being the
 * baseline the others are read against. The last line is one JSON object.
 */
async function floodOnly(): Promise<void> {
  const certs = makeCerts()
  const worker = new Worker(new URL(import.meta.url), { workerData: { ca: certs.ca } satisfies WorkerInput })
  const ask = (job: Job): Promise<RoundResult> =>
    new Promise((resolve) => worker.once('message', (r) => resolve(r as RoundResult)).postMessage(job))
  // `--only=<words>`: the baseline and the cases whose name holds them, for a quicker look.
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length)
  const cases = only === undefined ? floodCases : floodCases.filter((c, i) => i === 0 || c.name.includes(only))
  const mem = await measureMemory(certs, ask, chartNodeOptions(), cases)
  worker.postMessage('stop')
  const limitMib = Math.round((chartMemoryLimit() ?? 0) / 1024 / 1024)
  const [baseline, ...attacks] = mem.hostile
  if (baseline === undefined) throw new Error('the flood cases ran no baseline')
  const ratio = (x: number, base: number): number => Math.round((x / Math.max(base, 0.1)) * 10) / 10
  console.log('')
  console.log(
    `baseline (no attack, same run): ${baseline.validAnswered} valid reviews, p99 ${baseline.p99ValidMs} ms, worst ${baseline.worstValidMs} ms, peak RSS ${baseline.peakRssMib} MiB, webhook CPU ${baseline.cpuMs} ms`,
  )
  for (const a of attacks) {
    console.log(
      `${a.name}: worst valid ${a.worstValidMs} ms (x${ratio(a.worstValidMs, baseline.worstValidMs)} the baseline's), ` +
        `p99 ${a.p99ValidMs} ms (x${ratio(a.p99ValidMs, baseline.p99ValidMs)}), valid answers ${JSON.stringify(a.validStatuses)}, ` +
        `peak RSS ${a.peakRssMib} of ${limitMib} MiB, webhook CPU x${ratio(a.cpuMs, baseline.cpuMs)} the baseline's (${a.cpuMs} ms), ` +
        `its event loop late by ${a.loopDelay.maxMs} ms at most (baseline ${baseline.loopDelay.maxMs})`,
    )
  }
  const status = (r: HostileResult, code: string): number => r.validStatuses[code] ?? 0
  const worst = Math.max(0, ...attacks.map((a) => a.worstValidMs))
  const peak = Math.max(0, ...mem.hostile.map((a) => a.peakRssMib))
  console.log(
    JSON.stringify({
      bench: 'webhook-flood',
      worst_valid_ms: worst,
      worst_valid_ratio: ratio(worst, baseline.worstValidMs),
      valid_503: attacks.reduce((n, a) => n + status(a, '503'), 0),
      valid_errors: attacks.reduce((n, a) => n + a.validErrors, 0),
      valid_answered: attacks.reduce((n, a) => n + a.validAnswered, 0),
      rss_peak_mib: peak,
      limit_mib: limitMib,
      rss_margin_mib: Math.round((limitMib - peak) * 10) / 10,
      baseline: {
        worst_valid_ms: baseline.worstValidMs,
        p99_valid_ms: baseline.p99ValidMs,
        rss_peak_mib: baseline.peakRssMib,
        cpu_ms: baseline.cpuMs,
        loop_delay_max_ms: baseline.loopDelay.maxMs,
      },
      cases: attacks.map((a) => ({
        case: a.name,
        worst_valid_ms: a.worstValidMs,
        worst_valid_at_ms: a.worstValidAtMs,
        p99_valid_ms: a.p99ValidMs,
        valid: a.validStatuses,
        rss_peak_mib: a.peakRssMib,
        cpu_ms: a.cpuMs,
        loop_delay_max_ms: a.loopDelay.maxMs,
        flood: a.answers,
        refused_or_closed: a.serverRejected,
      })),
    }),
  )
}

/**
 * The servers run with the Node flags the chart gives the webhook (they are
 * process-wide V8 settings, so the baseline gets them too): the bench starts
 * itself again with them once.
 */
function rerunWithChartFlags(): boolean {
  if (process.env.BENCH_CHART_FLAGS === '1') return false
  const flags = chartNodeOptions()
  if (flags.length === 0) return false
  const r = spawnSync(process.execPath, [...process.execArgv, ...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_CHART_FLAGS: '1' },
  })
  process.exitCode = r.status ?? 1
  return true
}

if (!isMainThread) workerMain()
else if (!rerunWithChartFlags()) {
  if (process.argv.includes('--memory-only')) await memoryOnly()
  else if (process.argv.includes('--flood')) await floodOnly()
  else await main()
}
