// The admission app through inject: reviews in, reviews out; every malformed
// request answered with a Status and a 4xx; metrics and log lines per decision.

import t from 'tap'
import { once } from 'node:events'
import { type AddressInfo, connect } from 'node:net'
import { Writable } from 'node:stream'
import pino from 'pino'
import { buildWebhookApp } from '../../src/webhook/app.ts'
import { createWebhookMetrics } from '../../src/webhook/metrics.ts'
import { readHistogram, readValue } from '../../src/telemetry/metrics.ts'
import { addScaleTarget, admissionReview, renderedDeployment, syntheticCaches } from '../fixtures/webhook-synthetic.ts'
import type { AdmissionResponse } from '../../src/admission/types.ts'
import type { KubeObject } from '../../src/api/meta.ts'

const OPERATOR = 'system:serviceaccount:template-sync:reconciler'

function setup(opts: { ready?: () => boolean; level?: string } = {}): {
  app: ReturnType<typeof buildWebhookApp>
  metrics: ReturnType<typeof createWebhookMetrics>
  lines: Record<string, unknown>[]
  caches: ReturnType<typeof syntheticCaches>
} {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done): void {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>)
      done()
    },
  })
  // Template 0 ignores spec.replicas and metadata.annotations, template 1 only metadata.annotations.
  const caches = syntheticCaches({ templates: 2, instances: 4 })
  const metrics = createWebhookMetrics()
  const app = buildWebhookApp({
    lookups: caches.lookups,
    config: { operatorUsernames: [OPERATOR] },
    log: pino({ level: opts.level ?? 'debug' }, sink),
    metrics,
    canServe: opts.ready ?? (() => true),
    bodyLimit: 256 * 1024,
  })
  return { app, metrics, lines, caches }
}

type Dep = KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }

function owned(caches: ReturnType<typeof syntheticCaches>, index: number): { stored: Dep; changed: Dep } {
  const owner = caches.owners[index]
  if (!owner) throw new Error('no owner')
  const stored = renderedDeployment(owner) as Dep
  return { stored, changed: structuredClone(stored) }
}

/** A review or a Status: whatever came back. */
interface Answer {
  apiVersion?: string
  kind?: string
  response?: AdmissionResponse
  code?: number
  message?: string
}

async function send(
  app: ReturnType<typeof buildWebhookApp>,
  body: unknown,
  contentType = 'application/json',
): Promise<{ status: number; json: Answer }> {
  const res = await app.inject({
    method: 'POST',
    url: '/validate',
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': contentType },
  })
  return { status: res.statusCode, json: res.json() }
}

t.test('a strict change outside ignoreFields is denied with the owner and paths', async (t) => {
  const { app, metrics, lines, caches } = setup()
  const { stored, changed } = owned(caches, 1)
  const container = changed.spec.template.spec.containers[0]
  if (container) container.image = 'registry.example.com/other:2'
  const review = admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored, uid: 'uid-1' })
  const res = await send(app, review)
  t.equal(res.status, 200)
  t.equal(res.json.apiVersion, 'admission.k8s.io/v1')
  t.equal(res.json.kind, 'AdmissionReview')
  t.equal(res.json.response?.uid, 'uid-1', 'uid echoed')
  t.equal(res.json.response?.allowed, false)
  t.equal(res.json.response?.status?.code, 403)
  t.match(res.json.response?.status?.message, `TemplateInstance ${caches.owners[1]?.namespace}/${caches.owners[1]?.instance}`)
  t.match(res.json.response?.status?.message, 'spec.template.spec.containers[0].image')
  t.equal(await readValue(metrics.decisions, { result: 'deny', reason: 'ProtectedFieldChanged', operation: 'UPDATE', mode: 'strict' }), 1)
  t.equal(
    await readValue(metrics.denials, { instance_namespace: caches.owners[1]?.namespace ?? '', reason: 'ProtectedFieldChanged' }),
    1,
    'the denial is counted under the namespace of the owning instance',
  )
  t.equal((await readHistogram(metrics.duration, { result: 'deny' })).count, 1)
  const line = lines.find((l) => l.msg === 'admission denied')
  t.ok(line, 'denial logged')
  t.equal(line?.uid, 'uid-1')
  t.equal(line?.user, 'jane@example.com')
  t.equal(line?.resource, 'apps/v1/deployments')
  t.equal(line?.reason, 'ProtectedFieldChanged')
  t.same(line?.paths, ['spec.template.spec.containers[0].image'])
  const text = JSON.stringify(lines)
  t.notMatch(text, 'registry.example.com/other:2', 'no field value logged')
  t.notMatch(text, 'SETTING_', 'no object content logged')
})

t.test('allowed decisions answer allowed and log at debug only', async (t) => {
  const { app, metrics, lines, caches } = setup()
  const { stored, changed } = owned(caches, 0)
  changed.spec.replicas = 9
  const res = await send(app, admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored }))
  t.equal(res.json.response?.allowed, true, 'spec.replicas is ignored by template 0')
  t.equal(await readValue(metrics.decisions, { result: 'allow', reason: 'NoProtectedChange', operation: 'UPDATE', mode: 'strict' }), 1)
  t.equal((await metrics.denials.get()).values.length, 0, 'no denial counted')
  t.equal(lines.filter((l) => l.msg === 'admission allowed').length, 1)
  const quiet = setup({ level: 'info' })
  const again = owned(quiet.caches, 0)
  await send(quiet.app, admissionReview({ operation: 'UPDATE', object: again.stored, oldObject: again.stored }))
  t.same(quiet.lines, [], 'nothing logged for an allow at info')
})

t.test('open connections and unanswered requests are gauged while they last', async (t) => {
  const metrics = createWebhookMetrics()
  const caches = syntheticCaches({ templates: 1, instances: 1 })
  const app = buildWebhookApp({
    lookups: caches.lookups,
    config: { operatorUsernames: [OPERATOR] },
    log: pino({ level: 'silent' }),
    metrics,
    canServe: () => true,
    maxConnections: 7,
  })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  t.equal(await readValue(metrics.maxConnections), 7)
  const socket = connect({ host: '127.0.0.1', port })
  t.teardown(() => socket.destroy())
  await once(socket, 'connect')
  const body = JSON.stringify(admissionReview({ operation: 'CREATE', object: { apiVersion: 'v1', kind: 'ConfigMap' } }))
  // Headers and half the body: the request has arrived and is not answered yet.
  socket.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`)
  socket.write(body.slice(0, 10))
  await eventuallyEqual(() => readValue(metrics.inflight), 1)
  t.equal(await readValue(metrics.connections), 1, 'one connection open')
  socket.write(body.slice(10))
  await once(socket, 'data')
  await eventuallyEqual(() => readValue(metrics.inflight), 0)
  socket.end()
  await eventuallyEqual(() => readValue(metrics.connections), 0)
  t.pass('both gauges went back to 0')
})

/** Polls read until it returns want (for gauges moved by socket events), failing after a second. */
async function eventuallyEqual(read: () => Promise<number>, want: number): Promise<void> {
  const deadline = Date.now() + 1000
  let last = await read()
  while (last !== want) {
    if (Date.now() > deadline) throw new Error(`expected ${want}, still ${last}`)
    await new Promise((r) => setTimeout(r, 5))
    last = await read()
  }
}

t.test('operator identity, DELETE, dry-run and /scale', async (t) => {
  const { app, caches } = setup()
  const { stored, changed } = owned(caches, 1)
  changed.spec.replicas = 9
  const op = await send(app, admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored, username: OPERATOR }))
  t.equal(op.json.response?.allowed, true, 'the operator is never judged')
  const del = await send(app, admissionReview({ operation: 'DELETE', oldObject: stored }))
  t.equal(del.json.response?.allowed, false, 'strict DELETE denied')
  t.match(del.json.response?.status?.message, /cannot be deleted/)
  const dry = await send(app, admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored, dryRun: true }))
  t.equal(dry.json.response?.allowed, false, 'dry-run judged like a real request')
  addScaleTarget(caches, stored)
  const scale = (replicas: number): KubeObject => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: stored.metadata?.name ?? '', namespace: stored.metadata?.namespace ?? '', uid: stored.metadata?.uid ?? '' },
    spec: { replicas },
  })
  const scaled = await send(
    app,
    admissionReview({
      operation: 'UPDATE',
      object: scale(5),
      oldObject: scale(3),
      subResource: 'scale',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    }),
  )
  t.equal(scaled.json.response?.allowed, false, '/scale denied when spec.replicas is not ignored')
  t.match(scaled.json.response?.status?.message, 'spec.replicas')
})

t.test('before the caches sync, reviews get 503 so failurePolicy decides', async (t) => {
  let ready = false
  const { app, metrics, caches } = setup({ ready: () => ready })
  const { stored } = owned(caches, 1)
  const review = admissionReview({ operation: 'DELETE', oldObject: stored })
  const early = await send(app, review)
  t.equal(early.status, 503)
  t.equal(early.json.kind, 'Status')
  t.notOk('response' in early.json, 'no review, so no verdict')
  t.equal(await readValue(metrics.rejected, { code: '503', cause: 'NotReady' }), 1)
  ready = true
  t.equal((await send(app, review)).status, 200)
})

t.test('malformed requests: 4xx Status, never a review', async (t) => {
  const { app, metrics, caches } = setup()
  const { stored } = owned(caches, 1)
  const valid = admissionReview({ operation: 'DELETE', oldObject: stored })
  const cases: { name: string; body: unknown; type?: string; status: number; message: RegExp }[] = [
    { name: 'not JSON', body: 'not json', status: 400, message: /not valid JSON/ },
    { name: 'empty', body: '', status: 400, message: /empty/ },
    {
      name: 'wrong apiVersion',
      body: { ...valid, apiVersion: 'admission.k8s.io/v1beta1' },
      status: 400,
      message: /apiVersion must be admission.k8s.io\/v1/,
    },
    { name: 'wrong kind', body: { ...valid, kind: 'Review' }, status: 400, message: /kind must be AdmissionReview/ },
    {
      name: 'missing uid',
      body: { ...valid, request: { ...valid.request, uid: undefined } },
      status: 400,
      message: /request.uid must be a string/,
    },
    {
      name: 'unknown operation',
      body: { ...valid, request: { ...valid.request, operation: 'PATCH' } },
      status: 400,
      message: /request.operation must be one of/,
    },
    { name: 'YAML content type', body: valid, type: 'application/yaml', status: 415, message: /application\/json/ },
    { name: 'too deep', body: '['.repeat(10_003) + ']'.repeat(10_003), status: 400, message: /nests deeper than 10002 levels/ },
    // Too short to nest that deep and still close every bracket: the parser refuses it.
    { name: 'deep and unclosed', body: '['.repeat(20_000), status: 400, message: /not valid JSON/ },
    { name: 'too large', body: JSON.stringify({ ...valid, pad: 'x'.repeat(300 * 1024) }), status: 413, message: /exceeds/ },
  ]
  for (const c of cases) {
    const res = await send(app, c.body, c.type)
    t.equal(res.status, c.status, `${c.name}: status`)
    t.equal(res.json.kind, 'Status', `${c.name}: a Status body`)
    t.equal(res.json.code, c.status, `${c.name}: code in the body`)
    t.match(res.json.message, c.message, `${c.name}: message`)
    t.notOk('response' in res.json, `${c.name}: no verdict`)
  }
  t.equal(await readValue(metrics.rejected, { code: '400', cause: 'InvalidEnvelope' }), 4)
  t.equal(await readValue(metrics.rejected, { code: '415', cause: 'UnsupportedMediaType' }), 1)
  t.equal(await readValue(metrics.rejected, { code: '413', cause: 'BodyTooLarge' }), 1)
  const get = await app.inject({ method: 'GET', url: '/validate' })
  t.equal(get.statusCode, 404, 'only POST')
})

t.test('a ConfigMap key named __proto__ is data, judged like any other key', async (t) => {
  const { app, caches } = setup()
  const { stored } = owned(caches, 1)
  const cm = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: stored.metadata,
    data: { a: '1' },
    extra: value,
  })
  const text = JSON.stringify(
    admissionReview({
      operation: 'UPDATE',
      object: cm('new'),
      oldObject: cm('old'),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
    }),
  ).replaceAll('"data":{"a":"1"}', '"data":{"__proto__":"x","a":"1"}')
  const res = await send(app, text)
  t.equal(res.status, 200, 'not refused as prototype poisoning')
  t.equal(res.json.response?.allowed, false, 'and the real change is still judged')
})
