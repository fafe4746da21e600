// Chart sources without a network: index parsing and version resolution,
// chart URL resolution, OCI references, manifests and challenges, auth
// Secrets, the caches, and the fetcher driven through an injected fetch.

import { createHash } from 'node:crypto'
import t from 'tap'
import { ChartSourceCode, type ChartSourceError, conditionOf, createChartFetcher, type FetchFn } from '../../src/helm/index.ts'
import { credentialsFingerprint, credentialsFromSecret } from '../../src/helm/source/auth.ts'
import { LruCache } from '../../src/helm/source/cache.ts'
import { chartLayer, ociReference, parseChallenge } from '../../src/helm/source/oci.ts'
import { findChartVersion, parseRepositoryIndex, resolveChartUrl } from '../../src/helm/source/repo-index.ts'
import { TokenCache } from '../../src/helm/source/tokens.ts'
import { chartTgz } from './helm-fixtures.ts'

const ref = { url: 'https://charts.example.test/stable', name: 'demo', version: '0.1.0' }
const b64 = (s: string) => Buffer.from(s).toString('base64')
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex')

t.test('index.yaml: YAML or JSON, invalid entries dropped, newest first, exact then SemVer-equal versions', async (t) => {
  const yaml = [
    'apiVersion: v1',
    'entries:',
    '  demo:',
    '  - {name: demo, version: 0.9.0, urls: [demo-0.9.0.tgz]}',
    '  - {name: demo, version: 1.0.0, urls: [demo-1.0.0.tgz], digest: ABCDEF}',
    '  - {name: demo, version: not-semver, urls: [x.tgz]}',
    '  - {name: demo, urls: [no-version.tgz]}',
    '  - ~',
    '  - {name: demo, version: 1.0.0-rc.1, urls: [rc.tgz]}',
  ].join('\n')
  const index = parseRepositoryIndex(Buffer.from(yaml))
  t.same(
    index.entries.get('demo')?.map((e) => e.version),
    ['1.0.0', '1.0.0-rc.1', '0.9.0'],
  )
  const hit = findChartVersion(index, 'demo', '1.0.0')
  t.ok(hit.found && hit.entry.digest === 'abcdef' && hit.entry.urls[0] === 'demo-1.0.0.tgz')
  t.match(findChartVersion(index, 'demo', 'v1.0.0'), { found: true, entry: { version: '1.0.0' } }, 'a leading v finds the version')
  t.match(findChartVersion(index, 'demo', '2.0.0'), { found: false, reason: 'no-version', available: ['1.0.0', '1.0.0-rc.1', '0.9.0'] })
  t.match(findChartVersion(index, 'other', '1.0.0'), { found: false, reason: 'no-chart' })
  const json = parseRepositoryIndex(
    Buffer.from(JSON.stringify({ apiVersion: 'v1', entries: { demo: [{ name: 'demo', version: '1.2.3', urls: ['a.tgz'] }] } })),
  )
  t.match(findChartVersion(json, 'demo', '1.2.3'), { found: true })
  t.throws(() => parseRepositoryIndex(Buffer.from('entries: {}\n')), /no API version specified/)
  t.throws(() => parseRepositoryIndex(Buffer.from('')), /empty/)
  t.throws(() => parseRepositoryIndex(Buffer.from('<html>oops</html>\n: [')), /not valid YAML/)
})

t.test('chart URLs: relative to the repository with a trailing slash and its query, absolute as they are', async (t) => {
  t.equal(resolveChartUrl('https://h.test/charts', 'demo-1.0.0.tgz'), 'https://h.test/charts/demo-1.0.0.tgz')
  t.equal(resolveChartUrl('https://h.test/charts/', 'sub/demo.tgz'), 'https://h.test/charts/sub/demo.tgz')
  t.equal(resolveChartUrl('https://h.test/charts?sig=1', 'demo.tgz'), 'https://h.test/charts/demo.tgz?sig=1')
  t.equal(resolveChartUrl('https://h.test/charts', '/root/demo.tgz'), 'https://h.test/root/demo.tgz')
  t.equal(resolveChartUrl('https://h.test/charts', 'https://cdn.test/demo.tgz'), 'https://cdn.test/demo.tgz')
  t.equal(resolveChartUrl('https://h.test/charts', 'index.yaml'), 'https://h.test/charts/index.yaml')
})

t.test('OCI references as Helm builds them', async (t) => {
  t.same(ociReference('oci://registry.test:5000/charts/', 'demo', '1.0.0+build.1'), {
    registry: 'registry.test:5000',
    repository: 'charts/demo',
    tag: '1.0.0_build.1',
  })
  t.same(ociReference('oci://registry.test', 'demo', 'v1.0.0'), { registry: 'registry.test', repository: 'demo', tag: 'v1.0.0' })
  t.throws(() => ociReference('oci://registry.test/Charts', 'demo', '1.0.0'), /not a valid OCI repository name/)
  t.throws(() => ociReference('oci:///charts', 'demo', '1.0.0'), /not a host/)
})

t.test('OCI manifests: the Helm chart layer, or a clear reason why there is none', async (t) => {
  const d = (c: string) => `sha256:${c.repeat(64)}`
  const manifest = (layers: unknown[], configType = 'application/vnd.cncf.helm.config.v1+json') =>
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: configType, digest: d('c'), size: 10 },
        layers,
      }),
    )
  const chart = { mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', digest: d('a'), size: 123 }
  const prov = { mediaType: 'application/vnd.cncf.helm.chart.provenance.v1.prov', digest: d('b'), size: 5 }
  t.same(chartLayer(manifest([prov, chart])), chart)
  t.same(chartLayer(manifest([{ ...chart, mediaType: 'application/tar+gzip' }])).mediaType, 'application/tar+gzip')
  t.throws(() => chartLayer(manifest([prov])), /no layer of media type application\/vnd.cncf.helm.chart.content.v1.tar\+gzip/)
  t.throws(() => chartLayer(manifest([chart], 'application/vnd.oci.image.config.v1+json')), /not a Helm chart/)
  t.throws(() => chartLayer(manifest([{ ...chart, digest: 'md5:x' }])), /layer 0 has no sha256 digest/)
  t.throws(() => chartLayer(Buffer.from('nope')), /not JSON/)
})

t.test('WWW-Authenticate challenges', async (t) => {
  t.same(parseChallenge('Bearer realm="https://auth.test/token",service="registry.test",scope="repository:charts/demo:pull"'), {
    scheme: 'bearer',
    realm: 'https://auth.test/token',
    service: 'registry.test',
    scope: 'repository:charts/demo:pull',
  })
  t.same(parseChallenge('Basic realm="x"'), { scheme: 'basic' })
  t.equal(parseChallenge('Bearer service="x"'), undefined, 'a Bearer challenge without realm is unusable')
  t.equal(parseChallenge('Negotiate'), undefined)
  t.equal(parseChallenge(null), undefined)
})

t.test('auth Secrets: username/password, .dockerconfigjson for the host, errors that name keys only', async (t) => {
  const secret = (data: Record<string, string>) => ({ name: 'repo-auth', data })
  t.same(credentialsFromSecret(secret({ username: b64('u'), password: b64('p') }), 'h.test', ref), { username: 'u', password: 'p' })
  const docker = JSON.stringify({ auths: { 'https://other.test': { auth: b64('x:y') }, 'registry.test:5000': { auth: b64('bob:pa:ss') } } })
  t.same(credentialsFromSecret(secret({ '.dockerconfigjson': b64(docker) }), 'registry.test:5000', ref), {
    username: 'bob',
    password: 'pa:ss',
  })
  t.same(
    credentialsFromSecret(secret({ username: b64('u'), password: b64('p'), '.dockerconfigjson': b64(docker) }), 'registry.test:5000', ref),
    { username: 'u', password: 'p' },
    'username/password win over .dockerconfigjson',
  )
  t.equal(credentialsFromSecret(undefined, 'h.test', ref), undefined)
  const failures: [Record<string, string>, RegExp][] = [
    [{ token: b64('t0k3n-value') }, /neither the keys username and password nor \.dockerconfigjson/],
    [{ username: 'not base64!', password: b64('hunter2') }, /key username is not base64/],
    [{ '.dockerconfigjson': b64('{"auths":{}}') }, /no entry for registry h\.test/],
    [{ '.dockerconfigjson': b64('hunter2-not-json') }, /is not JSON/],
  ]
  for (const [data, want] of failures) {
    const err = t.throws(() => credentialsFromSecret(secret(data), 'h.test', ref)) as ChartSourceError
    t.equal(err.code, ChartSourceCode.InvalidAuthSecret)
    t.match(err.message, want)
    t.notMatch(err.message, /hunter2|t0k3n/, 'no secret value in the message')
  }
  const fp = credentialsFingerprint({ username: 'u', password: 'hunter2' })
  t.notMatch(fp, /hunter2/)
  t.not(fp, credentialsFingerprint({ username: 'u', password: 'hunter3' }))
})

t.test('the LRU cache evicts by count and by bytes, and keeps nothing larger than its bound', async (t) => {
  const c = new LruCache<string, string>({ maxEntries: 2, maxBytes: 10 })
  c.set('a', 'A', 4)
  c.set('b', 'B', 4)
  t.equal(c.get('a'), 'A', 'touching a makes b the oldest')
  c.set('c', 'C', 4)
  t.equal(c.get('b'), undefined)
  t.same([c.get('a'), c.get('c'), c.size, c.bytes], ['A', 'C', 2, 8])
  c.set('d', 'D', 11)
  t.equal(c.get('d'), undefined)
  c.set('e', 'E', 9)
  t.same([c.size, c.bytes, c.get('e')], [1, 9, 'E'])
})

t.test('registry tokens expire with the clock', async (t) => {
  let now = 1_000_000
  const tokens = new TokenCache({ now: () => now })
  tokens.put('k', 'tok', 60)
  now += 49_000
  t.equal(tokens.get('k'), 'tok')
  now += 2_000
  t.equal(tokens.get('k'), undefined, 'given up 10 s before it would expire')
})

t.test('conditions: reachability problems on SourceAccessible, wrong references and bad charts on Valid', async (t) => {
  t.equal(conditionOf(ChartSourceCode.Unreachable), 'SourceAccessible')
  t.equal(conditionOf(ChartSourceCode.Unauthorized), 'SourceAccessible')
  t.equal(conditionOf(ChartSourceCode.ChartNotFound), 'Valid')
  t.equal(conditionOf(ChartSourceCode.VersionNotFound), 'Valid')
  t.equal(conditionOf(ChartSourceCode.BadArchive), 'Valid')
  t.equal(conditionOf(ChartSourceCode.DigestMismatch), 'Valid')
})

/** A fake HTTP server: routes by URL, records every request. */
function fakeFetch(routes: Record<string, (headers: Record<string, string>) => Response>) {
  const calls: { url: string; headers: Record<string, string> }[] = []
  const fetch: FetchFn = async (url, init) => {
    calls.push({ url, headers: init.headers })
    const route = routes[url]
    if (route === undefined) return new Response('not found', { status: 404 })
    return route(init.headers)
  }
  return { fetch, calls }
}

const archive = chartTgz()
const indexFor = (digest: string, url = 'demo-0.1.0.tgz') =>
  `apiVersion: v1\nentries:\n  demo:\n  - {apiVersion: v2, name: demo, version: 0.1.0, urls: [${url}], digest: ${digest}}\n`

t.test('the fetcher: download, verify, load; a second request is served from memory', async (t) => {
  const { fetch, calls } = fakeFetch({
    'https://charts.example.test/stable/index.yaml': () => new Response(indexFor(hex(archive))),
    'https://charts.example.test/stable/demo-0.1.0.tgz': () => new Response(archive),
  })
  const fetcher = createChartFetcher({ fetch })
  const first = await fetcher.fetchChart({ repository: ref, helm: 'v3' })
  t.equal(first.chart.metadata.name, 'demo')
  t.equal(first.digest, `sha256:${hex(archive)}`)
  t.equal(first.cached, false)
  t.equal(calls.length, 2)
  const second = await fetcher.fetchChart({ repository: ref, helm: 'v3' })
  t.equal(second.cached, true)
  t.equal(second.chart, first.chart, 'the same frozen chart object')
  const v4 = await fetcher.fetchChart({ repository: ref, helm: 'v4' })
  t.equal(v4.cached, true, 'another Helm major reloads from the cached archive')
  t.equal(calls.length, 2, 'no request after the first fetch')
  await t.rejects(fetcher.fetchChart({ repository: { ...ref, version: '0.2.0' }, helm: 'v3' }), { code: ChartSourceCode.VersionNotFound })
  t.equal(calls.length, 3, 'a changed version asks the repository again')
})

t.test('the fetcher: concurrent requests share one download', async (t) => {
  const { fetch, calls } = fakeFetch({
    'https://charts.example.test/stable/index.yaml': () => new Response(indexFor(hex(archive))),
    'https://charts.example.test/stable/demo-0.1.0.tgz': () => new Response(archive),
  })
  const fetcher = createChartFetcher({ fetch })
  const all = await Promise.all([1, 2, 3].map(() => fetcher.fetchChart({ repository: ref, helm: 'v3' })))
  t.same(
    all.map((r) => r.chart.metadata.name),
    ['demo', 'demo', 'demo'],
  )
  t.equal(calls.length, 2)
})

t.test('the fetcher: credentials go to the repository origin only and key the cache', async (t) => {
  const seen: string[] = []
  const { fetch } = fakeFetch({
    'https://charts.example.test/stable/index.yaml': (h) => {
      seen.push(`index ${h['authorization'] ?? '-'}`)
      return h['authorization'] === `Basic ${b64('u:hunter2')}`
        ? new Response(indexFor(hex(archive), 'https://cdn.example.test/demo.tgz'))
        : new Response('', { status: 401 })
    },
    'https://cdn.example.test/demo.tgz': (h) => {
      seen.push(`cdn ${h['authorization'] ?? '-'}`)
      return new Response(archive)
    },
  })
  const fetcher = createChartFetcher({ fetch })
  const auth = { name: 'repo-auth', data: { username: b64('u'), password: b64('hunter2') } }
  await fetcher.fetchChart({ repository: ref, helm: 'v3', auth })
  t.same(seen, [`index Basic ${b64('u:hunter2')}`, 'cdn -'], 'no Authorization header to the other host')
  const err = (await fetcher.fetchChart({ repository: ref, helm: 'v3' }).catch((e: unknown) => e)) as ChartSourceError
  t.equal(err.code, ChartSourceCode.Unauthorized, 'a cached chart is not handed to a caller without the credentials')
  t.equal(err.condition, 'SourceAccessible')
  const wrong = { name: 'repo-auth', data: { username: b64('u'), password: b64('wrong-hunter3') } }
  const err2 = (await fetcher.fetchChart({ repository: ref, helm: 'v3', auth: wrong }).catch((e: unknown) => e)) as ChartSourceError
  t.equal(err2.code, ChartSourceCode.Unauthorized)
  t.match(
    err2.message,
    /^https:\/\/charts\.example\.test\/stable chart demo version 0\.1\.0: fetching index\.yaml from .*: unauthorized \(HTTP 401\)$/,
  )
  t.notMatch(err2.message, /hunter|dTp|Basic/, 'no credential in the message')
})

t.test('the fetcher: digest mismatch, size limit, timeouts, unreachable hosts, and redirects', async (t) => {
  const tampered = Buffer.concat([archive, Buffer.from('x')])
  const mismatch = fakeFetch({
    'https://charts.example.test/stable/index.yaml': () => new Response(indexFor(hex(archive))),
    'https://charts.example.test/stable/demo-0.1.0.tgz': () => new Response(tampered),
  })
  await t.rejects(createChartFetcher({ fetch: mismatch.fetch }).fetchChart({ repository: ref, helm: 'v3' }), {
    code: ChartSourceCode.DigestMismatch,
    message: /has digest sha256:[0-9a-f]{64}, but sha256:[0-9a-f]{64} was announced/,
  })
  const big = fakeFetch({ 'https://charts.example.test/stable/index.yaml': () => new Response('x'.repeat(2000)) })
  await t.rejects(createChartFetcher({ fetch: big.fetch, maxMetadataBytes: 1000 }).fetchChart({ repository: ref, helm: 'v3' }), {
    code: ChartSourceCode.TooLarge,
    message: /index\.yaml is larger than the limit of 1000 bytes/,
  })
  const hanging: FetchFn = (_url, init) =>
    new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))))
  await t.rejects(createChartFetcher({ fetch: hanging, timeoutMs: 50 }).fetchChart({ repository: ref, helm: 'v3' }), {
    code: ChartSourceCode.Unreachable,
    message: /timed out after 50 ms/,
  })
  const refused: FetchFn = async () => {
    throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') })
  }
  const err = (await createChartFetcher({ fetch: refused })
    .fetchChart({ repository: ref, helm: 'v3' })
    .catch((e: unknown) => e)) as ChartSourceError
  t.equal(err.code, ChartSourceCode.Unreachable)
  t.equal(err.condition, 'SourceAccessible')
  t.match(err.message, /ECONNREFUSED/)
  const seen: string[] = []
  const redirect = fakeFetch({
    'https://charts.example.test/stable/index.yaml': (h) => {
      seen.push(h['authorization'] ?? '-')
      return new Response(null, { status: 302, headers: { location: 'https://mirror.example.test/index.yaml' } })
    },
    'https://mirror.example.test/index.yaml': (h) => {
      seen.push(h['authorization'] ?? '-')
      return new Response(indexFor(hex(archive), 'https://mirror.example.test/demo.tgz'))
    },
    'https://mirror.example.test/demo.tgz': () => new Response(archive),
  })
  const auth = { name: 'a', data: { username: b64('u'), password: b64('p') } }
  await createChartFetcher({ fetch: redirect.fetch }).fetchChart({ repository: ref, helm: 'v3', auth })
  t.same(seen, [`Basic ${b64('u:p')}`, '-'], 'the redirect to another origin loses the credentials')
})

t.test('the fetcher: references it refuses before any request', async (t) => {
  const { fetch, calls } = fakeFetch({})
  const f = createChartFetcher({ fetch })
  const bad: [Partial<typeof ref>, RegExp][] = [
    [{ url: 'https://user:hunter2@charts.example.test/' }, /carries credentials/],
    [{ url: 'ftp://charts.example.test/' }, /scheme ftp: is not http, https or oci/],
    [{ version: '^1.0.0' }, /not an exact SemVer version/],
    [{ version: 'latest' }, /not an exact SemVer version/],
  ]
  for (const [change, want] of bad) {
    const err = (await f.fetchChart({ repository: { ...ref, ...change }, helm: 'v3' }).catch((e: unknown) => e)) as ChartSourceError
    t.equal(err.code, ChartSourceCode.InvalidReference)
    t.match(err.message, want)
    t.notMatch(err.message, /hunter2/)
  }
  t.equal(calls.length, 0)
})

t.test('the fetcher over OCI: bearer challenge, token reuse until it expires, digest and size checks', async (t) => {
  const layerDigest = `sha256:${hex(archive)}`
  const manifest = (digest: string, size: number) =>
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: `sha256:${'c'.repeat(64)}`, size: 2 },
      layers: [{ mediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip', digest, size }],
    })
  let tokenRequests = 0
  let served = manifest(layerDigest, archive.length)
  const challenge = 'Bearer realm="https://auth.registry.test/token",service="registry.test",scope="repository:charts/demo:pull"'
  const guarded = (body: () => Response) => (h: Record<string, string>) =>
    h['authorization'] === 'Bearer t1' ? body() : new Response('{}', { status: 401, headers: { 'www-authenticate': challenge } })
  const { fetch, calls } = fakeFetch({
    'https://registry.test/v2/charts/demo/manifests/0.1.0': guarded(() => new Response(served)),
    'https://registry.test/v2/charts/demo/manifests/0.2.0': guarded(() => new Response(served)),
    [`https://registry.test/v2/charts/demo/blobs/${layerDigest}`]: guarded(() => new Response(archive)),
    'https://auth.registry.test/token?service=registry.test&scope=repository%3Acharts%2Fdemo%3Apull': (h) => {
      tokenRequests++
      return h['authorization'] === `Basic ${b64('u:p')}`
        ? new Response('{"token":"t1","expires_in":60}')
        : new Response('', { status: 401 })
    },
  })
  let now = 0
  const fetcher = createChartFetcher({ fetch, clock: { now: () => now } })
  const auth = { name: 'a', data: { username: b64('u'), password: b64('p') } }
  const repository = { url: 'oci://registry.test/charts', name: 'demo', version: '0.1.0' }
  const got = await fetcher.fetchChart({ repository, helm: 'v4', auth })
  t.equal(got.digest, layerDigest)
  t.equal(tokenRequests, 1)
  t.equal(calls.filter((c) => c.url.startsWith('https://auth.')).length, 1)
  t.notOk(
    calls.some((c) => c.url.startsWith('https://registry.test') && c.headers['authorization']?.startsWith('Basic')),
    'basic credentials go to the token service, not to the registry',
  )
  // A new version, same scope: the token is reused while it lives, then asked for again.
  served = manifest(layerDigest, archive.length + 1)
  await t.rejects(fetcher.fetchChart({ repository: { ...repository, version: '0.2.0' }, helm: 'v4', auth }), {
    code: ChartSourceCode.DigestMismatch,
    message: /the manifest says/,
  })
  t.equal(tokenRequests, 1)
  now += 60_000
  served = manifest(layerDigest, 999 * 1024 * 1024)
  await t.rejects(fetcher.fetchChart({ repository: { ...repository, version: '0.2.0' }, helm: 'v4', auth }), {
    code: ChartSourceCode.TooLarge,
  })
  t.equal(tokenRequests, 2, 'the expired token was replaced')
})

t.test('the fetcher over OCI: a token realm over plain HTTP is refused for an https registry', async (t) => {
  const { fetch, calls } = fakeFetch({
    'https://registry.test/v2/charts/demo/manifests/0.1.0': () =>
      new Response('{}', { status: 401, headers: { 'www-authenticate': 'Bearer realm="http://evil.test/token",service="x"' } }),
  })
  const auth = { name: 'a', data: { username: b64('u'), password: b64('p') } }
  await t.rejects(
    createChartFetcher({ fetch }).fetchChart({
      repository: { url: 'oci://registry.test/charts', name: 'demo', version: '0.1.0' },
      helm: 'v4',
      auth,
    }),
    {
      code: ChartSourceCode.BadRepository,
      message: /token realm http:\/\/evil\.test\/token is not https/,
    },
  )
  t.notOk(
    calls.some((c) => c.url.startsWith('http://evil.test')),
    'no request, so no credentials, to the plain-HTTP realm',
  )
})

t.test('a large repository index (40,000 versions, 1.2 million YAML values) parses', async (t) => {
  const lines = Array.from(
    { length: 40_000 },
    (_, i) =>
      `  - {apiVersion: v2, name: big, version: 1.0.${i}, urls: [big-1.0.${i}.tgz], created: 2024-01-01T00:00:00Z, maintainers: [{name: x, email: y}], keywords: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r]}`,
  )
  const index = parseRepositoryIndex(Buffer.from(`apiVersion: v1\nentries:\n  big:\n${lines.join('\n')}\n`))
  t.equal(index.entries.get('big')?.length, 40_000)
  t.match(findChartVersion(index, 'big', '1.0.39999'), { found: true, entry: { urls: ['big-1.0.39999.tgz'] } })
  t.equal(index.entries.get('big')?.[0]?.version, '1.0.39999', 'newest first')
})
