// The chart's RBAC, proven against the API server's real authorizer: the
// ServiceAccounts, Roles and Bindings from `helm template` are created, each
// account gets a token from the TokenRequest API, and requests made with those
// tokens show that every permission the processes need is there (sufficient)
// and that what they must not do is refused (minimal).
//
// A 403 means "forbidden"; any other outcome (200, 201, 404, 409, 422) means
// the authorizer let the request through, since authorization runs first.

import t from 'tap'
import { defaultBinDir } from '../../src/local/controlplane.ts'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KubeConfig } from '@kubernetes/client-node'
import { loadAll } from 'js-yaml'
import { adminClient, clusterInfo, eventually, freshNamespace } from './helpers/cluster.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { API_VERSION } from '../../src/api/names.ts'
import { CONTENT_APPLY, CONTENT_MERGE, KubeClient, type RequestInit } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'

const root = new URL('../../', import.meta.url).pathname
const chartDir = join(root, 'charts/template-sync')
const helmBin = join(defaultBinDir(), 'helm')
const work = mkdtempSync(join(tmpdir(), 'ts-rbac-'))

/** What the helpers need from a tap test. */
interface TT {
  teardown(fn: () => unknown): void
  equal(found: unknown, wanted: unknown, message: string): boolean
}

interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string }
}

async function renderChart(release: string, namespace: string, values: object): Promise<Manifest[]> {
  const deadline = Date.now() + 15 * 60_000
  while (!existsSync(helmBin)) {
    if (Date.now() > deadline) throw new Error(`${helmBin} missing: run test/cluster/build.sh`)
    await new Promise((r) => setTimeout(r, 2_000))
  }
  const file = join(work, `${release}.json`)
  writeFileSync(file, JSON.stringify(values))
  const r = spawnSync(helmBin, ['template', release, chartDir, '--namespace', namespace, '--kube-version', '1.37.2', '-f', file], {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(work, 'cache'),
      HELM_CONFIG_HOME: join(work, 'config'),
      HELM_DATA_HOME: join(work, 'data'),
    },
  })
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`)
  return (loadAll(r.stdout) as (Manifest | null)[]).filter((m): m is Manifest => m !== null)
}

const admin = adminClient()
t.teardown(() => admin.close())

for (const crd of crdManifests()) {
  await admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
    body: crd,
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync-rbac-test', force: true },
  })
}
await eventually('CRDs established', async () => {
  for (const crd of crdManifests()) {
    const got = await admin.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
    )
    if (!got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return undefined
  }
  return true
})

const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'])
const PATHS: Record<string, (ns: string) => string> = {
  ServiceAccount: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts`,
  Role: (ns) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
  RoleBinding: (ns) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
  ClusterRole: () => '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: () => '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
}

/** Creates the chart's accounts and RBAC in `ns`; cluster-scoped objects are deleted at teardown. */
async function installRbac(tt: TT, ns: string, release: string, values: object): Promise<void> {
  const ms = (await renderChart(release, ns, values)).filter((m) => RBAC_KINDS.has(m.kind))
  for (const m of ms) {
    const collection = PATHS[m.kind]!(ns)
    await admin.request('POST', collection, { body: m })
    if (m.kind.startsWith('Cluster')) {
      tt.teardown(async () => {
        try {
          await admin.request('DELETE', `${collection}/${m.metadata.name}`)
        } catch (e) {
          if (!(e instanceof KubeApiError && e.code === 404)) throw e
        }
      })
    }
  }
}

async function clientFor(ns: string, sa: string): Promise<KubeClient> {
  const tr = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  })
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: clusterInfo().server, caFile: clusterInfo().caCert, skipTLSVerify: false }],
    users: [{ name: sa, token: tr.status.token }],
    contexts: [{ name: 'test', cluster: 'test', user: sa }],
    currentContext: 'test',
  })
  return new KubeClient(kc, `rbac-test-${sa}`)
}

type Outcome = 'allowed' | 'forbidden'
async function outcome(client: KubeClient, method: string, path: string, init: RequestInit = {}): Promise<Outcome> {
  try {
    // A watch answers with a stream of events: read it as one (the server ends it after timeoutSeconds).
    if (init.query?.watch) await client.watch(path, { timeoutSeconds: 1 }, () => {})
    else await client.request(method, path, { timeoutMs: 15_000, ...init })
    return 'allowed'
  } catch (e) {
    if (e instanceof KubeApiError) return e.code === 403 ? 'forbidden' : 'allowed'
    throw e
  }
}

interface Check {
  readonly what: string
  readonly method: string
  readonly path: string
  readonly init?: RequestInit
  readonly want: Outcome
}

async function expectAll(tt: TT, client: KubeClient, checks: readonly Check[]): Promise<void> {
  for (const c of checks)
    tt.equal(await outcome(client, c.method, c.path, c.init ?? {}), c.want, `${c.want === 'allowed' ? 'can' : 'cannot'} ${c.what}`)
}

const watch = { query: { watch: true, timeoutSeconds: 1 } }
const dryRun = { query: { dryRun: 'All' } }
const secret = (name: string, ns: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, data: {} })

t.test(
  'webhook service account (self-managed certificates): reads what it caches, writes only its Secret and webhook configuration',
  async (t) => {
    const ns = await freshNamespace(t, admin, 'rbac-wh')
    const other = await freshNamespace(t, admin, 'rbac-other')
    const release = `rw${process.pid}`
    await installRbac(t, ns, release, {})
    const sa = `${release}-template-sync-webhook`
    const secretName = `${release}-template-sync-webhook-tls`
    const vwc = `${release}-template-sync`
    const client = await clientFor(ns, sa)
    t.teardown(() => client.close())
    // Bindings reach the authorizer's cache asynchronously.
    await eventually('the webhook bindings to take effect', async () =>
      (await outcome(client, 'GET', `/apis/${API_VERSION}/templates`)) === 'allowed' ? true : undefined,
    )

    await expectAll(t, client, [
      { what: 'list templates in all namespaces', method: 'GET', path: `/apis/${API_VERSION}/templates`, want: 'allowed' },
      { what: 'watch templates', method: 'GET', path: `/apis/${API_VERSION}/templates`, init: watch, want: 'allowed' },
      { what: 'list templateinstances in all namespaces', method: 'GET', path: `/apis/${API_VERSION}/templateinstances`, want: 'allowed' },
      { what: 'watch templateinstances', method: 'GET', path: `/apis/${API_VERSION}/templateinstances`, init: watch, want: 'allowed' },
      { what: 'list namespaces', method: 'GET', path: '/api/v1/namespaces', want: 'allowed' },
      { what: 'watch namespaces', method: 'GET', path: '/api/v1/namespaces', init: watch, want: 'allowed' },
      { what: 'list deployments (scale targets)', method: 'GET', path: '/apis/apps/v1/deployments', want: 'allowed' },
      { what: 'watch statefulsets (scale targets)', method: 'GET', path: '/apis/apps/v1/statefulsets', init: watch, want: 'allowed' },
      { what: 'list replicasets (scale targets)', method: 'GET', path: '/apis/apps/v1/replicasets', want: 'allowed' },
      { what: 'list replicationcontrollers (scale targets)', method: 'GET', path: '/api/v1/replicationcontrollers', want: 'allowed' },
      { what: 'get its certificate Secret', method: 'GET', path: `/api/v1/namespaces/${ns}/secrets/${secretName}`, want: 'allowed' },
      {
        what: 'create its certificate Secret',
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/secrets`,
        init: { body: secret(secretName, ns), ...dryRun },
        want: 'allowed',
      },
      {
        what: 'update its certificate Secret',
        method: 'PUT',
        path: `/api/v1/namespaces/${ns}/secrets/${secretName}`,
        init: { body: secret(secretName, ns), ...dryRun },
        want: 'allowed',
      },
      {
        what: 'get its webhook configuration',
        method: 'GET',
        path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${vwc}`,
        want: 'allowed',
      },
      {
        what: 'patch its webhook configuration',
        method: 'PATCH',
        path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${vwc}`,
        init: { body: {}, contentType: CONTENT_MERGE },
        want: 'allowed',
      },
      // minimal
      { what: 'list secrets in all namespaces', method: 'GET', path: '/api/v1/secrets', want: 'forbidden' },
      { what: 'list secrets in its own namespace', method: 'GET', path: `/api/v1/namespaces/${ns}/secrets`, want: 'forbidden' },
      { what: 'get another Secret in its namespace', method: 'GET', path: `/api/v1/namespaces/${ns}/secrets/other`, want: 'forbidden' },
      {
        what: 'update another Secret in its namespace',
        method: 'PUT',
        path: `/api/v1/namespaces/${ns}/secrets/other`,
        init: { body: secret('other', ns) },
        want: 'forbidden',
      },
      {
        what: 'create a Secret in another namespace',
        method: 'POST',
        path: `/api/v1/namespaces/${other}/secrets`,
        init: { body: secret(secretName, other), ...dryRun },
        want: 'forbidden',
      },
      { what: 'watch secrets', method: 'GET', path: `/api/v1/namespaces/${ns}/secrets`, init: watch, want: 'forbidden' },
      {
        what: 'update templates',
        method: 'PUT',
        path: `/apis/${API_VERSION}/namespaces/${other}/templates/x`,
        init: { body: { apiVersion: API_VERSION, kind: 'Template', metadata: { name: 'x' } } },
        want: 'forbidden',
      },
      {
        what: 'patch templateinstance status',
        method: 'PATCH',
        path: `/apis/${API_VERSION}/namespaces/${other}/templateinstances/x/status`,
        init: { body: {}, contentType: CONTENT_MERGE },
        want: 'forbidden',
      },
      {
        what: 'patch a deployment',
        method: 'PATCH',
        path: `/apis/apps/v1/namespaces/${other}/deployments/x`,
        init: { body: {}, contentType: CONTENT_MERGE },
        want: 'forbidden',
      },
      {
        what: 'update another webhook configuration',
        method: 'PATCH',
        path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/someone-else',
        init: { body: {}, contentType: CONTENT_MERGE },
        want: 'forbidden',
      },
      {
        what: 'list webhook configurations',
        method: 'GET',
        path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        want: 'forbidden',
      },
      {
        what: 'touch leases',
        method: 'GET',
        path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${release}-template-sync-reconciler`,
        want: 'forbidden',
      },
      { what: 'create events', method: 'POST', path: `/api/v1/namespaces/${ns}/events`, init: { body: {}, ...dryRun }, want: 'forbidden' },
      { what: 'list configmaps', method: 'GET', path: '/api/v1/configmaps', want: 'forbidden' },
    ])
  },
)

t.test('webhook service account with cert-manager: no Secret or webhook configuration writes', async (t) => {
  const ns = await freshNamespace(t, admin, 'rbac-cm')
  const release = `rc${process.pid}`
  await installRbac(t, ns, release, { certManager: { enabled: true } })
  const client = await clientFor(ns, `${release}-template-sync-webhook`)
  t.teardown(() => client.close())
  await eventually('the webhook bindings to take effect', async () =>
    (await outcome(client, 'GET', '/api/v1/namespaces')) === 'allowed' ? true : undefined,
  )
  await expectAll(t, client, [
    { what: 'list templates', method: 'GET', path: `/apis/${API_VERSION}/templates`, want: 'allowed' },
    {
      what: 'create Secrets',
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/secrets`,
      init: { body: secret('x', ns), ...dryRun },
      want: 'forbidden',
    },
    {
      what: 'get the serving Secret through the API (the kubelet mounts it)',
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/secrets/${release}-template-sync-webhook-tls`,
      want: 'forbidden',
    },
    {
      what: 'patch its webhook configuration',
      method: 'PATCH',
      path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${release}-template-sync`,
      init: { body: {}, contentType: CONTENT_MERGE },
      want: 'forbidden',
    },
  ])
})

t.test('reconciler service account: its kinds, status, events and Lease, plus additionalRules only', async (t) => {
  const ns = await freshNamespace(t, admin, 'rbac-rc')
  const team = await freshNamespace(t, admin, 'rbac-team')
  const release = `rr${process.pid}`
  // Rendered kinds for this test: ConfigMaps (also a parameter source) and Deployments; no Secrets.
  await installRbac(t, ns, release, {
    rbac: {
      additionalRules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      ],
    },
  })
  const sa = `${release}-template-sync-reconciler`
  const lease = `${release}-template-sync-reconciler`
  const client = await clientFor(ns, sa)
  t.teardown(() => client.close())

  // Real objects to act on.
  await admin.request('POST', `/apis/${API_VERSION}/namespaces/${team}/templates`, {
    body: { apiVersion: API_VERSION, kind: 'Template', metadata: { name: 'tpl' }, spec: { gotemplate: 'kind: ConfigMap' } },
  })
  await admin.request('POST', `/apis/${API_VERSION}/namespaces/${team}/templateinstances`, {
    body: {
      apiVersion: API_VERSION,
      kind: 'TemplateInstance',
      metadata: { name: 'ti' },
      spec: { templateRef: { name: 'tpl', namespace: team } },
    },
  })
  await eventually('the reconciler bindings to take effect', async () =>
    (await outcome(client, 'GET', `/apis/${API_VERSION}/templateinstances`)) === 'allowed' ? true : undefined,
  )

  const tiPath = `/apis/${API_VERSION}/namespaces/${team}/templateinstances/ti`
  const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`
  const now = new Date().toISOString().replace(/\.\d+Z$/, '.000000Z')
  const coreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `ti.${Date.now().toString(16)}`, namespace: team },
    involvedObject: { apiVersion: API_VERSION, kind: 'TemplateInstance', name: 'ti', namespace: team },
    reason: 'Test',
    message: 'rbac test',
    type: 'Normal',
    source: { component: 'template-sync' },
  }
  const newEvent = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: `ti.new.${Date.now().toString(16)}`, namespace: team },
    eventTime: now,
    reportingController: 'template-sync',
    reportingInstance: 'rbac-test',
    action: 'Test',
    reason: 'Test',
    note: 'rbac test',
    type: 'Normal',
    regarding: { apiVersion: API_VERSION, kind: 'TemplateInstance', name: 'ti', namespace: team },
  }

  await expectAll(t, client, [
    { what: 'list and watch templates', method: 'GET', path: `/apis/${API_VERSION}/templates`, init: watch, want: 'allowed' },
    { what: 'get a templateinstance', method: 'GET', path: tiPath, want: 'allowed' },
    {
      what: 'patch a templateinstance (finalizers)',
      method: 'PATCH',
      path: tiPath,
      init: { body: { metadata: { finalizers: ['templates.v2.stakater.com/template-instance'] } }, contentType: CONTENT_MERGE },
      want: 'allowed',
    },
    {
      what: 'patch templateinstances/status',
      method: 'PATCH',
      path: `${tiPath}/status`,
      init: { body: { status: {} }, contentType: CONTENT_MERGE },
      want: 'allowed',
    },
    { what: 'get templates/status', method: 'GET', path: `/apis/${API_VERSION}/namespaces/${team}/templates/tpl/status`, want: 'allowed' },
    { what: 'list namespaces', method: 'GET', path: '/api/v1/namespaces', want: 'allowed' },
    { what: 'create a core Event', method: 'POST', path: `/api/v1/namespaces/${team}/events`, init: { body: coreEvent }, want: 'allowed' },
    {
      what: 'patch a core Event',
      method: 'PATCH',
      path: `/api/v1/namespaces/${team}/events/${coreEvent.metadata.name}`,
      init: { body: { count: 2 }, contentType: CONTENT_MERGE },
      want: 'allowed',
    },
    {
      what: 'create an events.k8s.io Event',
      method: 'POST',
      path: `/apis/events.k8s.io/v1/namespaces/${team}/events`,
      init: { body: newEvent },
      want: 'allowed',
    },
    {
      what: 'create its Lease',
      method: 'POST',
      path: leasePath,
      init: {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: lease },
          spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
        },
      },
      want: 'allowed',
    },
    { what: 'get its Lease', method: 'GET', path: `${leasePath}/${lease}`, want: 'allowed' },
    { what: 'list configmaps (additionalRules)', method: 'GET', path: '/api/v1/configmaps', want: 'allowed' },
    {
      what: 'create a configmap (additionalRules)',
      method: 'POST',
      path: `/api/v1/namespaces/${team}/configmaps`,
      init: { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, ...dryRun },
      want: 'allowed',
    },
    { what: 'watch deployments (additionalRules)', method: 'GET', path: '/apis/apps/v1/deployments', init: watch, want: 'allowed' },
    {
      what: 'watch customresourcedefinitions (a kind installed later)',
      method: 'GET',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      init: watch,
      want: 'allowed',
    },
    {
      what: 'watch apiservices (a kind installed later)',
      method: 'GET',
      path: '/apis/apiregistration.k8s.io/v1/apiservices',
      init: watch,
      want: 'allowed',
    },
    // minimal
    {
      what: 'change customresourcedefinitions',
      method: 'PATCH',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdManifests()[0]?.metadata.name}`,
      init: { body: {}, contentType: CONTENT_MERGE, query: { dryRun: 'All' } },
      want: 'forbidden',
    },
    {
      what: 'delete apiservices',
      method: 'DELETE',
      path: '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps',
      init: dryRun,
      want: 'forbidden',
    },
    { what: 'delete namespaces', method: 'DELETE', path: `/api/v1/namespaces/${team}`, init: dryRun, want: 'forbidden' },
    {
      what: 'create namespaces',
      method: 'POST',
      path: '/api/v1/namespaces',
      init: { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }, ...dryRun },
      want: 'forbidden',
    },
    { what: 'get secrets (not in additionalRules)', method: 'GET', path: `/api/v1/namespaces/${team}/secrets/x`, want: 'forbidden' },
    { what: 'list secrets', method: 'GET', path: '/api/v1/secrets', want: 'forbidden' },
    { what: 'list pods', method: 'GET', path: '/api/v1/pods', want: 'forbidden' },
    {
      what: 'create statefulsets',
      method: 'POST',
      path: `/apis/apps/v1/namespaces/${team}/statefulsets`,
      init: { body: {}, ...dryRun },
      want: 'forbidden',
    },
    {
      what: 'delete templates',
      method: 'DELETE',
      path: `/apis/${API_VERSION}/namespaces/${team}/templates/tpl`,
      init: dryRun,
      want: 'forbidden',
    },
    { what: 'delete templateinstances', method: 'DELETE', path: tiPath, init: dryRun, want: 'forbidden' },
    {
      what: 'create templateinstances',
      method: 'POST',
      path: `/apis/${API_VERSION}/namespaces/${team}/templateinstances`,
      init: { body: {}, ...dryRun },
      want: 'forbidden',
    },
    { what: 'get events', method: 'GET', path: `/api/v1/namespaces/${team}/events`, want: 'forbidden' },
    { what: 'get another Lease', method: 'GET', path: `${leasePath}/someone-else`, want: 'forbidden' },
    {
      what: 'create a Lease in another namespace',
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${team}/leases`,
      init: { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: lease } }, ...dryRun },
      want: 'forbidden',
    },
    {
      what: 'update webhook configurations',
      method: 'PATCH',
      path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${release}-template-sync`,
      init: { body: {}, contentType: CONTENT_MERGE },
      want: 'forbidden',
    },
    {
      what: 'create roles',
      method: 'POST',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${team}/roles`,
      init: { body: {}, ...dryRun },
      want: 'forbidden',
    },
  ])

  // The Lease round trip the elector does: read, then write back with the resourceVersion read.
  const got = await client.request<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }>('GET', `${leasePath}/${lease}`)
  const updated = await client.request<{ spec: { holderIdentity: string } }>('PUT', `${leasePath}/${lease}`, {
    body: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: lease, namespace: ns, resourceVersion: got.metadata.resourceVersion },
      spec: { ...got.spec, holderIdentity: 'b' },
    },
  })
  t.equal(updated.spec.holderIdentity, 'b', 'can update its Lease')
})

t.test('default additionalRules let the reconciler read ConfigMap and Secret parameter sources, and nothing more', async (t) => {
  const ns = await freshNamespace(t, admin, 'rbac-def')
  const release = `rd${process.pid}`
  await installRbac(t, ns, release, {})
  const client = await clientFor(ns, `${release}-template-sync-reconciler`)
  t.teardown(() => client.close())
  await eventually('the reconciler bindings to take effect', async () =>
    (await outcome(client, 'GET', '/api/v1/secrets')) === 'allowed' ? true : undefined,
  )
  await expectAll(t, client, [
    { what: 'list secrets', method: 'GET', path: '/api/v1/secrets', want: 'allowed' },
    // spec.helm: the auth Secret in the Template's namespace, and discovery for .Capabilities.
    { what: 'get a Secret in another namespace', method: 'GET', path: '/api/v1/namespaces/default/secrets/repo-auth', want: 'allowed' },
    { what: 'read /version', method: 'GET', path: '/version', want: 'allowed' },
    { what: 'read API discovery', method: 'GET', path: '/apis/apps/v1', want: 'allowed' },
    { what: 'watch configmaps', method: 'GET', path: '/api/v1/configmaps', init: watch, want: 'allowed' },
    {
      what: 'update secrets',
      method: 'PUT',
      path: `/api/v1/namespaces/${ns}/secrets/x`,
      init: { body: secret('x', ns) },
      want: 'forbidden',
    },
    {
      what: 'create configmaps',
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      init: { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, ...dryRun },
      want: 'forbidden',
    },
    { what: 'list deployments', method: 'GET', path: '/apis/apps/v1/deployments', want: 'forbidden' },
  ])
})
