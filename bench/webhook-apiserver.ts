// What the webhook adds to a write, measured through a real kube-apiserver,
// side by side with an equivalent ValidatingAdmissionPolicy. Three
// Deployments in one namespace, patched in turn (one annotation changes, so
// every request is a real write the API server stores):
// - plain: no labels; nothing is called (the baseline);
// - webhook: rendered and strict, judged by the webhook through the chart's
//   ValidatingWebhookConfiguration (webhook.url pointing at it);
// - vap: judged by a ValidatingAdmissionPolicy whose CEL checks what the
//   webhook checks for it: spec, labels and instance-ref unchanged.
// The webhook is the image's program (dist/main.js webhook) in its own
// process, with the chart's Node flags and memory limit, so its CPU and its
// metadata-only watch of the Deployment are part of the figure.
// The added latency is the p50 of a target less the p50 of plain. Goal: the
// webhook's within 1 ms of the policy's. The last line is one JSON object.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Agent, request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadAll } from 'js-yaml'
import { crdManifests } from '../src/api/crds.ts'
import {
  ANNOTATION_INSTANCE_REF,
  API_VERSION,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
} from '../src/api/names.ts'
import { KubeClient } from '../src/kube/client.ts'
import { defaultBinDir, freePort, startControlPlane } from '../src/local/controlplane.ts'
import { buildDist, chartMemoryLimit, chartNodeOptions } from './lib/image.ts'

const WARMUP = Number(process.env.BENCH_WARMUP ?? 200)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1500)
const NS = 'bench'
const OPERATOR = 'system:serviceaccount:template-sync:template-sync-reconciler'
const GOAL_MS = 1

type Target = 'plain' | 'webhook' | 'vap'
const TARGETS: readonly Target[] = ['plain', 'webhook', 'vap']

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const v = await fn()
      if (v !== undefined) return v
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}

function deployment(name: string, labels: Record<string, string>, annotations: Record<string, string> = {}): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels, annotations },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'registry.example.com/app:1.4.2',
              env: Array.from({ length: 20 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` })),
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
            },
          ],
        },
      },
    },
  }
}

/** The policy the webhook's judgement amounts to for these Deployments (ignoreFields: metadata.annotations). */
function policy(): unknown[] {
  const ref = `'${ANNOTATION_INSTANCE_REF}'`
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'bench-strict' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], operations: ['UPDATE'] }],
        },
        validations: [
          { expression: 'object.spec == oldObject.spec', message: 'spec is protected' },
          { expression: 'object.metadata.labels == oldObject.metadata.labels', message: 'labels are protected' },
          {
            expression: `!has(oldObject.metadata.annotations) || !(${ref} in oldObject.metadata.annotations) || (has(object.metadata.annotations) && ${ref} in object.metadata.annotations && object.metadata.annotations[${ref}] == oldObject.metadata.annotations[${ref}])`,
            message: 'instance-ref is protected',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'bench-strict' },
      spec: {
        policyName: 'bench-strict',
        validationActions: ['Deny'],
        matchResources: { objectSelector: { matchLabels: { 'bench-vap': 'yes' } } },
      },
    },
  ]
}

/** CPU per thread of a process (BENCH_SHOW_THREADS): where the time outside the event loop goes. */
function threadCpu(pid: number): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
    out.set(tid, { name: `${name}/${tid}`, ms: (Number(fields[11]) + Number(fields[12])) * 10 })
  }
  return out
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/** User and system CPU of a process so far, in ms (utime and stime of /proc/PID/stat, at 100 ticks per second). */
function cpuMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 }
}

async function main(): Promise<void> {
  buildDist()
  const cp = await startControlPlane({ controllerManager: false, log: (m) => console.log(`[control-plane] ${m}`) })
  let webhook: ChildProcess | undefined
  try {
    const admin = KubeClient.fromFile(cp.kubeconfigPath, 'bench-webhook-apiserver')
    for (const crd of crdManifests()) await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })
    await until('CRDs served', () => admin.getOrUndefined(`/apis/${API_VERSION}`))
    await admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })
    await until('the Template kind', async () =>
      admin.request('POST', `/apis/${API_VERSION}/namespaces/${NS}/templates`, {
        body: {
          apiVersion: API_VERSION,
          kind: 'Template',
          metadata: { name: 'tpl' },
          spec: { gotemplate: 'kind: Deployment', sync: { mode: 'strict', ignoreFields: ['metadata.annotations'] } },
        },
      }),
    )
    const ti = await admin.request<{ metadata: { uid: string } }>('POST', `/apis/${API_VERSION}/namespaces/${NS}/templateinstances`, {
      body: {
        apiVersion: API_VERSION,
        kind: 'TemplateInstance',
        metadata: { name: 'inst' },
        spec: { templateRef: { name: 'tpl', namespace: NS } },
      },
    })

    // The webhook, as the image runs it.
    const serving = cp.issueServingCert('bench-webhook', ['127.0.0.1'])
    const certDir = mkdtempSync(join(tmpdir(), 'ts-bench-wh-'))
    writeFileSync(join(certDir, 'tls.crt'), serving.certPem)
    writeFileSync(join(certDir, 'tls.key'), serving.keyPem)
    const port = await freePort()
    const healthPort = await freePort()
    const memory = chartMemoryLimit()
    webhook = spawn(
      process.execPath,
      [
        '--enable-source-maps',
        ...chartNodeOptions(),
        // e.g. BENCH_WEBHOOK_FLAGS=--cpu-prof to see where the webhook's time goes.
        ...(process.env.BENCH_WEBHOOK_FLAGS ?? '').split(' ').filter((f) => f !== ''),
        fileURLToPath(new URL('../dist/main.js', import.meta.url)),
        'webhook',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--cert-dir',
        certDir,
        '--listen-address',
        '127.0.0.1',
        '--port',
        String(port),
        '--health-port',
        String(healthPort),
        '--operator-usernames',
        OPERATOR,
        '--log-level',
        'info',
        ...(memory !== undefined ? ['--memory-limit', String(memory)] : []),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    )
    const pid = webhook.pid
    if (pid === undefined) throw new Error('the webhook did not start')
    await until('webhook ready', async () => ((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200 ? true : undefined))

    // The chart's webhook configuration, pointed at it.
    const helm = spawnSync(
      join(defaultBinDir(), 'helm'),
      [
        'template',
        'template-sync',
        fileURLToPath(new URL('../charts/template-sync', import.meta.url)),
        '--namespace',
        'template-sync',
        '--kube-version',
        '1.37.2',
        '--set',
        `webhook.url=https://127.0.0.1:${port}/validate`,
        '--set',
        `webhook.caBundle=${Buffer.from(cp.caPem).toString('base64')}`,
      ],
      { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: certDir, HELM_CONFIG_HOME: certDir, HELM_DATA_HOME: certDir } },
    )
    if (helm.status !== 0) throw new Error(`helm template failed: ${helm.stderr}`)
    const vwc = (loadAll(helm.stdout) as ({ kind?: string } | null)[]).find((m) => m?.kind === 'ValidatingWebhookConfiguration')
    await admin.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: vwc })
    for (const o of policy()) {
      const kind = (o as { kind: string }).kind
      const plural = kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings'
      await admin.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { body: o })
    }

    const owned = {
      app: 'web',
      [LABEL_INSTANCE]: 'inst',
      [LABEL_INSTANCE_UID]: ti.metadata.uid,
      [LABEL_INSTANCE_NAME]: 'inst',
      [LABEL_INSTANCE_NAMESPACE]: NS,
      [LABEL_SYNC_MODE]: 'strict',
    }
    const path = (name: string): string => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`
    await admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment('plain', { app: 'plain' }) })
    await admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: deployment('webhook', owned, { [ANNOTATION_INSTANCE_REF]: `${NS}/inst` }),
    })
    await admin.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: deployment('vap', { app: 'vap', 'bench-vap': 'yes' }, { [ANNOTATION_INSTANCE_REF]: `${NS}/inst` }),
    })

    // A raw keep-alive client with the admin certificate, like any API client.
    const kc = readFileSync(cp.kubeconfigPath, 'utf8')
    const data = (key: string): string => Buffer.from(new RegExp(`${key}: ([A-Za-z0-9+/=]+)`).exec(kc)?.[1] ?? '', 'base64').toString()
    const agent = new Agent({
      keepAlive: true,
      maxSockets: 1,
      ca: cp.caPem,
      cert: data('client-certificate-data'),
      key: data('client-key-data'),
    })
    const url = new URL(cp.server)
    const patch = (name: string, body: string): Promise<{ status: number; ms: number }> =>
      new Promise((resolve, reject) => {
        const started = performance.now()
        const req = httpsRequest(
          {
            host: url.hostname,
            port: url.port,
            method: 'PATCH',
            path: path(name),
            agent,
            headers: {
              'content-type': 'application/merge-patch+json',
              accept: 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    const touch = (name: string, n: number): Promise<{ status: number; ms: number }> =>
      patch(name, JSON.stringify({ metadata: { annotations: { 'bench/counter': String(n) } } }))

    // Both judges are live once each denies a spec change.
    const denies = (name: string) => async (): Promise<true | undefined> =>
      (await patch(name, JSON.stringify({ spec: { replicas: 3 + Math.floor(Math.random() * 50) } }))).status >= 400 ? true : undefined
    await until('the webhook to judge', denies('webhook'))
    await until('the policy to judge', denies('vap'))

    // What the webhook spends doing nothing (timers, watches without events), to tell it from the cost of a write.
    const idleFrom = cpuMs(pid)
    await sleep(5_000)
    const idleTo = cpuMs(pid)
    const idleCpuMsPerSec = (idleTo.user + idleTo.system - idleFrom.user - idleFrom.system) / 5

    const latencies: Record<Target, number[]> = { plain: [], webhook: [], vap: [] }
    let cpuBefore = { user: 0, system: 0 }
    let threadsBefore = new Map<string, { name: string; ms: number }>()
    let n = 0
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      if (i === WARMUP) {
        cpuBefore = cpuMs(pid)
        threadsBefore = threadCpu(pid)
      }
      // Rotate the order every round so that no target always follows another.
      for (let k = 0; k < 3; k++) {
        const target = TARGETS[(i + k) % 3] as Target
        const res = await touch(target, ++n)
        if (res.status !== 200) throw new Error(`PATCH of ${target} answered ${res.status}`)
        if (i >= WARMUP) latencies[target].push(res.ms)
      }
    }
    const cpuAfter = cpuMs(pid)
    const webhookUserMs = (cpuAfter.user - cpuBefore.user) / REQUESTS
    const webhookSystemMs = (cpuAfter.system - cpuBefore.system) / REQUESTS
    const webhookCpuMs = webhookUserMs + webhookSystemMs
    if (process.env.BENCH_SHOW_THREADS) {
      for (const [tid, before] of threadsBefore) {
        const now = threadCpu(pid).get(tid)
        if (now !== undefined && now.ms - before.ms > 0)
          console.log(`thread ${before.name}: ${((now.ms - before.ms) / REQUESTS).toFixed(3)} ms per write`)
      }
    }
    if (process.env.BENCH_SHOW_CONNECTIONS) {
      console.log(spawnSync('ss', ['-tan', `( sport = :${port} or dport = :${port} )`], { encoding: 'utf8' }).stdout)
    }
    agent.destroy()
    admin.close()

    const stats = Object.fromEntries(
      TARGETS.map((t) => {
        const sorted = [...latencies[t]].sort((a, b) => a - b)
        return [t, { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) }]
      }),
    ) as Record<Target, { p50: number; p90: number; p99: number }>
    const added = { webhook: stats.webhook.p50 - stats.plain.p50, vap: stats.vap.p50 - stats.plain.p50 }
    for (const t of TARGETS) {
      const s = stats[t]
      console.log(`${t.padEnd(8)} p50 ${s.p50.toFixed(2)} ms  p90 ${s.p90.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms`)
    }
    console.log(
      `added to an UPDATE (p50): webhook ${added.webhook.toFixed(2)} ms, ValidatingAdmissionPolicy ${added.vap.toFixed(2)} ms; ` +
        `gap ${(added.webhook - added.vap).toFixed(2)} ms (goal <= ${GOAL_MS}); webhook process CPU ${webhookCpuMs.toFixed(3)} ms per write, ${idleCpuMsPerSec.toFixed(1)} ms/s when idle (user ${webhookUserMs.toFixed(3)}, system ${webhookSystemMs.toFixed(3)})`,
    )
    const r = (x: number): number => Math.round(x * 1000) / 1000
    console.log(
      JSON.stringify({
        bench: 'webhook-apiserver',
        requests_per_target: REQUESTS,
        plain_p50_ms: r(stats.plain.p50),
        webhook_p50_ms: r(stats.webhook.p50),
        vap_p50_ms: r(stats.vap.p50),
        webhook_added_ms: r(added.webhook),
        vap_added_ms: r(added.vap),
        gap_ms: r(added.webhook - added.vap),
        goal_ms: GOAL_MS,
        webhook_cpu_ms_per_write: r(webhookCpuMs),
        webhook_idle_cpu_ms_per_s: r(idleCpuMsPerSec),
        webhook_user_cpu_ms_per_write: r(webhookUserMs),
        webhook_system_cpu_ms_per_write: r(webhookSystemMs),
        plain_p99_ms: r(stats.plain.p99),
        webhook_p99_ms: r(stats.webhook.p99),
        vap_p99_ms: r(stats.vap.p99),
      }),
    )
  } finally {
    webhook?.kill('SIGTERM')
    await cp.stop()
  }
}

await main()
