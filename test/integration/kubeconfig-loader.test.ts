// The light kubeconfig loader against the real kube-apiserver: the test
// control plane's own kubeconfig (inline CA and client certificate) is served
// without @kubernetes/client-node, TLS verification fails for a wrong CA or
// server name, service-account tokens work inline and as a rotating
// tokenFile, and a file that needs the library still gets it. A module
// resolve hook, installed before anything from src/ is imported, records
// whether the library was loaded.

import t from 'tap'
import { registerHooks } from 'node:module'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const libraryLoads: string[] = []
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context)
    if (result.url.includes('/node_modules/@kubernetes/client-node/')) libraryLoads.push(result.url)
    return result
  },
})

const { KubeClient } = await import('../../src/kube/client.ts')
const { loadKubeconfigFile } = await import('../../src/kube/kubeconfig.ts')
const { adminClient, clusterInfo, freshNamespace } = await import('./helpers/cluster.ts')
const { dump, load } = await import('js-yaml')

type Client = InstanceType<typeof KubeClient>
type Doc = { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] }

const info = clusterInfo()
const controlPlaneConfig = load(readFileSync(info.kubeconfig, 'utf8')) as Doc
const admin = adminClient('kubeconfig-loader-test')
t.teardown(() => admin.close())

/** The control plane's kubeconfig with its cluster and user entries changed; written to a fresh directory. */
function variant(
  cluster: (c: Record<string, unknown>) => Record<string, unknown>,
  user: (u: Record<string, unknown>) => Record<string, unknown>,
  dir = mkdtempSync(join(tmpdir(), 'ts-kc-')),
): string {
  const doc = structuredClone(controlPlaneConfig)
  const [c] = doc.clusters
  const [u] = doc.users
  if (!c || !u) throw new Error(`${info.kubeconfig} has no cluster or no user`)
  c.cluster = cluster(c.cluster)
  u.user = user(u.user)
  const path = join(dir, 'kubeconfig')
  writeFileSync(path, dump(doc), { mode: 0o600 })
  return path
}

/** Who the API server says the client is (SelfSubjectReview needs no RBAC). */
async function whoami(client: Client): Promise<string> {
  const review = await client.request<{ status: { userInfo: { username: string } } }>(
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
  )
  return review.status.userInfo.username
}

async function withClient<T>(client: Client, fn: (c: Client) => Promise<T>): Promise<T> {
  try {
    return await fn(client)
  } finally {
    client.close()
  }
}

t.test("the control plane's kubeconfig is served by the light loader, without the library", async (t) => {
  t.equal(loadKubeconfigFile(info.kubeconfig).loader, 'light')
  await withClient(KubeClient.fromFile(info.kubeconfig, 'kubeconfig-loader-test'), async (client) => {
    const ns = await client.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default')
    t.equal(ns.metadata.name, 'default')
    t.equal(await whoami(client), 'template-sync-admin', 'the client certificate was presented')
  })
  t.same(libraryLoads, [], '@kubernetes/client-node was not loaded')
})

t.test('TLS verification: a wrong CA, no CA, or a wrong server name fails; insecure-skip-tls-verify passes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-other-ca-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=other-ca',
      '-days',
      '1',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const noCa = ({ 'certificate-authority-data': _, ...rest }: Record<string, unknown>): Record<string, unknown> => rest
  const same = (u: Record<string, unknown>): Record<string, unknown> => u
  // Relative path: resolved against the kubeconfig's directory, which holds the other CA.
  const wrongCa = variant((c) => ({ ...noCa(c), 'certificate-authority': 'ca.crt' }), same, dir)
  await withClient(KubeClient.fromFile(wrongCa), async (client) => {
    await t.rejects(
      client.request('GET', '/api/v1/namespaces/default'),
      { code: /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/ },
      'CA of another issuer',
    )
  })
  await withClient(KubeClient.fromFile(variant(noCa, same)), async (client) => {
    await t.rejects(
      client.request('GET', '/api/v1/namespaces/default'),
      { code: /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/ },
      'no CA: the system roots do not trust it',
    )
  })
  await withClient(
    KubeClient.fromFile(variant((c) => ({ ...c, 'tls-server-name': 'not-the-apiserver.example' }), same)),
    async (client) => {
      await t.rejects(
        client.request('GET', '/api/v1/namespaces/default'),
        { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
        'server name outside the certificate',
      )
    },
  )
  await withClient(KubeClient.fromFile(variant((c) => ({ ...c, 'tls-server-name': 'localhost' }), same)), async (client) => {
    t.equal(await whoami(client), 'template-sync-admin', 'server name inside the certificate (DNS:localhost)')
  })
  await withClient(KubeClient.fromFile(variant((c) => ({ ...noCa(c), 'insecure-skip-tls-verify': true }), same)), async (client) => {
    t.equal(await whoami(client), 'template-sync-admin', 'verification off only where the file says so')
  })
  t.same(libraryLoads, [])
})

t.test('service-account tokens: inline token and a tokenFile that rotates', async (t) => {
  const ns = await freshNamespace(t, admin, 'kc-token')
  const token = async (name: string): Promise<string> => {
    await admin.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
    })
    const review = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    })
    return review.status.token
  }
  const [first, second] = [await token('first'), await token('second')]

  await withClient(
    KubeClient.fromFile(
      variant(
        (c) => c,
        () => ({ token: first }),
      ),
    ),
    async (client) => {
      t.equal(await whoami(client), `system:serviceaccount:${ns}:first`)
    },
  )

  const dir = mkdtempSync(join(tmpdir(), 'ts-kc-token-'))
  writeFileSync(join(dir, 'token'), `${first}\n`)
  const path = variant(
    (c) => c,
    () => ({ tokenFile: 'token' }),
    dir,
  )
  let now = 0
  const loaded = loadKubeconfigFile(path, () => now)
  t.equal(loaded.loader, 'light')
  await withClient(new KubeClient(loaded.config, 'kubeconfig-loader-test'), async (client) => {
    t.equal(await whoami(client), `system:serviceaccount:${ns}:first`)
    writeFileSync(join(dir, 'token'), `${second}\n`)
    now = 30_000
    t.equal(await whoami(client), `system:serviceaccount:${ns}:first`, 'cached within the minute')
    now = 61_000
    t.equal(await whoami(client), `system:serviceaccount:${ns}:second`, 'the rotated token is used')
  })
  t.same(libraryLoads, [])
})

// Last: it loads the library, and shows the hook above would have seen it.
t.test('a file that needs the library (impersonation) gets it, and still works', async (t) => {
  const path = variant(
    (c) => c,
    (u) => ({ ...u, as: 'someone-else' }),
  )
  const loaded = loadKubeconfigFile(path)
  t.equal(loaded.loader, 'client-node')
  t.equal(loaded.reason, 'user "admin" impersonates (as)')
  await withClient(new KubeClient(loaded.config, 'kubeconfig-loader-test'), async (client) => {
    t.equal(await whoami(client), 'someone-else')
  })
  t.ok(libraryLoads.length > 0, 'the resolve hook saw @kubernetes/client-node load')
})
