import t from 'tap'
import type { RequestOptions } from 'node:https'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inClusterAvailable, inClusterConfig } from '../../src/kube/incluster.ts'

const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }

function saDir(token: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'))
  writeFileSync(join(dir, 'token'), `${token}\n`)
  writeFileSync(join(dir, 'ca.crt'), 'CA PEM')
  return dir
}

t.test('builds the server URL, CA and bearer token from the Pod environment', async (t) => {
  const dir = saDir('first')
  t.ok(inClusterAvailable(env, dir))
  t.notOk(inClusterAvailable({}, dir), 'not in a cluster without the service environment')
  const cfg = inClusterConfig(env, dir)
  t.same(cfg.getCurrentCluster(), { server: 'https://10.96.0.1:443' })
  const opts: RequestOptions = { headers: { Accept: 'application/json' } }
  await cfg.applyToHTTPSOptions(opts)
  t.equal(opts.ca, 'CA PEM')
  t.same(opts.headers, { Accept: 'application/json', Authorization: 'Bearer first' })
  t.same(
    inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir).getCurrentCluster(),
    { server: 'https://[fd00::1]:443' },
    'IPv6 host bracketed',
  )
})

t.test('re-reads a rotated token after a minute, not on every request', async (t) => {
  const dir = saDir('old')
  let now = 0
  const cfg = inClusterConfig(env, dir, () => now)
  writeFileSync(join(dir, 'token'), 'new\n')
  const auth = async (): Promise<unknown> => {
    const o: { headers?: Record<string, string> } = {}
    await cfg.applyToHTTPSOptions(o)
    return o.headers?.Authorization
  }
  now = 30_000
  t.equal(await auth(), 'Bearer old', 'cached within the minute')
  now = 61_000
  t.equal(await auth(), 'Bearer new', 'rotated token picked up')
})

t.test('outside a cluster it says why', async (t) => {
  t.throws(() => inClusterConfig({}, '/nonexistent'), /KUBERNETES_SERVICE_HOST/)
})
