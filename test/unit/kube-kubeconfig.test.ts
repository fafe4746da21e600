import t from 'tap'
import type { RequestOptions } from 'node:https'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { dump } from 'js-yaml'
import { KubeConfig } from '@kubernetes/client-node'
import { KubeconfigError, kubeconfigPaths, loadDefaultKubeconfig, loadKubeconfigFile, planKubeconfig } from '../../src/kube/kubeconfig.ts'
import type { ClusterConfig } from '../../src/kube/incluster.ts'

const b64 = (s: string): string => Buffer.from(s).toString('base64')
const SERVER = 'https://127.0.0.1:6443'

/** A kubeconfig with one context "ctx" joining cluster "c" and user "u". */
function kubeconfig(
  cluster: Record<string, unknown>,
  user: Record<string, unknown> | undefined,
  extra: Record<string, unknown> = {},
): string {
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: SERVER, ...cluster } }],
    users: user ? [{ name: 'u', user }] : [],
    contexts: [{ name: 'ctx', context: { cluster: 'c', ...(user ? { user: 'u' } : {}) } }],
    'current-context': 'ctx',
    ...extra,
  })
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'kubeconfig-'))
}

/** Writes `text` as `dir/kubeconfig` (a fresh directory unless given) and returns the path. */
function writeConfig(text: string, dir = tempDir()): string {
  const path = join(dir, 'kubeconfig')
  writeFileSync(path, text, { mode: 0o600 })
  return path
}

async function applied(cfg: ClusterConfig): Promise<RequestOptions & { headers: Record<string, string> }> {
  const opts: RequestOptions = { headers: { Accept: 'application/json' } }
  await cfg.applyToHTTPSOptions(opts)
  return opts as RequestOptions & { headers: Record<string, string> }
}

function light(path: string, now?: () => number): ClusterConfig {
  const loaded = loadKubeconfigFile(path, now)
  if (loaded.loader !== 'light') throw new Error(`expected the light loader, got the library: ${loaded.reason}`)
  return loaded.config
}

t.test('inline CA and client certificate: Buffers of the decoded data, verification on, no Authorization', async (t) => {
  const cfg = light(
    writeConfig(
      kubeconfig(
        { 'certificate-authority-data': b64('CA PEM') },
        { 'client-certificate-data': b64('CERT PEM'), 'client-key-data': b64('KEY PEM') },
      ),
    ),
  )
  t.same(cfg.getCurrentCluster(), { server: SERVER })
  const opts = await applied(cfg)
  t.equal(String(opts.ca), 'CA PEM')
  t.equal(String(opts.cert), 'CERT PEM')
  t.equal(String(opts.key), 'KEY PEM')
  t.equal(opts.rejectUnauthorized, true)
  t.equal(opts.servername, undefined)
  t.same(opts.headers, { Accept: 'application/json' })
})

t.test('file forms: relative paths are relative to the kubeconfig, not to the working directory', async (t) => {
  const dir = tempDir()
  mkdirSync(join(dir, 'certs'))
  writeFileSync(join(dir, 'ca.crt'), 'CA FROM FILE')
  writeFileSync(join(dir, 'certs', 'client.crt'), 'CERT FROM FILE')
  const keyDir = tempDir()
  writeFileSync(join(keyDir, 'client.key'), 'KEY FROM FILE')
  t.not(process.cwd(), dir)
  const path = writeConfig(
    kubeconfig(
      { 'certificate-authority': 'ca.crt' },
      { 'client-certificate': 'certs/client.crt', 'client-key': join(keyDir, 'client.key') },
    ),
    dir,
  )
  const opts = await applied(light(path))
  t.equal(String(opts.ca), 'CA FROM FILE')
  t.equal(String(opts.cert), 'CERT FROM FILE')
  t.equal(String(opts.key), 'KEY FROM FILE', 'absolute path used as is')
})

t.test('certificate files are read again after a minute, not per request', async (t) => {
  const dir = tempDir()
  writeFileSync(join(dir, 'client.crt'), 'OLD CERT')
  writeFileSync(join(dir, 'client.key'), 'OLD KEY')
  let now = 0
  const cfg = light(writeConfig(kubeconfig({}, { 'client-certificate': 'client.crt', 'client-key': 'client.key' }), dir), () => now)
  writeFileSync(join(dir, 'client.crt'), 'NEW CERT')
  writeFileSync(join(dir, 'client.key'), 'NEW KEY')
  now = 30_000
  t.equal(String((await applied(cfg)).cert), 'OLD CERT')
  now = 61_000
  const opts = await applied(cfg)
  t.equal(String(opts.cert), 'NEW CERT')
  t.equal(String(opts.key), 'NEW KEY')
})

t.test('an inline token becomes a bearer Authorization header beside the request headers', async (t) => {
  const opts = await applied(light(writeConfig(kubeconfig({ 'certificate-authority-data': b64('CA') }, { token: 'abc.def' }))))
  t.same(opts.headers, { Accept: 'application/json', Authorization: 'Bearer abc.def' })
  t.equal(String(opts.ca), 'CA')
})

t.test('tokenFile: relative to the kubeconfig, trimmed, re-read after a minute', async (t) => {
  const dir = tempDir()
  writeFileSync(join(dir, 'token'), 'first\n')
  let now = 0
  const cfg = light(writeConfig(kubeconfig({}, { tokenFile: 'token' }), dir), () => now)
  t.equal((await applied(cfg)).headers.Authorization, 'Bearer first')
  writeFileSync(join(dir, 'token'), '  second \n')
  now = 59_000
  t.equal((await applied(cfg)).headers.Authorization, 'Bearer first', 'cached within the minute')
  now = 61_000
  t.equal((await applied(cfg)).headers.Authorization, 'Bearer second', 'rotated token picked up')
})

t.test('tokenFile that is missing or empty fails at load, naming the file and not its contents', async (t) => {
  const dir = tempDir()
  const missing = writeConfig(kubeconfig({}, { tokenFile: 'nope' }), dir)
  t.throws(() => loadKubeconfigFile(missing), { message: `cannot read token file ${join(dir, 'nope')}: ENOENT` })
  writeFileSync(join(dir, 'empty'), ' \n')
  t.throws(() => loadKubeconfigFile(writeConfig(kubeconfig({}, { tokenFile: 'empty' }), dir)), /token file .*empty is empty/)
})

t.test('an inline token wins over tokenFile, as in client-go and the library', async (t) => {
  const opts = await applied(light(writeConfig(kubeconfig({}, { token: 'inline', tokenFile: '/nonexistent' }))))
  t.equal(opts.headers.Authorization, 'Bearer inline')
})

t.test('basic auth: username and password as a Basic Authorization header', async (t) => {
  const opts = await applied(light(writeConfig(kubeconfig({}, { username: 'alice', password: 's3cret' }))))
  t.equal(opts.headers.Authorization, `Basic ${b64('alice:s3cret')}`)
})

t.test('insecure-skip-tls-verify turns verification off; tls-server-name sets the SNI name', async (t) => {
  const insecure = await applied(light(writeConfig(kubeconfig({ 'insecure-skip-tls-verify': true }, { token: 'x' }))))
  t.equal(insecure.rejectUnauthorized, false)
  const named = await applied(light(writeConfig(kubeconfig({ 'tls-server-name': 'kubernetes.default' }, { token: 'x' }))))
  t.equal(named.servername, 'kubernetes.default')
  t.equal(named.rejectUnauthorized, true, 'a server name alone keeps verification on')
  const notTrue = await applied(light(writeConfig(kubeconfig({ 'insecure-skip-tls-verify': false }, { token: 'x' }))))
  t.equal(notTrue.rejectUnauthorized, true)
})

t.test('a context without a user: the CA only, no credentials; server trailing slash dropped', async (t) => {
  const cfg = light(writeConfig(kubeconfig({ server: `${SERVER}/`, 'certificate-authority-data': b64('CA') }, undefined)))
  t.same(cfg.getCurrentCluster(), { server: SERVER })
  const opts = await applied(cfg)
  t.equal(String(opts.ca), 'CA')
  t.same(opts.headers, { Accept: 'application/json' })
})

t.test('fields that change nothing about the connection are ignored, not a reason for the library', async (t) => {
  const plan = planKubeconfig(
    kubeconfig(
      { extensions: [{ name: 'x', extension: {} }], 'disable-compression': true },
      { token: 't', extensions: [] },
      { preferences: {} },
    ),
    'f',
  )
  t.equal(plan.kind, 'light')
})

t.test('the light loader sets what the library sets for the same file', async (t) => {
  const files: Record<string, string> = {
    inline: kubeconfig(
      { 'certificate-authority-data': b64('CA'), 'tls-server-name': 'api.example' },
      { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
    ),
    files: kubeconfig({ 'certificate-authority': 'ca.crt' }, { 'client-certificate': 'c.crt', 'client-key': 'c.key' }),
    token: kubeconfig({ 'insecure-skip-tls-verify': true }, { token: 'tok' }),
  }
  for (const [name, text] of Object.entries(files)) {
    const dir = tempDir()
    writeFileSync(join(dir, 'ca.crt'), 'CA FILE')
    writeFileSync(join(dir, 'c.crt'), 'CERT FILE')
    writeFileSync(join(dir, 'c.key'), 'KEY FILE')
    const path = writeConfig(text, dir)
    const lib = new KubeConfig()
    lib.loadFromFile(path)
    const theirs = await applied(lib)
    const ours = await applied(light(path))
    const pick = (o: RequestOptions & { headers: Record<string, string> }) => ({
      ca: o.ca === undefined ? undefined : String(o.ca),
      cert: o.cert === undefined ? undefined : String(o.cert),
      key: o.key === undefined ? undefined : String(o.key),
      servername: o.servername,
      authorization: o.headers.Authorization,
      // The library leaves verification to Node's default (on) unless the file turns it off.
      verify: o.rejectUnauthorized !== false,
    })
    t.same(pick(ours), pick(theirs), name)
  }
})

t.test('what only the library serves goes to it, with the reason', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['exec', kubeconfig({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' } }), /^user "u" uses exec$/],
    ['auth-provider', kubeconfig({}, { 'auth-provider': { name: 'oidc', config: {} } }), /^user "u" uses auth-provider$/],
    ['as', kubeconfig({}, { token: 't', as: 'bob' }), /^user "u" impersonates \(as\)$/],
    ['as-groups', kubeconfig({}, { token: 't', 'as-groups': ['g'] }), /^user "u" impersonates \(as-groups\)$/],
    ['proxy-url', kubeconfig({ 'proxy-url': 'http://proxy:3128' }, { token: 't' }), /^cluster "c" uses proxy-url$/],
    ['plain http', kubeconfig({ server: 'http://127.0.0.1:8080' }, undefined), /^cluster "c" server is plain http$/],
    [
      'both CA forms',
      kubeconfig({ 'certificate-authority': 'a', 'certificate-authority-data': b64('b') }, undefined),
      /both certificate-authority and certificate-authority-data/,
    ],
    [
      'both cert forms',
      kubeconfig({}, { 'client-certificate': 'a', 'client-certificate-data': 'b', 'client-key-data': 'c' }),
      /user "u" sets both client-certificate and/,
    ],
    ['token and basic', kubeconfig({}, { token: 't', username: 'a', password: 'b' }), /^user "u" sets both a token and a username$/],
    ['unknown user field', kubeconfig({}, { 'token-file': '/x' }), /^user "u" has field token-file that the light loader does not read$/],
    [
      'unknown cluster field',
      kubeconfig({ 'certificate-authority-dta': 'x' }, undefined),
      /^cluster "c" has field certificate-authority-dta/,
    ],
    [
      'wrong type',
      kubeconfig({ 'insecure-skip-tls-verify': 'true' }, undefined),
      /^cluster "c" field insecure-skip-tls-verify has an unexpected type$/,
    ],
    ['not a mapping', '- a\n- b\n', /not a YAML mapping/],
    ['clusters not a list', 'clusters: {a: 1}\ncurrent-context: x\n', /^clusters is not a list$/],
    ['entry without a name', 'users: [{user: {token: t}}]\ncurrent-context: x\n', /^users\[0\] has no name$/],
  ]
  for (const [name, text, reason] of cases) {
    const plan = planKubeconfig(text, '/k')
    t.equal(plan.kind, 'client-node', name)
    if (plan.kind === 'client-node') t.match(plan.reason, reason, name)
  }
})

t.test('a YAML syntax error goes to the library with the line, never the text', async (t) => {
  const plan = planKubeconfig('users:\n- name: u\n  user: {token: "hunter2-secret\n', '/k')
  t.equal(plan.kind, 'client-node')
  if (plan.kind === 'client-node') {
    t.match(plan.reason, /^the light loader cannot parse the YAML at line \d+$/)
    t.notMatch(plan.reason, /hunter2/)
  }
})

t.test('a file for the library loads it and serves the same context', async (t) => {
  const loaded = loadKubeconfigFile(writeConfig(kubeconfig({ 'proxy-url': 'http://proxy:3128' }, { token: 't' })))
  t.equal(loaded.loader, 'client-node')
  t.equal(loaded.reason, 'cluster "c" uses proxy-url')
  t.ok(loaded.config instanceof KubeConfig)
  t.equal(loaded.config.getCurrentCluster()?.server, SERVER)
})

t.test('errors name the file and the missing name', async (t) => {
  t.throws(() => loadKubeconfigFile('/nonexistent/kubeconfig'), {
    name: 'KubeconfigError',
    message: 'kubeconfig file /nonexistent/kubeconfig does not exist',
  })
  const plain = kubeconfig({}, { token: 't' })
  t.throws(
    () => planKubeconfig(plain.replace('current-context: ctx', ''), '/k'),
    new KubeconfigError('kubeconfig /k has no current-context'),
  )
  t.throws(
    () => planKubeconfig(plain.replace('current-context: ctx', 'current-context: other'), '/k'),
    new KubeconfigError('kubeconfig /k: current-context "other" names no context (contexts: "ctx")'),
  )
  t.throws(
    () => planKubeconfig(plain.replace('cluster: c', 'cluster: gone'), '/k'),
    new KubeconfigError('kubeconfig /k: context "ctx" names cluster "gone", which is not in the file (clusters: "c")'),
  )
  t.throws(
    () => planKubeconfig(plain.replace('user: u', 'user: nobody'), '/k'),
    new KubeconfigError('kubeconfig /k: context "ctx" names user "nobody", which is not in the file (users: "u")'),
  )
  t.throws(
    () => planKubeconfig(kubeconfig({ server: '' }, undefined), '/k'),
    new KubeconfigError('kubeconfig /k: cluster "c" has no server'),
  )
  t.throws(
    () => planKubeconfig(kubeconfig({ server: '127.0.0.1:6443' }, undefined), '/k'),
    new KubeconfigError('kubeconfig /k: cluster "c" server "127.0.0.1:6443" is not an https:// URL'),
  )
  t.throws(
    () => loadKubeconfigFile(writeConfig(kubeconfig({ 'certificate-authority-data': '!!!' }, undefined))),
    /certificate authority of cluster "c" data is not base64/,
  )
  t.throws(
    () => planKubeconfig(kubeconfig({}, { 'client-certificate-data': b64('C') }), '/k'),
    new KubeconfigError('kubeconfig /k: user "u" has a client certificate but no client key'),
  )
  t.throws(
    () => loadKubeconfigFile(writeConfig(kubeconfig({ 'certificate-authority': 'missing.crt' }, undefined))),
    /cannot read certificate authority of cluster "c" .*missing\.crt: ENOENT/,
  )
})

t.test('KUBECONFIG: several paths go to the library, one path or ~/.kube/config to the light loader', async (t) => {
  t.same(kubeconfigPaths(`a${delimiter}b`), ['a', 'b'])
  t.same(kubeconfigPaths(`a${delimiter}`), ['a'], 'empty entries dropped, as the library does')
  t.same(kubeconfigPaths(undefined), [])
  const one = writeConfig(kubeconfig({}, { token: 'from-env' }))
  t.equal(loadDefaultKubeconfig({ KUBECONFIG: one }).loader, 'light')
  const home = tempDir()
  mkdirSync(join(home, '.kube'))
  writeFileSync(join(home, '.kube', 'config'), kubeconfig({}, { token: 'from-home' }))
  const fromHome = loadDefaultKubeconfig({ HOME: home })
  t.equal(fromHome.loader, 'light')
  t.equal((await applied(fromHome.config)).headers.Authorization, 'Bearer from-home')
  t.throws(() => loadDefaultKubeconfig({ KUBECONFIG: '/nonexistent/kc' }), /kubeconfig file \/nonexistent\/kc does not exist/)

  // The library's loadFromDefault reads process.env itself.
  const two = `${one}${delimiter}${writeConfig(kubeconfig({}, { token: 'second' }).replaceAll('ctx', 'ctx2').replaceAll(': c\n', ': c2\n').replaceAll('name: u', 'name: u2').replace('user: u', 'user: u2'))}`
  const saved = process.env.KUBECONFIG
  process.env.KUBECONFIG = two
  t.teardown(() => {
    if (saved === undefined) delete process.env.KUBECONFIG
    else process.env.KUBECONFIG = saved
  })
  const merged = loadDefaultKubeconfig({ KUBECONFIG: two })
  t.equal(merged.loader, 'client-node')
  t.equal(merged.reason, 'KUBECONFIG holds 2 paths')
  t.equal(
    (await applied(merged.config)).headers.Authorization,
    'Bearer second',
    "the library's merge: the last file's current-context wins",
  )
})
