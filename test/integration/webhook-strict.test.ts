// The strict-mode webhook judged by the real API server. The webhook runs in
// this process on 127.0.0.1 with a certificate from the test cluster's CA; a
// ValidatingWebhookConfiguration (url + caBundle, matchConditions on the
// ownership and sync-mode labels) points the API server at it. Objects that
// look rendered (ownership labels and annotation) are created directly, with
// Template and TemplateInstance custom objects; no reconciler runs.

import t from 'tap'
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect as tlsConnect } from 'node:tls'
import { Writable } from 'node:stream'
import { join } from 'node:path'
import pino from 'pino'
import { adminClient, eventually, freshNamespace, issueServingCert, clusterInfo } from './helpers/cluster.ts'
import { installValidatingWebhook, waitUntilCalled } from './helpers/webhook.ts'
import { decisionCount, MERGE, rawRequest, startTestWebhook, type RawAnswer } from './helpers/strict.ts'
import { KubeClient } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { readHistogram, readValue } from '../../src/telemetry/metrics.ts'
import { crdManifests } from '../../src/api/crds.ts'
import {
  ANNOTATION_INSTANCE_REF,
  API_VERSION,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  PLURAL_TEMPLATE,
  PLURAL_TEMPLATE_INSTANCE,
  type SyncMode,
} from '../../src/api/names.ts'

const admin = adminClient()
t.teardown(() => admin.close())

const OPERATOR = 'system:serviceaccount:template-sync:reconciler'
const tplPath = (ns: string, name = ''): string => `/apis/${API_VERSION}/namespaces/${ns}/${PLURAL_TEMPLATE}${name ? `/${name}` : ''}`
const tiPath = (ns: string, name = ''): string =>
  `/apis/${API_VERSION}/namespaces/${ns}/${PLURAL_TEMPLATE_INSTANCE}${name ? `/${name}` : ''}`
const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const deployPath = (ns: string, name = ''): string => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`

// ---- CRDs -------------------------------------------------------------------

for (const crd of crdManifests()) {
  try {
    await admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 409)) throw e
  }
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

// ---- certificates laid out like a Secret volume ------------------------------

/** Writes a pair the way the kubelet does: a fresh hidden directory, then an atomic swap of the ..data symlink. */
function writeSecretVolume(dir: string, files: Record<string, string>, stamp: string): void {
  const payload = join(dir, `..${stamp}`)
  mkdirSync(payload)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(payload, name), content)
  const tmp = join(dir, '..data_tmp')
  rmSync(tmp, { force: true })
  symlinkSync(`..${stamp}`, tmp)
  renameSync(tmp, join(dir, '..data'))
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(join('..data', name), join(dir, name))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
}

const first = issueServingCert(['127.0.0.1', 'localhost'])
const certDir = join(first.dir, 'volume')
mkdirSync(certDir)
writeSecretVolume(certDir, { 'tls.crt': first.cert, 'tls.key': first.key }, 'v1')

// ---- the webhook, in process -------------------------------------------------

const logLines: string[] = []
const logSink = new Writable({
  write(chunk: Buffer, _enc, done): void {
    logLines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    )
    done()
  },
})
const webhookClient = KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync-webhook-test')
const server = await startTestWebhook({
  client: webhookClient,
  log: pino({ level: 'debug' }, logSink),
  operatorUsernames: [OPERATOR],
  certDir,
  certPollMs: 2_000,
  certDebounceMs: 100,
})
t.teardown(async () => {
  await server.shutdown()
  webhookClient.close()
})

const names = `ts-strict-${process.pid}`
const strictMatch = [
  // A Scale carries no labels: /scale always reaches the webhook, which reads ownership from its cached target.
  {
    name: 'managed',
    expression: `(has(request.subResource) && request.subResource == 'scale') || (oldObject != null && has(oldObject.metadata.labels) && '${LABEL_INSTANCE}' in oldObject.metadata.labels)`,
  },
  {
    name: 'strict',
    expression: `(has(request.subResource) && request.subResource == 'scale') || ('${LABEL_SYNC_MODE}' in oldObject.metadata.labels && oldObject.metadata.labels['${LABEL_SYNC_MODE}'] == 'strict')`,
  },
]
const revertMatch = [
  {
    name: 'managed',
    expression: `oldObject != null && has(oldObject.metadata.labels) && '${LABEL_INSTANCE}' in oldObject.metadata.labels`,
  },
  {
    name: 'revert',
    expression: `'${LABEL_SYNC_MODE}' in oldObject.metadata.labels && oldObject.metadata.labels['${LABEL_SYNC_MODE}'] == 'revert'`,
  },
]
const rules = [
  { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE', 'DELETE'], scope: 'Namespaced' },
  {
    apiGroups: ['apps'],
    apiVersions: ['v1'],
    resources: ['deployments', 'deployments/scale'],
    operations: ['UPDATE', 'DELETE'],
    scope: 'Namespaced',
  },
]
const removeStrict = await installValidatingWebhook(admin, {
  name: `${names}-strict`,
  url: `${server.url}/validate`,
  caPem: first.ca,
  rules,
  matchConditions: strictMatch,
  failurePolicy: 'Fail',
  timeoutSeconds: 10,
})
t.teardown(removeStrict)
const removeRevert = await installValidatingWebhook(admin, {
  name: `${names}-revert`,
  url: `${server.url}/validate`,
  caPem: first.ca,
  rules: [rules[0] as Record<string, unknown>],
  matchConditions: revertMatch,
  failurePolicy: 'Ignore',
  timeoutSeconds: 10,
})
t.teardown(removeRevert)

// ---- fixtures ----------------------------------------------------------------

interface Owner {
  ns: string
  instance: string
  uid: string
  template: string
}

async function createTemplate(ns: string, name: string, mode: SyncMode, ignoreFields: string[] = []): Promise<void> {
  await admin.request('POST', tplPath(ns), {
    body: {
      apiVersion: API_VERSION,
      kind: 'Template',
      metadata: { name },
      spec: { gotemplate: 'kind: ConfigMap', sync: { mode, ignoreFields } },
    },
  })
  await eventually(`Template ${ns}/${name} in the webhook cache`, async () => (server.caches.templates.get(ns, name) ? true : undefined))
}

async function setIgnoreFields(ns: string, name: string, ignoreFields: string[]): Promise<void> {
  const got = await admin.request<{ metadata: { generation: number } }>('PATCH', tplPath(ns, name), {
    body: { spec: { sync: { ignoreFields } } },
    contentType: MERGE,
  })
  await eventually(`Template ${ns}/${name} generation ${got.metadata.generation} cached`, async () =>
    server.caches.templates.get(ns, name)?.metadata?.generation === got.metadata.generation ? true : undefined,
  )
}

async function createInstance(ns: string, name: string, template: string, finalizers?: string[]): Promise<Owner> {
  const ti = await admin.request<{ metadata: { uid: string } }>('POST', tiPath(ns), {
    body: {
      apiVersion: API_VERSION,
      kind: 'TemplateInstance',
      metadata: { name, ...(finalizers ? { finalizers } : {}) },
      spec: { templateRef: { name: template, namespace: ns } },
    },
  })
  await eventually(`TemplateInstance ${ns}/${name} in the webhook cache`, async () =>
    server.caches.instances.get(ns, name)?.metadata?.uid === ti.metadata.uid ? true : undefined,
  )
  return { ns, instance: name, uid: ti.metadata.uid, template }
}

/** Strict template + instance in a fresh namespace. */
async function strictOwner(
  tt: Parameters<typeof freshNamespace>[0],
  ignoreFields: string[] = [],
  mode: SyncMode = 'strict',
): Promise<Owner> {
  const ns = await freshNamespace(tt, admin, 'wh')
  await createTemplate(ns, 'tpl', mode, ignoreFields)
  return createInstance(ns, 'inst', 'tpl')
}

function ownershipMeta(o: Owner, mode: SyncMode, uid = o.uid): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: {
      app: 'web',
      [LABEL_INSTANCE]: o.instance,
      [LABEL_INSTANCE_UID]: uid,
      [LABEL_INSTANCE_NAME]: o.instance,
      [LABEL_INSTANCE_NAMESPACE]: o.ns,
      [LABEL_SYNC_MODE]: mode,
    },
    annotations: { [ANNOTATION_INSTANCE_REF]: `${o.ns}/${o.instance}`, note: 'rendered' },
  }
}

async function renderedConfigMap(
  o: Owner,
  name: string,
  mode: SyncMode = 'strict',
  data: Record<string, string> = { color: 'blue', secretish: 'hunter2-value' },
  uid?: string,
): Promise<void> {
  await admin.request('POST', cmPath(o.ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...ownershipMeta(o, mode, uid) }, data },
  })
}

type Raw = RawAnswer

/** A request through the admin credentials that also returns the headers (Warning) and the raw Status. */
const raw = (method: string, path: string, body?: unknown, contentType = MERGE): Promise<Raw> =>
  rawRequest(admin, method, path, body, contentType)

const decisions = (): Promise<number> => decisionCount(server)

// The API server loads webhook configurations asynchronously: wait until ours is called.
{
  const ns = await freshNamespace(t, admin, 'wh')
  await createTemplate(ns, 'tpl', 'strict')
  const o = await createInstance(ns, 'inst', 'tpl')
  await renderedConfigMap(o, 'probe')
  const before = await decisions()
  await waitUntilCalled(
    () => raw('PATCH', `${cmPath(ns, 'probe')}?dryRun=All`, { data: { color: String(Math.random()) } }),
    async () => (await decisions()) > before,
  )
}

// ---- tests -------------------------------------------------------------------

t.test('strict: an UPDATE outside ignoreFields is denied and the message reaches the client', async (t) => {
  const o = await strictOwner(t, ['metadata.annotations'])
  await renderedConfigMap(o, 'web')
  const res = await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: 'red', extra: 'x' } })
  t.equal(res.status, 403, 'forbidden')
  const msg = res.body.message ?? ''
  t.match(msg, /denied the request/, 'the API server reports an admission denial')
  t.match(msg, `TemplateInstance ${o.ns}/inst`, 'names the owning TemplateInstance')
  t.match(msg, 'data.color', 'names the changed path')
  t.match(msg, 'data.extra', 'names the added path')
  t.match(msg, /ignoreFields/, 'says how to proceed')
  t.notMatch(msg, 'red', 'never echoes field values')
  const line = logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'admission denied' && l.target === `${o.ns}/web`)
  t.ok(line, 'one denial log line')
  t.equal(line?.instance, `${o.ns}/inst`)
  t.equal(line?.reason, 'ProtectedFieldChanged')
  t.same(line?.paths, ['data.color', 'data.extra'])
  t.equal(line?.user, 'template-sync-admin')
  t.notOk(
    logLines.some((l) => l.includes('hunter2-value') || l.includes('"red"')),
    'no field value in any log line',
  )

  const dry = await raw('PATCH', `${cmPath(o.ns, 'web')}?dryRun=All`, { data: { color: 'green' } })
  t.equal(dry.status, 403, 'a dry-run request is judged like a real one')
})

t.test('strict: an UPDATE inside ignoreFields is allowed', async (t) => {
  const o = await strictOwner(t, ['metadata.annotations', 'data.color'])
  await renderedConfigMap(o, 'web')
  const res = await raw('PATCH', cmPath(o.ns, 'web'), { metadata: { annotations: { touched: 'yes' } }, data: { color: 'red' } })
  t.equal(res.status, 200, JSON.stringify(res.body.message ?? ''))
  const outside = await raw('PATCH', cmPath(o.ns, 'web'), { data: { secretish: 'changed' } })
  t.equal(outside.status, 403, 'a path outside the list is still guarded')
  await setIgnoreFields(o.ns, 'tpl', ['data'])
  const now = await raw('PATCH', cmPath(o.ns, 'web'), { data: { secretish: 'changed' } })
  t.equal(now.status, 200, 'a new Template generation takes effect')
})

t.test('strict: DELETE is denied', async (t) => {
  const o = await strictOwner(t)
  await renderedConfigMap(o, 'web')
  const res = await raw('DELETE', cmPath(o.ns, 'web'))
  t.equal(res.status, 403)
  t.match(res.body.message ?? '', `TemplateInstance ${o.ns}/inst`)
  t.match(res.body.message ?? '', /cannot be deleted/)
  t.equal((await raw('GET', cmPath(o.ns, 'web'))).status, 200, 'still there')
})

t.test('strict: DELETE is allowed while the owning TemplateInstance is being deleted', async (t) => {
  const ns = await freshNamespace(t, admin, 'wh')
  await createTemplate(ns, 'tpl', 'strict')
  const o = await createInstance(ns, 'inst', 'tpl', ['template-sync.test/hold'])
  t.teardown(() =>
    admin.request('PATCH', tiPath(ns, 'inst'), { body: { metadata: { finalizers: null } }, contentType: MERGE }).catch(() => undefined),
  )
  await renderedConfigMap(o, 'web')
  t.equal((await raw('DELETE', cmPath(ns, 'web'))).status, 403, 'denied while the owner lives')
  await admin.request('DELETE', tiPath(ns, 'inst'))
  await eventually('owner deletion seen by the cache', async () =>
    server.caches.instances.get(ns, 'inst')?.metadata?.deletionTimestamp ? true : undefined,
  )
  const res = await raw('DELETE', cmPath(ns, 'web'))
  t.equal(res.status, 200, JSON.stringify(res.body.message ?? ''))
})

t.test('deleting a namespace that holds strict objects completes', async (t) => {
  const ns = `wh-nsdel-${process.pid}-${Date.now().toString(36)}`
  await admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })
  await createTemplate(ns, 'tpl', 'strict')
  const o = await createInstance(ns, 'inst', 'tpl')
  await renderedConfigMap(o, 'a')
  await renderedConfigMap(o, 'b')
  t.equal((await raw('DELETE', cmPath(ns, 'a'))).status, 403, 'strict objects are protected before the namespace goes')
  await admin.request('DELETE', `/api/v1/namespaces/${ns}`)
  try {
    await eventually(
      `namespace ${ns} gone`,
      async () => ((await admin.getOrUndefined(`/api/v1/namespaces/${ns}`)) === undefined ? true : undefined),
      60_000,
      500,
    )
  } catch (e) {
    const left = await admin.getOrUndefined<{ status?: unknown }>(`/api/v1/namespaces/${ns}`)
    t.comment(JSON.stringify(left?.status))
    t.comment(
      logLines
        .filter((l) => l.includes(ns))
        .slice(-10)
        .join('\n'),
    )
    throw e
  }
  t.pass('the namespace controller emptied and removed the namespace')
})

t.test('strict: removing the ownership label is denied even when metadata.labels is ignored', async (t) => {
  const o = await strictOwner(t, ['metadata.labels', 'metadata.annotations'])
  await renderedConfigMap(o, 'web')
  const ok = await raw('PATCH', cmPath(o.ns, 'web'), { metadata: { labels: { app: 'other', extra: 'x' } } })
  t.equal(ok.status, 200, 'other labels may change')
  const res = await raw('PATCH', cmPath(o.ns, 'web'), { metadata: { labels: { [LABEL_INSTANCE]: null } } })
  t.equal(res.status, 403)
  t.match(res.body.message ?? '', LABEL_INSTANCE)
  const ann = await raw('PATCH', cmPath(o.ns, 'web'), { metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: null } } })
  t.equal(ann.status, 403, 'the instance-ref annotation is protected too')
})

t.test('revert: the change is allowed with a warning that reaches the client', async (t) => {
  const o = await strictOwner(t, [], 'revert')
  await renderedConfigMap(o, 'web', 'revert')
  const res = await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: 'red' } })
  t.equal(res.status, 200, JSON.stringify(res.body.message ?? ''))
  const warning = String(res.headers['warning'] ?? '')
  t.match(warning, `this change will be reverted by TemplateInstance ${o.ns}/inst`, 'Warning header carries the admission warning')
})

t.test('strict: /scale is denied unless spec.replicas is ignored', async (t) => {
  const o = await strictOwner(t)
  const meta = ownershipMeta(o, 'strict')
  const created = await admin.request<{ metadata: { uid: string } }>('POST', deployPath(o.ns), {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', ...meta },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example.invalid/web:1' }] } },
      },
    },
  })
  await eventually('Deployment in the scale-target cache', async () =>
    server.caches.scaleTargets.get('apps/deployments')?.get(o.ns, 'web')?.metadata?.uid === created.metadata.uid ? true : undefined,
  )
  const denied = await raw('PATCH', `${deployPath(o.ns, 'web')}/scale`, { spec: { replicas: 3 } })
  t.equal(denied.status, 403, 'kubectl scale is denied')
  t.match(denied.body.message ?? '', 'spec.replicas')
  t.match(denied.body.message ?? '', `TemplateInstance ${o.ns}/inst`)
  await setIgnoreFields(o.ns, 'tpl', ['spec.replicas'])
  const allowed = await raw('PATCH', `${deployPath(o.ns, 'web')}/scale`, { spec: { replicas: 3 } })
  t.equal(allowed.status, 200, JSON.stringify(allowed.body.message ?? ''))
  const d = await admin.get<{ spec: { replicas: number } }>(deployPath(o.ns, 'web'))
  t.equal(d.spec.replicas, 3, 'scaled')
  const image = await raw(
    'PATCH',
    deployPath(o.ns, 'web'),
    { spec: { template: { spec: { containers: [{ name: 'web', image: 'example.invalid/web:2' }] } } } },
    'application/strategic-merge-patch+json',
  )
  t.equal(image.status, 403, 'the rest of the Deployment stays guarded')
})

t.test('a missing TemplateInstance or Template allows the change', async (t) => {
  const ns = await freshNamespace(t, admin, 'wh')
  const ghost: Owner = { ns, instance: 'ghost', uid: '00000000-0000-0000-0000-000000000000', template: 'tpl' }
  await renderedConfigMap(ghost, 'orphan')
  t.equal((await raw('PATCH', cmPath(ns, 'orphan'), { data: { color: 'red' } })).status, 200, 'owner not found')
  t.equal((await raw('DELETE', cmPath(ns, 'orphan'))).status, 200, 'delete too')
  const o = await createInstance(ns, 'inst', 'no-such-template')
  await renderedConfigMap(o, 'web')
  t.equal((await raw('PATCH', cmPath(ns, 'web'), { data: { color: 'red' } })).status, 200, 'template not found')
})

t.test('a TemplateInstance recreated with the same name does not enforce over an object of the old one', async (t) => {
  const o = await strictOwner(t)
  await renderedConfigMap(o, 'web')
  t.equal((await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: 'red' } })).status, 403, 'enforced for the original owner')
  await admin.request('DELETE', tiPath(o.ns, 'inst'))
  await eventually('old instance gone from the cache', async () =>
    server.caches.instances.get(o.ns, 'inst') === undefined ? true : undefined,
  )
  const again = await createInstance(o.ns, 'inst', 'tpl')
  t.not(again.uid, o.uid, 'new UID')
  const res = await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: 'green' } })
  t.equal(res.status, 200, 'the namesake does not inherit enforcement')
  await renderedConfigMap(again, 'web2')
  t.equal((await raw('PATCH', cmPath(o.ns, 'web2'), { data: { color: 'red' } })).status, 403, 'its own objects are enforced')
})

t.test('a review near the largest object size is judged, not refused as too large', async (t) => {
  // '<' is sent by the API server as a six-byte escape: about 1.4 MiB of it is ~17 MiB per review.
  const o = await strictOwner(t, ['spec.template.spec.containers[*].env'])
  const big = '<'.repeat(1.4 * 1024 * 1024)
  const dep = (value: string): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'big', ...ownershipMeta(o, 'strict') },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'big' } },
      template: {
        metadata: { labels: { app: 'big' } },
        spec: { containers: [{ name: 'c', image: 'x', env: [{ name: 'V', value: value }] }] },
      },
    },
  })
  await admin.request('POST', deployPath(o.ns), { body: dep(big) })
  const over16MiB = async (): Promise<number> => {
    const h = await readHistogram(server.metrics.bodyBytes)
    return h.count - (h.buckets.find((b) => b.le === 16 * 1024 * 1024)?.count ?? 0)
  }
  const before = await over16MiB()
  // A patch of the one field: the deployment controller's own annotations stay as they are.
  const res = await raw(
    'PATCH',
    deployPath(o.ns, 'big'),
    [{ op: 'replace', path: '/spec/template/spec/containers/0/env/0/value', value: `${big.slice(1)}z` }],
    'application/json-patch+json',
  )
  t.equal(res.status, 200, JSON.stringify(res.body.message ?? '').slice(0, 300))
  // The deployment controller's status write that follows is as large.
  t.ok((await over16MiB()) - before >= 1, 'the API server sent a review of more than 16 MiB for a 1.4 MiB object')
  const denied = await raw('PATCH', deployPath(o.ns, 'big'), { spec: { replicas: 2 } })
  t.equal(denied.status, 403, 'and a guarded change to the same big object is still denied')
})

t.test('the serving certificate rotates without a restart', async (t) => {
  const o = await strictOwner(t)
  await renderedConfigMap(o, 'web')
  const fingerprint = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port: server.port, ca: first.ca, servername: 'localhost' }, () => {
        resolve(s.getPeerCertificate().fingerprint256)
        s.end()
      })
      s.on('error', reject)
    })
  const before = await fingerprint()
  t.equal(before, server.certs.pair.fingerprint)
  const reloads = server.certs.reloads

  const second = issueServingCert(['127.0.0.1', 'localhost'])
  writeSecretVolume(certDir, { 'tls.crt': second.cert, 'tls.key': second.key }, 'v2')
  await eventually('new pair loaded', async () => (server.certs.reloads > reloads ? true : undefined), 10_000)
  const after = await fingerprint()
  t.not(after, before, 'new handshakes get the new certificate')
  for (let i = 0; i < 5; i++) {
    const res = await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: `c${i}` } })
    t.equal(res.status, 403, `call ${i} after rotation reaches the webhook and is judged`)
  }

  // A pair whose key does not match is refused; the one in use stays.
  const third = issueServingCert(['127.0.0.1', 'localhost'])
  const rejectedBefore = await readValue(server.metrics.certReloads, { result: 'rejected' })
  writeSecretVolume(certDir, { 'tls.crt': third.cert, 'tls.key': second.key }, 'v3')
  await eventually(
    'mismatched pair rejected',
    async () => ((await readValue(server.metrics.certReloads, { result: 'rejected' })) > rejectedBefore ? true : undefined),
    10_000,
  )
  t.equal(await fingerprint(), after, 'still serving the last good pair')
  t.equal((await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: 'x' } })).status, 403, 'and the API server still gets answers')
})

t.test('admission requests make no Kubernetes API calls', async (t) => {
  const o = await strictOwner(t, ['data.color'])
  await renderedConfigMap(o, 'web')
  const nonWatch = (): number => Object.entries(webhookClient.counter.byVerb).reduce((n, [verb, c]) => (verb === 'WATCH' ? n : n + c), 0)
  const calls = nonWatch()
  const judged = await decisions()
  const results: number[] = []
  for (let i = 0; i < 20; i++) {
    results.push((await raw('PATCH', cmPath(o.ns, 'web'), { data: { color: `c${i}` } })).status)
    results.push((await raw('PATCH', cmPath(o.ns, 'web'), { data: { secretish: `s${i}` } })).status)
  }
  t.same([...new Set(results)].sort(), [200, 403], 'both allowed and denied requests were made')
  t.ok((await decisions()) - judged >= 40, 'every request reached the webhook')
  t.equal(nonWatch(), calls, 'no list/get/write by the webhook client during 40 admission requests')
})

t.test('health, readiness and metrics', async (t) => {
  const get = async (path: string): Promise<{ status: number; text: string; type: string }> => {
    const r = await fetch(`${server.healthUrl}${path}`)
    return { status: r.status, text: await r.text(), type: r.headers.get('content-type') ?? '' }
  }
  t.equal((await get('/healthz')).status, 200)
  t.equal((await get('/readyz')).status, 200, 'ready once the caches synced')
  const m = await get('/metrics')
  t.match(m.type, 'text/plain; version=0.0.4')
  t.match(
    m.text,
    /template_sync_webhook_decisions_total\{result="deny",reason="ProtectedFieldChanged",operation="UPDATE",mode="strict"\} \d+/,
  )
  t.match(m.text, /template_sync_webhook_cache_synced\{cache="templateinstances"\} 1/)
  t.match(m.text, /template_sync_webhook_cache_objects\{cache="namespaces"\} \d+/)
  t.match(m.text, /template_sync_webhook_cert_reloads_total\{result="loaded"\} [1-9]/)
  t.match(m.text, /template_sync_webhook_decision_duration_seconds_bucket\{le="0.005",result="deny"\} \d+/)
  t.match(m.text, /template_sync_webhook_reflector_recoveries_total\{cache="templates",kind="error"\} \d+/)
  t.match(m.text, /^process_resident_memory_bytes [1-9]\d*$/m, "prom-client's process metrics")
  t.match(m.text, /^nodejs_heap_size_used_bytes [1-9]\d*$/m, 'and its Node.js metrics')
  const recoveries = logLines.filter((l) => l.includes('"recovery"'))
  t.same(recoveries, [], 'no cache needed a recovery during the run')
})
