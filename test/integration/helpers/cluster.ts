// Access to the control plane that test/cluster/run-with-cluster.ts started for
// this test run. A missing control plane is a hard failure, never a skip: an
// integration test must not pass without a real API server.

import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeClient } from '../../../src/kube/client.ts'
import { KubeApiError } from '../../../src/kube/errors.ts'

export interface ClusterInfo {
  server: string
  kubeconfig: string
  caCert: string
  caKey: string
  workDir: string
  control: string
}

export function clusterInfo(): ClusterInfo {
  const path = process.env.TEMPLATE_SYNC_TEST_CLUSTER
  if (!path) {
    throw new Error(
      'TEMPLATE_SYNC_TEST_CLUSTER is not set: run integration tests through "npm run test:integration" (test/cluster/run-with-cluster.ts)',
    )
  }
  return JSON.parse(readFileSync(path, 'utf8')) as ClusterInfo
}

export function adminClient(userAgent = 'template-sync-test'): KubeClient {
  return KubeClient.fromFile(clusterInfo().kubeconfig, userAgent)
}

export interface TestLike {
  teardown(fn: () => unknown): void
}

let seq = 0
/** Creates a namespace unique to this test and deletes it afterwards (not awaited to completion). */
export async function freshNamespace(t: TestLike, client: KubeClient, prefix = 'ts'): Promise<string> {
  const name = `${prefix}-${process.pid}-${Date.now().toString(36)}-${seq++}`.slice(0, 63)
  await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
  t.teardown(async () => {
    try {
      await client.request('DELETE', `/api/v1/namespaces/${name}`)
    } catch (e) {
      if (!(e instanceof KubeApiError && e.code === 404)) throw e
    }
  })
  return name
}

/** Issues a serving certificate signed by the test cluster's CA. */
export function issueServingCert(sans: readonly string[], days = 2): { cert: string; key: string; ca: string; dir: string } {
  const info = clusterInfo()
  const dir = mkdtempSync(join(tmpdir(), 'ts-cert-'))
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  }
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tls.key'])
  run(['req', '-new', '-key', 'tls.key', '-subj', '/CN=template-sync-webhook', '-out', 'tls.csr'])
  const san = sans.map((s) => (/^[0-9.]+$/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',')
  writeFileSync(join(dir, 'tls.ext'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`)
  run([
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    info.caCert,
    '-CAkey',
    info.caKey,
    '-CAcreateserial',
    '-CAserial',
    join(dir, 'ca.srl'),
    '-days',
    String(days),
    '-sha256',
    '-extfile',
    'tls.ext',
    '-out',
    'tls.crt',
  ])
  return {
    cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
    key: readFileSync(join(dir, 'tls.key'), 'utf8'),
    ca: readFileSync(info.caCert, 'utf8'),
    dir,
  }
}

/** A serving certificate as a webhook reads it: tls.crt and tls.key in `certDir` (a directory of their own, like a mounted Secret). */
export function mountedServingCert(sans: readonly string[]): ReturnType<typeof issueServingCert> & { certDir: string } {
  const pair = issueServingCert(sans)
  const certDir = join(pair.dir, 'mounted')
  mkdirSync(certDir)
  writeFileSync(join(certDir, 'tls.crt'), pair.cert)
  writeFileSync(join(certDir, 'tls.key'), pair.key)
  return { ...pair, certDir }
}

/** Polls until fn returns a value other than undefined, or fails with what it was waiting for. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: last error ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}

/** Asks the harness to restart kube-apiserver (etcd data kept). */
export async function restartApiServer(): Promise<void> {
  const res = await fetch(`${clusterInfo().control}/restart-apiserver`, { method: 'POST' })
  if (res.status !== 200) throw new Error(`restart-apiserver failed: ${res.status} ${await res.text()}`)
}
