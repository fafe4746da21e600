// Chart sources against real repositories: a chart repository made with the
// real `helm package` + `helm repo index` and served over HTTP with basic
// auth by this test, and the OCI registry built in test/cluster (basic auth,
// and the bearer token flow) with charts pushed by the real `helm push`. The
// auth Secret is a real Secret read back from the API server, as the
// reconciler will read it.

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { type AuthSecret, ChartSourceCode, ChartSourceError, createChartFetcher } from '../../src/helm/index.ts'
import { adminClient, freshNamespace } from './helpers/cluster.ts'
import {
  clusterBin as bin,
  helmTool,
  REPO_PASSWORD as PASSWORD,
  REPO_USER as USER,
  startChartServer,
  startRegistry,
} from './helpers/helm-repos.ts'

const tool = helmTool(t, 'ts-helm-sources')
const { work, helm, helmAsync } = tool
const helmEnv = tool.env

interface TestLike {
  teardown(fn: () => unknown): void
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

// Two real charts: `helm create` scaffolds, packaged by helm.
helm('create', 'demo')
helm('package', 'demo', '--version', '0.1.0', '-d', join(work, 'repo'))
helm('create', 'other')
helm('package', 'other', '--version', '1.2.3', '-d', join(work, 'repo'))
helm('repo', 'index', join(work, 'repo'))
const demoTgz = readFileSync(join(work, 'repo/demo-0.1.0.tgz'))
const indexYaml = readFileSync(join(work, 'repo/index.yaml'), 'utf8')

/** A chart repository: /good/ serves helm's own files, /tampered/ and /corrupt/ serve other bytes. */
async function startRepository(t: TestLike) {
  const repo = await startChartServer(t)
  const corrupt = demoTgz.subarray(0, 200)
  const routes: Record<string, Buffer> = {
    '/good/index.yaml': Buffer.from(indexYaml),
    '/good/demo-0.1.0.tgz': demoTgz,
    '/good/other-1.2.3.tgz': readFileSync(join(work, 'repo/other-1.2.3.tgz')),
    '/tampered/index.yaml': Buffer.from(indexYaml),
    '/tampered/demo-0.1.0.tgz': Buffer.concat([demoTgz, Buffer.from('appended')]),
    // The index announces the corrupt bytes' own digest: only loading can tell they are no chart.
    '/corrupt/index.yaml': Buffer.from(indexYaml.replace(sha256(demoTgz), sha256(corrupt))),
    '/corrupt/demo-0.1.0.tgz': corrupt,
  }
  for (const [path, body] of Object.entries(routes)) repo.files.set(path, body)
  return repo
}

function failure(p: Promise<unknown>): Promise<ChartSourceError> {
  return p.then(
    () => {
      throw new Error('the fetch succeeded')
    },
    (err: unknown) => {
      if (err instanceof ChartSourceError) return err
      throw err
    },
  )
}

/** A real Secret in a fresh namespace, read back: what the reconciler will pass in. */
async function authSecret(t: TestLike, name: string, stringData: Record<string, string>): Promise<AuthSecret> {
  const client = adminClient()
  const ns = await freshNamespace(t, client, 'helm-src')
  await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData },
  })
  const secret = (await client.request('GET', `/api/v1/namespaces/${ns}/secrets/${name}`)) as { data: Record<string, string> }
  return { name, data: secret.data }
}

t.test('an HTTP chart repository made by helm', async (t) => {
  const repo = await startRepository(t)
  const auth = await authSecret(t, 'repo-auth', { username: USER, password: PASSWORD })
  const fetcher = createChartFetcher()
  const demo = { url: `${repo.url}/good`, name: 'demo', version: '0.1.0' }

  t.test('the real helm pulls from it (so it is a real chart repository)', async (t) => {
    mkdirSync(join(work, 'pulled'))
    await helmAsync(
      'pull',
      'demo',
      '--repo',
      `${repo.url}/good`,
      '--version',
      '0.1.0',
      '--username',
      USER,
      '--password',
      PASSWORD,
      '-d',
      join(work, 'pulled'),
    )
    t.ok(readFileSync(join(work, 'pulled/demo-0.1.0.tgz')).equals(demoTgz))
  })

  t.test('success: resolved through index.yaml, digest verified, chart loaded', async (t) => {
    const got = await fetcher.fetchChart({ repository: demo, helm: 'v3', auth })
    t.equal(got.chart.metadata.name, 'demo')
    t.equal(got.chart.metadata.version, '0.1.0')
    t.equal(got.digest, `sha256:${sha256(demoTgz)}`)
    t.ok(indexYaml.includes(sha256(demoTgz)), 'helm repo index wrote the digest that was checked')
    t.ok(got.chart.templates.some((f) => f.name === 'templates/deployment.yaml'))
    t.equal(got.cached, false)
  })

  t.test('cache hit: the same reference makes no request', async (t) => {
    const before = repo.requests.length
    const again = await fetcher.fetchChart({ repository: demo, helm: 'v3', auth })
    t.equal(again.cached, true)
    t.equal(repo.requests.length, before)
  })

  t.test('another chart of the same repository is fetched', async (t) => {
    const got = await fetcher.fetchChart({ repository: { ...demo, name: 'other', version: '1.2.3' }, helm: 'v4', auth })
    t.equal(got.chart.metadata.name, 'other')
  })

  t.test('wrong credentials', async (t) => {
    const wrong = await authSecret(t, 'wrong-auth', { username: USER, password: 'not-the-password' })
    const err = await failure(fetcher.fetchChart({ repository: demo, helm: 'v3', auth: wrong }))
    t.equal(err.code, ChartSourceCode.Unauthorized)
    t.equal(err.condition, 'SourceAccessible')
    t.match(err.message, new RegExp(`^${repo.url}/good chart demo version 0\\.1\\.0: .*unauthorized \\(HTTP 401\\)`))
    t.notMatch(err.message, /not-the-password|hunter2|Basic /)
  })

  t.test('missing version and unknown chart', async (t) => {
    const version = await failure(fetcher.fetchChart({ repository: { ...demo, version: '9.9.9' }, helm: 'v3', auth }))
    t.equal(version.code, ChartSourceCode.VersionNotFound)
    t.equal(version.condition, 'Valid')
    t.match(version.message, /no version 9\.9\.9 of demo \(newest: 0\.1\.0\)/)
    const chart = await failure(fetcher.fetchChart({ repository: { ...demo, name: 'nope' }, helm: 'v3', auth }))
    t.equal(chart.code, ChartSourceCode.ChartNotFound)
  })

  t.test('digest mismatch', async (t) => {
    const err = await failure(fetcher.fetchChart({ repository: { ...demo, url: `${repo.url}/tampered` }, helm: 'v3', auth }))
    t.equal(err.code, ChartSourceCode.DigestMismatch)
    t.equal(err.condition, 'Valid')
  })

  t.test('corrupt archive', async (t) => {
    const err = await failure(fetcher.fetchChart({ repository: { ...demo, url: `${repo.url}/corrupt` }, helm: 'v3', auth }))
    t.equal(err.code, ChartSourceCode.BadArchive)
    t.equal(err.condition, 'Valid')
    t.match(err.message, /chart demo version 0\.1\.0: the chart archive does not load: chart archive is not a valid gzip stream/)
  })

  t.test('unreachable repository', async (t) => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const err = await failure(fetcher.fetchChart({ repository: { ...demo, url: `http://127.0.0.1:${port}/charts` }, helm: 'v3', auth }))
    t.equal(err.code, ChartSourceCode.Unreachable)
    t.equal(err.condition, 'SourceAccessible')
    t.match(err.message, /ECONNREFUSED/)
  })
})

t.test('an OCI registry with basic auth, charts pushed by helm', async (t) => {
  const reg = await startRegistry(t, 'basic')
  helm('push', join(work, 'repo/demo-0.1.0.tgz'), `oci://${reg.host}/charts`, '--plain-http', '--username', USER, '--password', PASSWORD)
  const auth = await authSecret(t, 'oci-auth', { username: USER, password: PASSWORD })
  const fetcher = createChartFetcher({ plainHttpRegistries: [reg.host] })
  const demo = { url: `oci://${reg.host}/charts`, name: 'demo', version: '0.1.0' }

  t.test('success, then a cache hit that asks the registry nothing', async (t) => {
    const got = await fetcher.fetchChart({ repository: demo, helm: 'v4', auth })
    t.equal(got.chart.metadata.name, 'demo')
    t.equal(got.digest, `sha256:${sha256(demoTgz)}`, 'helm push stores the packaged archive as the chart layer')
    const before = await reg.stats()
    const again = await fetcher.fetchChart({ repository: demo, helm: 'v4', auth })
    t.equal(again.cached, true)
    t.same(await reg.stats(), before)
  })

  t.test('wrong credentials and no credentials', async (t) => {
    const wrong = await authSecret(t, 'wrong', { username: USER, password: 'nope-password' })
    const err = await failure(fetcher.fetchChart({ repository: demo, helm: 'v4', auth: wrong }))
    t.equal(err.code, ChartSourceCode.Unauthorized)
    t.notMatch(err.message, /nope-password|hunter2/)
    const anonymous = await failure(fetcher.fetchChart({ repository: demo, helm: 'v4' }))
    t.equal(anonymous.code, ChartSourceCode.Unauthorized)
  })

  t.test('missing version and unknown chart', async (t) => {
    const version = await failure(fetcher.fetchChart({ repository: { ...demo, version: '0.2.0' }, helm: 'v4', auth }))
    t.equal(version.code, ChartSourceCode.VersionNotFound)
    t.match(
      version.message,
      new RegExp(`^oci://${reg.host}/charts chart demo version 0\\.2\\.0: the registry has no tag 0\\.2\\.0 in charts/demo`),
    )
    const chart = await failure(fetcher.fetchChart({ repository: { ...demo, name: 'absent' }, helm: 'v4', auth }))
    t.equal(chart.code, ChartSourceCode.ChartNotFound)
  })

  t.test('a manifest whose chart layer is not a chart archive', async (t) => {
    const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
    const base = `http://${reg.host}/v2/charts/broken`
    const put = async (url: string, body: Buffer, type: string) => {
      const res = await fetch(url, { method: 'PUT', body, headers: { authorization: basic, 'content-type': type } })
      if (res.status >= 300) throw new Error(`PUT ${url}: ${res.status} ${await res.text()}`)
    }
    const upload = async (blob: Buffer) => {
      const start = await fetch(`${base}/blobs/uploads/`, { method: 'POST', headers: { authorization: basic } })
      const location = new URL(start.headers.get('location') ?? '', `http://${reg.host}`)
      location.searchParams.set('digest', `sha256:${sha256(blob)}`)
      await put(location.toString(), blob, 'application/octet-stream')
      return { digest: `sha256:${sha256(blob)}`, size: blob.length }
    }
    const config = await upload(Buffer.from('{"name":"broken","version":"1.0.0","apiVersion":"v2"}'))
    const layer = await upload(Buffer.from('this is not gzip'))
    const manifest = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', ...config },
      layers: [{ mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', ...layer }],
    }
    await put(`${base}/manifests/1.0.0`, Buffer.from(JSON.stringify(manifest)), 'application/vnd.oci.image.manifest.v1+json')
    const err = await failure(fetcher.fetchChart({ repository: { ...demo, name: 'broken', version: '1.0.0' }, helm: 'v4', auth }))
    t.equal(err.code, ChartSourceCode.BadArchive)
    t.match(err.message, /not gzip-compressed/)
  })

  t.test('unreachable registry', async (t) => {
    const dead = createChartFetcher({ plainHttpRegistries: ['127.0.0.1:9'], timeoutMs: 5000 })
    const err = await failure(dead.fetchChart({ repository: { ...demo, url: 'oci://127.0.0.1:9/charts' }, helm: 'v4', auth }))
    t.equal(err.code, ChartSourceCode.Unreachable)
  })
})

t.test('an OCI registry with the bearer token flow, credentials from .dockerconfigjson', async (t) => {
  const reg = await startRegistry(t, 'bearer')
  helm(
    'push',
    join(work, 'repo/other-1.2.3.tgz'),
    `oci://${reg.host}/team/charts`,
    '--plain-http',
    '--username',
    USER,
    '--password',
    PASSWORD,
  )
  const dockerconfig = JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } } })
  const auth = await authSecret(t, 'pull-secret', { '.dockerconfigjson': dockerconfig })
  const fetcher = createChartFetcher({ plainHttpRegistries: [reg.host] })
  const other = { url: `oci://${reg.host}/team/charts`, name: 'other', version: '1.2.3' }
  // Both real Helm majors pull through the same token flow.
  for (const [binary, dir] of [
    ['helm', 'pulled-v3'],
    ['helm4', 'pulled-v4'],
  ] as const) {
    mkdirSync(join(work, dir))
    execFileSync(
      bin(binary),
      [
        'pull',
        `oci://${reg.host}/team/charts/other`,
        '--version',
        '1.2.3',
        '--plain-http',
        '--username',
        USER,
        '--password',
        PASSWORD,
        '-d',
        join(work, dir),
      ],
      {
        env: helmEnv,
        stdio: 'ignore',
      },
    )
    t.ok(existsSync(join(work, dir, 'other-1.2.3.tgz')), `${binary} pulled the chart`)
  }
  const got = await fetcher.fetchChart({ repository: other, helm: 'v3', auth })
  t.equal(got.chart.metadata.name, 'other')
  t.equal(got.chart.metadata.version, '1.2.3')
  const wrongConfig = JSON.stringify({ auths: { [reg.host]: { username: USER, password: 'bad-token-pw' } } })
  const wrong = await authSecret(t, 'bad-pull-secret', { '.dockerconfigjson': wrongConfig })
  const err = await failure(fetcher.fetchChart({ repository: other, helm: 'v3', auth: wrong }))
  t.equal(err.code, ChartSourceCode.Unauthorized)
  t.match(err.message, /registry token .*unauthorized \(HTTP 401\)/)
  t.notMatch(err.message, /bad-token-pw|hunter2/)
})
