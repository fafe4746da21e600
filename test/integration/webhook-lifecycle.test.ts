// The webhook process as the CLI runs it: flags in, readiness after the caches
// sync, and on SIGTERM readiness false first, admission still answered during
// the drain, then a clean exit. Start failures end with a non-zero code.

import t from 'tap'
import { spawn } from 'node:child_process'
import { Agent, request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import pino from 'pino'
import { adminClient, clusterInfo, eventually, mountedServingCert } from './helpers/cluster.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { runWebhook } from '../../src/webhook/main.ts'

const admin = adminClient()
t.teardown(() => admin.close())
for (const crd of crdManifests()) {
  try {
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 409)) throw e
  }
}

const pair = mountedServingCert(['127.0.0.1'])
const certDir = pair.certDir

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'lifecycle-1',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    operation: 'UPDATE',
    userInfo: { username: 'jane' },
    namespace: 'default',
    name: 'x',
    object: { metadata: { name: 'x' } },
    oldObject: { metadata: { name: 'x' } },
  },
})

const agent = new Agent({ keepAlive: true, ca: pair.ca })
t.teardown(() => agent.destroy())

function validate(url: string): Promise<{ status: number; connection: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${url}/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection ?? '') }))
    })
    req.on('error', reject)
    req.end(review)
  })
}

t.test('SIGTERM: readiness drops first, admission is answered through the drain, then a clean exit', async (t) => {
  const script = `
    const { runWebhook } = await import(${JSON.stringify(new URL('../../src/webhook/main.ts', import.meta.url).href)})
    process.exitCode = await runWebhook({ argv: process.argv.slice(1), env: process.env })
  `
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      script,
      '--',
      '--kubeconfig',
      clusterInfo().kubeconfig,
      '--cert-dir',
      certDir,
      '--listen-address',
      '127.0.0.1',
      '--port',
      '0',
      '--health-port',
      '0',
      '--drain-seconds',
      '2',
      '--operator-usernames',
      'system:serviceaccount:template-sync:reconciler',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const lines: Record<string, unknown>[] = []
  let buffered = ''
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString('utf8')
    const parts = buffered.split('\n')
    buffered = parts.pop() ?? ''
    for (const p of parts) if (p) lines.push(JSON.parse(p) as Record<string, unknown>)
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const listening = await eventually(
    'listening line',
    async () => lines.find((l) => l.msg === 'webhook listening; waiting for caches to sync'),
    30_000,
  )
  const url = String(listening.url)
  const health = String(listening.health)
  await eventually('ready', async () => ((await fetch(`${health}/readyz`)).status === 200 ? true : undefined), 30_000)
  const before = await validate(url)
  t.equal(before.status, 200, 'admission answered while ready')
  t.not(before.connection, 'close', 'connections are kept alive while ready')

  child.kill('SIGTERM')
  await eventually('readiness false', async () => ((await fetch(`${health}/readyz`)).status === 503 ? true : undefined), 1_500, 20)
  const body = await (await fetch(`${health}/readyz`)).text()
  t.match(body, /shutting down/)
  const draining = await validate(url)
  t.equal(draining.status, 200, 'admission still answered during the drain')
  t.equal(draining.connection, 'close', 'and the caller is told not to reuse the connection')
  t.equal(await exited, 0, 'clean exit after the drain')
  t.ok(lines.some((l) => l.msg === 'signal received; shutting down'))
  t.ok(lines.some((l) => l.msg === 'webhook stopped'))
  await t.rejects(validate(url), 'the listener is closed')
})

t.test('start failures end with a non-zero exit code', async (t) => {
  const log = pino({ level: 'silent' })
  t.equal(await runWebhook({ argv: ['--port', 'https'], env: {}, log, handleSignals: false }), 2, 'invalid settings')
  t.equal(
    await runWebhook({
      argv: ['--kubeconfig', clusterInfo().kubeconfig, '--cert-dir', join(pair.dir, 'missing'), '--port', '0', '--health-port', '0'],
      env: {},
      log,
      handleSignals: false,
    }),
    1,
    'no serving certificate',
  )
  t.equal(
    await runWebhook({ argv: ['--kubeconfig', join(pair.dir, 'no-kubeconfig')], env: {}, log, handleSignals: false }),
    1,
    'no kubeconfig',
  )
})

t.test('runWebhook stops when its server is shut down', async (t) => {
  let stop: (() => Promise<void>) | undefined
  const run = runWebhook({
    argv: [
      '--kubeconfig',
      clusterInfo().kubeconfig,
      '--cert-dir',
      certDir,
      '--listen-address',
      '127.0.0.1',
      '--port',
      '0',
      '--health-port',
      '0',
      '--drain-seconds',
      '0',
    ],
    env: {},
    log: pino({ level: 'silent' }),
    handleSignals: false,
    onStarted: (server) => {
      stop = server.shutdown
    },
  })
  await eventually('started', async () => stop)
  await stop?.()
  t.equal(await run, 0)
})
