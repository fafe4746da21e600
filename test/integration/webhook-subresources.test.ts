// Subresources are no way around strict. The webhook runs in this process and
// the API server calls it through the ValidatingWebhookConfiguration the
// chart renders (webhook.url pointed here), so these tests cover the chart's
// rules and matchConditions as well as the webhook's decisions:
// - every subresource the API server serves is judged or exempt on purpose;
// - /status, pods/ephemeralcontainers, pods/resize, namespaces/finalize are
//   judged like UPDATEs, pods/eviction like a DELETE, pods/binding on the
//   annotations it copies onto the Pod;
// - an object held in Terminating by another finalizer stays guarded;
// - an integer beyond 2^53 that changes by one is a change.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadAll } from 'js-yaml'
import { ANNOTATION_INSTANCE_REF, LABEL_SYNC_MODE } from '../../src/api/names.ts'
import { handlingOf, subresourceRule } from '../../src/admission/subresources.ts'
import { KubeClient } from '../../src/kube/client.ts'
import { defaultBinDir } from '../../src/local/controlplane.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { adminClient, clusterInfo, eventually, freshNamespace, mountedServingCert } from './helpers/cluster.ts'
import { installCrds } from './helpers/operator.ts'
import {
  decisionCount,
  MERGE,
  ownerIn,
  startTestWebhook,
  ownershipMeta,
  rawRequest,
  STRATEGIC,
  tiPath,
  type Owner,
} from './helpers/strict.ts'
import { waitUntilCalled } from './helpers/webhook.ts'

const admin = adminClient()
t.teardown(() => admin.close())
await installCrds(admin)

// ---- the webhook, in process ----------------------------------------------------

const release = `sub${process.pid}`
const releaseNamespace = 'template-sync'
const operator = `system:serviceaccount:${releaseNamespace}:${release}-template-sync-reconciler`
/** Acting as the reconciler: its username (exempt from judgement), with the admin's rights. */
const asOperator = { 'Impersonate-User': operator, 'Impersonate-Group': 'system:masters' }
const pair = mountedServingCert(['127.0.0.1'])
const certDir = pair.certDir
const webhookClient = KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync-webhook-test')
const server = await startTestWebhook({ client: webhookClient, operatorUsernames: [operator], certDir })
t.teardown(async () => {
  await server.shutdown()
  webhookClient.close()
})

// ---- the chart's webhook configuration, pointed at it --------------------------------

interface Rule {
  apiGroups: string[]
  resources: string[]
  operations: string[]
}
interface Entry {
  name: string
  rules: Rule[]
}
interface Vwc {
  kind: string
  metadata: { name: string }
  webhooks: Entry[]
}

const helmHome = mkdtempSync(join(tmpdir(), 'ts-helm-'))
const rendered = spawnSync(
  join(defaultBinDir(), 'helm'),
  [
    'template',
    release,
    new URL('../../charts/template-sync', import.meta.url).pathname,
    '--namespace',
    releaseNamespace,
    '--kube-version',
    '1.37.2',
    '--set',
    `webhook.url=${server.url}/validate`,
    '--set',
    `webhook.caBundle=${Buffer.from(pair.ca).toString('base64')}`,
  ],
  { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: helmHome, HELM_CONFIG_HOME: helmHome, HELM_DATA_HOME: helmHome } },
)
if (rendered.status !== 0) throw new Error(`helm template failed: ${rendered.stderr}`)
const vwc = (loadAll(rendered.stdout) as (Vwc | null)[]).find((m): m is Vwc => m?.kind === 'ValidatingWebhookConfiguration')
if (vwc === undefined) throw new Error('the chart rendered no ValidatingWebhookConfiguration')
await admin.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: vwc })
t.teardown(async () => {
  try {
    await admin.request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${vwc.metadata.name}`)
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 404)) throw e
  }
})

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const deployPath = (ns: string, name = ''): string => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`
const podPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`

const decisions = (): Promise<number> => decisionCount(server)

async function strict(tt: Parameters<typeof freshNamespace>[0], opts: Parameters<typeof ownerIn>[3] = {}): Promise<Owner> {
  return ownerIn(admin, server.caches, await freshNamespace(tt, admin, 'sub'), opts)
}

// The API server loads webhook configurations asynchronously: wait until ours is called.
{
  const o = await strict(t)
  await admin.request('POST', cmPath(o.ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', ...ownershipMeta(o) } },
  })
  const before = await decisions()
  await waitUntilCalled(
    () => rawRequest(admin, 'PATCH', `${cmPath(o.ns, 'probe')}?dryRun=All`, { data: { x: String(Math.random()) } }),
    async () => (await decisions()) > before,
  )
}

function deployment(o: Owner, name: string, grace = '30'): string {
  // As text: a grace period beyond 2^53 must reach the API server exactly.
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...ownershipMeta(o) },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'example.invalid/c:1' }] },
      },
    },
  }).replace('"terminationGracePeriodSeconds":0', `"terminationGracePeriodSeconds":${grace}`)
}

function pod(o: Owner | undefined, name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(o ? ownershipMeta(o) : {}) },
    spec: {
      // No scheduler of that name runs: these Pods are bound by the tests themselves, or never.
      schedulerName: 'bound-by-the-test',
      containers: [{ name: 'c', image: 'example.invalid/c:1', resources: { requests: { cpu: '100m' }, limits: { cpu: '100m' } } }],
    },
  }
}

/** A strict Pod; `cached`: once the webhook's Pod cache holds it (evictions and bindings read it from there). */
async function strictPod(o: Owner, name: string, cached = false): Promise<void> {
  await admin.request('POST', podPath(o.ns), { body: pod(o, name) })
  if (!cached) return
  await eventually(`Pod ${o.ns}/${name} in the webhook's Pod cache`, async () => (server.caches.pods?.get(o.ns, name) ? true : undefined))
}

// ---- every subresource is judged or exempt on purpose -----------------------------------

interface DiscoveredResource {
  name: string
  verbs: string[]
}

t.test('every subresource the API server serves is named by the subresource rules, and the chart sends the judged ones', async (t) => {
  const groups = await admin.get<{ groups: { versions: { groupVersion: string }[] }[] }>('/apis')
  const versions = ['v1', ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))]
  const seen: string[] = []
  const unnamed: string[] = []
  const unsent: string[] = []
  for (const gv of versions) {
    const group = gv.includes('/') ? (gv.split('/')[0] ?? '') : ''
    const list = await admin.get<{ resources: DiscoveredResource[] }>(gv === 'v1' ? '/api/v1' : `/apis/${gv}`)
    for (const r of list.resources) {
      const [resource = '', sub = ''] = r.name.split('/')
      // A main resource counts only where it writes into another object (bindings).
      if (sub === '' && subresourceRule(group, resource, '') === undefined) continue
      seen.push(`${group}/${r.name}`)
      const rule = subresourceRule(group, resource, sub)
      if (rule === undefined) {
        unnamed.push(`${group}/${r.name} [${r.verbs.join(',')}]`)
        continue
      }
      const handling = handlingOf({ resource: { group, version: '', resource }, ...(sub ? { subResource: sub } : {}) })
      if (handling === 'exempt') continue
      const operations =
        handling === 'eviction' || handling === 'binding'
          ? ['CREATE']
          : r.verbs.some((v) => v === 'update' || v === 'patch')
            ? ['UPDATE']
            : []
      for (const op of operations) {
        const sent = vwc.webhooks.some((w) =>
          w.rules.some(
            (rule) =>
              (rule.apiGroups.includes('*') || rule.apiGroups.includes(group)) &&
              rule.operations.includes(op) &&
              (rule.resources.includes('*/*') || rule.resources.includes(r.name) || (sub === '' && rule.resources.includes('*'))),
          ),
        )
        if (!sent) unsent.push(`${op} ${group}/${r.name} (${handling})`)
      }
    }
  }
  t.ok(seen.length > 30, `${seen.length} subresources walked`)
  for (const must of [
    '/pods/status',
    '/pods/eviction',
    '/pods/binding',
    '/pods/ephemeralcontainers',
    '/pods/resize',
    'apps/deployments/scale',
  ])
    t.ok(seen.includes(must), `${must} is served and was walked`)
  t.strictSame(unnamed, [], 'no subresource is left to the default')
  t.strictSame(unsent, [], 'every judged subresource reaches the webhook through the chart')
})

// ---- /status ------------------------------------------------------------------------

t.test('deployments/status cannot rewrite instance-ref to open the spec (the status write and the spec write back to back)', async (t) => {
  const o = await strict(t)
  await admin.request('POST', deployPath(o.ns), { body: deployment(o, 'web') })
  const hijack = await rawRequest(admin, 'PATCH', `${deployPath(o.ns, 'web')}/status`, {
    metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: `${o.ns}/ghost` } },
  })
  const spec = await rawRequest(admin, 'PATCH', deployPath(o.ns, 'web'), { spec: { replicas: 5 } })
  t.equal(hijack.status, 403, 'the status write that rewrites instance-ref is denied')
  t.match(hijack.body.message ?? '', /deployments\/status .*instance-ref/)
  t.equal(spec.status, 403, 'and the spec stays guarded')
  const stored = await admin.get<{ metadata: { annotations: Record<string, string> }; spec: { replicas: number } }>(deployPath(o.ns, 'web'))
  t.equal(stored.metadata.annotations[ANNOTATION_INSTANCE_REF], `${o.ns}/inst`, 'the annotation is unchanged')
  t.equal(stored.spec.replicas, 1)
  const note = await rawRequest(admin, 'PATCH', `${deployPath(o.ns, 'web')}/status`, { metadata: { annotations: { note: 'changed' } } })
  t.equal(note.status, 403, 'any annotation outside ignoreFields is guarded through /status too')
  const pure = await rawRequest(admin, 'PATCH', `${deployPath(o.ns, 'web')}/status`, { status: { replicas: 0, observedGeneration: 1 } })
  t.equal(pure.status, 200, `a pure status change is allowed: ${pure.body.message ?? ''}`)
})

t.test('pods/status cannot change the labels of a strict Pod', async (t) => {
  const o = await strict(t)
  await strictPod(o, 'p')
  const res = await rawRequest(admin, 'PATCH', `${podPath(o.ns, 'p')}/status`, { metadata: { labels: { [LABEL_SYNC_MODE]: 'off' } } })
  t.equal(res.status, 403)
  t.match(res.body.message ?? '', LABEL_SYNC_MODE)
})

// ---- Pods -------------------------------------------------------------------------------

t.test('pods/eviction of a strict Pod is denied like its DELETE; an unmanaged Pod is evicted', async (t) => {
  const o = await strict(t)
  await strictPod(o, 'p', true)
  const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: o.ns } })
  const res = await rawRequest(admin, 'POST', `${podPath(o.ns, 'p')}/eviction`, eviction('p'), 'application/json')
  t.equal(res.status, 403)
  t.match(res.body.message ?? '', /pods\/eviction .* cannot be deleted/)
  t.ok(await admin.getOrUndefined(podPath(o.ns, 'p')), 'the Pod is still there')
  await admin.request('POST', podPath(o.ns), { body: pod(undefined, 'plain') })
  const plain = await rawRequest(admin, 'POST', `${podPath(o.ns, 'plain')}/eviction`, eviction('plain'), 'application/json')
  t.equal(plain.status, 201, `an unmanaged Pod is evicted: ${plain.body.message ?? ''}`)
})

t.test('pods/ephemeralcontainers cannot add a container to a strict Pod', async (t) => {
  const o = await strict(t)
  await strictPod(o, 'p')
  const res = await rawRequest(
    admin,
    'PATCH',
    `${podPath(o.ns, 'p')}/ephemeralcontainers`,
    { spec: { ephemeralContainers: [{ name: 'dbg', image: 'example.invalid/busybox:1', targetContainerName: 'c' }] } },
    STRATEGIC,
  )
  t.equal(res.status, 403)
  t.match(res.body.message ?? '', /spec\.ephemeralContainers/)
})

t.test('pods/resize cannot change the resources of a strict Pod', async (t) => {
  const o = await strict(t)
  // resize is only served for a Pod on a Node; no kubelet runs, a Node object is enough.
  const node = `sub-node-${process.pid}`
  await admin
    .request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } })
    .catch(() => undefined)
  t.teardown(() => admin.request('DELETE', `/api/v1/nodes/${node}`).catch(() => undefined))
  const room = { cpu: '4', memory: '8Gi', pods: '10' }
  await admin.request('PATCH', `/api/v1/nodes/${node}/status`, {
    body: { status: { capacity: room, allocatable: room } },
    contentType: MERGE,
  })
  await admin.request('POST', podPath(o.ns), { body: { ...pod(o, 'p'), spec: { ...(pod(o, 'p').spec as object), nodeName: node } } })
  const res = await rawRequest(
    admin,
    'PATCH',
    `${podPath(o.ns, 'p')}/resize`,
    { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '200m' }, limits: { cpu: '200m' } } }] } },
    STRATEGIC,
  )
  t.equal(res.status, 403, res.body.message ?? '')
  t.match(res.body.message ?? '', /spec\.containers\[0\]\.resources/)
})

t.test('pods/binding cannot rewrite the annotations of a strict Pod; a plain binding goes through', async (t) => {
  const o = await strict(t)
  await strictPod(o, 'p', true)
  const binding = (annotations?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
    target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
  })
  const hijack = await rawRequest(
    admin,
    'POST',
    `${podPath(o.ns, 'p')}/binding`,
    binding({ [ANNOTATION_INSTANCE_REF]: `${o.ns}/ghost` }),
    'application/json',
  )
  t.equal(hijack.status, 403)
  t.match(hijack.body.message ?? '', /instance-ref/)
  const p = await admin.get<{ metadata: { annotations: Record<string, string> }; spec: { nodeName?: string } }>(podPath(o.ns, 'p'))
  t.equal(p.metadata.annotations[ANNOTATION_INSTANCE_REF], `${o.ns}/inst`)
  t.equal(p.spec.nodeName, undefined, 'not bound')
  const plain = await rawRequest(admin, 'POST', `${podPath(o.ns, 'p')}/binding`, binding(), 'application/json')
  t.equal(plain.status, 201, `the scheduler's kind of binding (no annotations) is not even sent: ${plain.body.message ?? ''}`)
})

t.test('namespaces/finalize cannot change the labels of a strict Namespace', async (t) => {
  const o = await strict(t)
  const name = `sub-ns-${process.pid}-${Date.now().toString(36)}`
  await admin.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...ownershipMeta(o) } },
  })
  t.teardown(async () => {
    await rawRequest(admin, 'DELETE', `/api/v1/namespaces/${name}`, undefined, MERGE, asOperator)
  })
  const stored = await admin.get<Record<string, unknown> & { metadata: Record<string, unknown> & { labels: Record<string, string> } }>(
    `/api/v1/namespaces/${name}`,
  )
  stored.metadata.labels[LABEL_SYNC_MODE] = 'off'
  const res = await rawRequest(admin, 'PUT', `/api/v1/namespaces/${name}/finalize`, stored, 'application/json')
  t.equal(res.status, 403, res.body.message ?? '')
  t.match(res.body.message ?? '', LABEL_SYNC_MODE)
})

// ---- objects held in Terminating ---------------------------------------------------------

/** A strict ConfigMap with another controller's finalizer on it. */
async function heldConfigMap(o: Owner): Promise<void> {
  await admin.request('POST', cmPath(o.ns), {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['example.com/hold'], ...ownershipMeta(o) },
      data: { a: '1' },
    },
  })
}

t.test('an object held in Terminating by another finalizer stays guarded; the finalizer can go', async (t) => {
  const o = await strict(t)
  await heldConfigMap(o)
  t.equal((await rawRequest(admin, 'DELETE', cmPath(o.ns, 'held'))).status, 403, 'a user cannot delete it')
  // The reconciler prunes it; another controller's finalizer keeps it.
  const pruned = await rawRequest(admin, 'DELETE', cmPath(o.ns, 'held'), undefined, MERGE, asOperator)
  t.equal(pruned.status, 200, pruned.body.message ?? '')
  const edit = await rawRequest(admin, 'PATCH', cmPath(o.ns, 'held'), { data: { a: 'changed' } })
  t.equal(edit.status, 403, 'an UPDATE outside ignoreFields is still denied while it terminates')
  t.equal((await rawRequest(admin, 'DELETE', cmPath(o.ns, 'held'))).status, 403, 'and so is a second DELETE')
  const release = await rawRequest(admin, 'PATCH', cmPath(o.ns, 'held'), { metadata: { finalizers: null } })
  t.equal(release.status, 200, `the other controller can remove its finalizer: ${release.body.message ?? ''}`)
  await eventually('the object gone', async () => ((await admin.getOrUndefined(cmPath(o.ns, 'held'))) === undefined ? true : undefined))
})

t.test('an object in Terminating may change while its owner is being deleted', async (t) => {
  const o = await strict(t, { finalizers: ['example.com/hold-instance'] })
  t.teardown(() =>
    admin.request('PATCH', tiPath(o.ns, 'inst'), { body: { metadata: { finalizers: null } }, contentType: MERGE }).catch(() => undefined),
  )
  await heldConfigMap(o)
  t.teardown(() =>
    admin.request('PATCH', cmPath(o.ns, 'held'), { body: { metadata: { finalizers: null } }, contentType: MERGE }).catch(() => undefined),
  )
  await rawRequest(admin, 'DELETE', cmPath(o.ns, 'held'), undefined, MERGE, asOperator)
  await admin.request('DELETE', tiPath(o.ns, 'inst'))
  await eventually('owner deletion seen by the cache', async () =>
    server.caches.instances.get(o.ns, 'inst')?.metadata?.deletionTimestamp ? true : undefined,
  )
  const edit = await rawRequest(admin, 'PATCH', cmPath(o.ns, 'held'), { data: { a: 'changed' } })
  t.equal(edit.status, 200, edit.body.message ?? '')
})

// ---- integers beyond 2^53 ----------------------------------------------------------------

t.test('a change from 9007199254740993 to 9007199254740992 is a change', async (t) => {
  const o = await strict(t)
  await admin.request('POST', deployPath(o.ns), { body: deployment(o, 'big', '9007199254740993') })
  const res = await rawRequest(
    admin,
    'PATCH',
    deployPath(o.ns, 'big'),
    '{"spec":{"template":{"spec":{"terminationGracePeriodSeconds":9007199254740992}}}}',
    STRATEGIC,
  )
  t.equal(res.status, 403, res.body.message ?? '')
  t.match(res.body.message ?? '', /terminationGracePeriodSeconds/)
  const same = await rawRequest(
    admin,
    'PATCH',
    deployPath(o.ns, 'big'),
    '{"spec":{"template":{"spec":{"terminationGracePeriodSeconds":9007199254740993}}}}',
    STRATEGIC,
  )
  t.equal(same.status, 200, `the same value is no change: ${same.body.message ?? ''}`)
})
