// Self-managed webhook certificates against the real API server: issue into
// an empty Secret, write the certificate directory, inject caBundle into a
// ValidatingWebhookConfiguration, converge when two managers race, rotate the
// serving certificate and the CA. The API server itself checks the result:
// it calls a local HTTPS server that serves the written files, verifying them
// against the injected caBundle with Go's X.509 code.

import t from 'tap'
import { createServer, type Server } from 'node:https'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminClient, eventually, freshNamespace } from './helpers/cluster.ts'
import { CertManager, runCertManager, type CertManagerOptions } from '../../src/certs/manager.ts'
import type { LogFn } from '../../src/telemetry/log.ts'
import { splitCertificates } from '../../src/encoding/pem.ts'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'

const admin = adminClient()
t.teardown(() => admin.close())

interface Secret {
  type?: string
  metadata: { resourceVersion: string }
  data?: Record<string, string>
}
interface Vwc {
  webhooks: { name: string; clientConfig: { url?: string; caBundle?: string } }[]
}

const vwcPath = (name: string): string => `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`
const decoded = (s: Secret): Record<string, string> =>
  Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))

/** Collects log lines; the tests check that no key material ever reaches them. */
function recorder(): { log: LogFn; lines: string[] } {
  const lines: string[] = []
  return { lines, log: (level, msg, fields) => lines.push(JSON.stringify({ level, msg, ...fields })) }
}

/** The HTTPS admission endpoint the API server calls: allows everything, counts calls, serves the certificate directory. */
async function startAdmissionServer(certDir: string): Promise<{ server: Server; port: number; calls: () => number; reload: () => void }> {
  let calls = 0
  const read = () => ({ cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')) })
  const server = createServer({ ...read(), minVersion: 'TLSv1.2' }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      calls++
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } }
      res.setHeader('Content-Type', 'application/json')
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, allowed: true },
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as { port: number }).port
  return { server, port, calls: () => calls, reload: () => server.setSecureContext({ ...read(), minVersion: 'TLSv1.2' }) }
}

async function createWebhookConfiguration(name: string, ns: string, port: number): Promise<void> {
  const entry = (suffix: string) => ({
    name: `${suffix}.certs-test.template-sync.test`,
    // No caBundle yet: the manager injects it.
    clientConfig: { url: `https://localhost:${port}/validate` },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE'], scope: 'Namespaced' }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    objectSelector: { matchLabels: { [`certs-test-${suffix}`]: 'yes' } },
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
  })
  await admin.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [entry('a'), entry('b')],
    },
  })
}

/** Updates a ConfigMap that only the given entry matches; with failurePolicy Fail, success means the TLS call worked. */
async function callThroughApiServer(ns: string, entry: 'a' | 'b', calls: () => number): Promise<void> {
  const name = `probe-${entry}`
  const path = `/api/v1/namespaces/${ns}/configmaps/${name}`
  try {
    await admin.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [`certs-test-${entry}`]: 'yes' } } },
    })
  } catch (e) {
    if (!(e instanceof KubeApiError && e.code === 409)) throw e
  }
  const before = calls()
  await eventually(`the API server to call entry ${entry} over TLS`, async () => {
    await admin.request('PATCH', path, { body: { data: { at: String(Date.now()) } }, contentType: CONTENT_MERGE })
    return calls() > before ? true : undefined
  })
}

function options(ns: string, vwc: string, certDir: string, log: LogFn, extra: Partial<CertManagerOptions> = {}): CertManagerOptions {
  return {
    client: admin,
    secretNamespace: ns,
    secretName: 'webhook-tls',
    webhookConfigurationName: vwc,
    serviceName: 'template-sync-webhook',
    serviceNamespace: ns,
    certDir,
    // The API server dials https://localhost:PORT, so the certificate must name it.
    extraDnsNames: ['localhost'],
    log,
    ...extra,
  }
}

const chainsTo = (leafPem: string, bundlePem: string): string | undefined => {
  const leaf = new X509Certificate(leafPem)
  return splitCertificates(bundlePem)
    .map((p) => new X509Certificate(p))
    .find((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))?.fingerprint256
}

t.test('issues into an empty Secret, writes the files, injects caBundle; the API server accepts the chain', async (t) => {
  const ns = await freshNamespace(t, admin, 'certs')
  const certDir = mkdtempSync(join(tmpdir(), 'ts-certs-'))
  // An empty Secret made by someone else (e.g. a GitOps tool): filled in, its type kept.
  await admin.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'webhook-tls' }, type: 'Opaque' },
  })
  const vwc = `certs-${process.pid}-a`
  // The server needs some certificate to start; the manager's first pass provides the real one.
  const rec = recorder()
  const manager = new CertManager(options(ns, vwc, certDir, rec.log))
  await createWebhookConfiguration(vwc, ns, 1)
  t.teardown(() => admin.request('DELETE', vwcPath(vwc)).catch(() => {}))

  const first = await manager.runOnce()
  t.strictSame(first.steps, ['ca-created', 'serving-issued'])
  t.ok(first.secretWritten && first.filesWritten && first.webhookConfigurationPatched)

  const secret = await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`)
  t.equal(secret.type, 'Opaque')
  const data = decoded(secret)
  t.strictSame(Object.keys(data).sort(), ['ca-signer.crt', 'ca-signer.key', 'ca.crt', 'tls.crt', 'tls.key'])
  t.equal(readFileSync(join(certDir, 'tls.crt'), 'utf8'), data['tls.crt'])
  t.equal(readFileSync(join(certDir, 'tls.key'), 'utf8'), data['tls.key'])
  t.equal(readFileSync(join(certDir, 'ca.crt'), 'utf8'), data['ca.crt'])
  t.ok(chainsTo(data['tls.crt']!, data['ca.crt']!), 'serving certificate chains to the bundle')
  const leaf = new X509Certificate(data['tls.crt']!)
  for (const n of [
    'template-sync-webhook',
    `template-sync-webhook.${ns}`,
    `template-sync-webhook.${ns}.svc`,
    `template-sync-webhook.${ns}.svc.cluster.local`,
    'localhost',
  ])
    t.match(leaf.subjectAltName, `DNS:${n}`)
  const days = (new Date(leaf.validTo).getTime() - Date.now()) / 86_400_000
  t.ok(days > 89 && days <= 90, `serving certificate valid ~90 days (${days.toFixed(2)})`)

  const stored = await admin.get<Vwc>(vwcPath(vwc))
  for (const w of stored.webhooks)
    t.equal(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'), data['ca.crt'], `${w.name}: caBundle injected`)

  const again = await manager.runOnce()
  t.strictSame(again.steps, [])
  t.notOk(again.secretWritten || again.filesWritten || again.webhookConfigurationPatched, 'a second pass writes nothing')
  const unchanged = await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`)
  t.equal(unchanged.metadata.resourceVersion, secret.metadata.resourceVersion)

  // Point the configuration at a real server with these files and let the API server dial it.
  const srv = await startAdmissionServer(certDir)
  t.teardown(() => srv.server.close())
  const current = await admin.get<Vwc & { metadata: Record<string, unknown> }>(vwcPath(vwc))
  await admin.request('PUT', vwcPath(vwc), {
    body: {
      ...current,
      webhooks: current.webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, url: `https://localhost:${srv.port}/validate` } })),
    },
  })
  await callThroughApiServer(ns, 'a', srv.calls)
  await callThroughApiServer(ns, 'b', srv.calls)
  t.pass('the API server verified the served certificate against the injected caBundle')

  t.notMatch(rec.lines.join('\n'), /PRIVATE KEY|BEGIN CERTIFICATE/, 'no key material or PEM in the logs')
})

t.test('two managers racing on an absent Secret converge on one CA', async (t) => {
  const ns = await freshNamespace(t, admin, 'certs-race')
  const vwc = `certs-${process.pid}-b`
  await createWebhookConfiguration(vwc, ns, 1)
  t.teardown(() => admin.request('DELETE', vwcPath(vwc)).catch(() => {}))
  const dirs = [mkdtempSync(join(tmpdir(), 'ts-race-a-')), mkdtempSync(join(tmpdir(), 'ts-race-b-'))]
  const managers = dirs.map((d) => new CertManager(options(ns, vwc, d, recorder().log)))
  const [a, b] = await Promise.all(managers.map((m) => m.runOnce()))
  t.strictSame(a!.bundle, b!.bundle, 'same trust bundle')
  t.equal(a!.bundle.length, 1, 'one CA')
  t.equal([a!.secretWritten, b!.secretWritten].filter(Boolean).length, 1, 'exactly one of them wrote the Secret')
  const secret = decoded(await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`))
  for (const d of dirs) t.equal(readFileSync(join(d, 'tls.crt'), 'utf8'), secret['tls.crt'], 'both serve the stored certificate')
  const stored = await admin.get<Vwc>(vwcPath(vwc))
  for (const w of stored.webhooks) t.equal(Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'), secret['ca.crt'])

  // A wider race: four more passes at once change nothing.
  const more = await Promise.all([...managers, ...managers].map((m) => m.runOnce()))
  t.ok(more.every((r) => !r.secretWritten && r.steps.length === 0))
})

t.test('rotation: serving certificate, then the CA with both trusted in between', async (t) => {
  const ns = await freshNamespace(t, admin, 'certs-rot')
  const vwc = `certs-${process.pid}-c`
  const certDir = mkdtempSync(join(tmpdir(), 'ts-rot-'))
  await createWebhookConfiguration(vwc, ns, 1)
  t.teardown(() => admin.request('DELETE', vwcPath(vwc)).catch(() => {}))
  const rec = recorder()
  await new CertManager(options(ns, vwc, certDir, rec.log)).runOnce()
  const srv = await startAdmissionServer(certDir)
  t.teardown(() => srv.server.close())
  const current = await admin.get<Vwc & { metadata: Record<string, unknown> }>(vwcPath(vwc))
  await admin.request('PUT', vwcPath(vwc), {
    body: {
      ...current,
      webhooks: current.webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, url: `https://localhost:${srv.port}/validate` } })),
    },
  })
  await callThroughApiServer(ns, 'a', srv.calls)
  const before = decoded(await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`))

  // renewBeforeDays beyond the 90-day lifetime: every pass renews the serving certificate.
  const renew = await new CertManager(options(ns, vwc, certDir, rec.log, { renewBeforeDays: 91 })).runOnce()
  t.strictSame(renew.steps, ['serving-issued'])
  const renewed = decoded(await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`))
  t.not(renewed['tls.crt'], before['tls.crt'], 'new serving certificate')
  t.equal(renewed['ca.crt'], before['ca.crt'], 'same CA')
  t.ok(chainsTo(renewed['tls.crt']!, renewed['ca.crt']!), 'chains to the bundle')
  t.equal(readFileSync(join(certDir, 'tls.crt'), 'utf8'), renewed['tls.crt'], 'written to the certificate directory')
  srv.reload()
  await callThroughApiServer(ns, 'a', srv.calls)

  // caRenewBeforeDays beyond the CA's year: the CA is replaced. First pass: the
  // new CA joins the bundle and the serving certificate waits for the API
  // server to trust it; second pass: the serving certificate moves over.
  const rotator = new CertManager(options(ns, vwc, certDir, rec.log, { renewBeforeDays: 91, caRenewBeforeDays: 400 }))
  const step1 = await rotator.runOnce()
  t.strictSame(step1.steps, ['ca-rotated', 'serving-renewal-deferred'])
  t.equal(step1.bundle.length, 2, 'old and new CA trusted')
  t.ok(step1.webhookConfigurationPatched)
  const mid = decoded(await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`))
  t.equal(mid['tls.crt'], renewed['tls.crt'], 'serving certificate unchanged while the new CA propagates')
  t.equal(splitCertificates(mid['ca.crt']!)[1], splitCertificates(renewed['ca.crt']!)[0], 'the old CA is second in the bundle')
  await callThroughApiServer(ns, 'b', srv.calls)

  const step2 = await rotator.runOnce()
  t.strictSame(step2.steps, ['serving-issued'])
  const after = decoded(await admin.get<Secret>(`/api/v1/namespaces/${ns}/secrets/webhook-tls`))
  t.equal(
    chainsTo(after['tls.crt']!, after['ca.crt']!),
    new X509Certificate(splitCertificates(after['ca.crt']!)[0]!).fingerprint256,
    'issued by the new CA',
  )
  t.equal(after['ca-signer.crt'], splitCertificates(after['ca.crt']!)[0])
  srv.reload()
  await callThroughApiServer(ns, 'a', srv.calls)
  await callThroughApiServer(ns, 'b', srv.calls)
  t.pass('the API server accepts the certificate from the new CA')
  const settled = await new CertManager(options(ns, vwc, certDir, rec.log)).runOnce()
  t.notOk(
    settled.secretWritten || settled.filesWritten || settled.webhookConfigurationPatched,
    'with default timing the rotated state is left alone',
  )
  t.notMatch(rec.lines.join('\n'), /PRIVATE KEY|BEGIN CERTIFICATE/, 'no key material or PEM in the logs')
})

t.test('runCertManager: ready after the first pass, keeps checking, stops', async (t) => {
  const ns = await freshNamespace(t, admin, 'certs-loop')
  const certDir = mkdtempSync(join(tmpdir(), 'ts-loop-'))
  const rec = recorder()
  // No webhook configuration at all: certificates are still issued, and the missing configuration is reported.
  const m = runCertManager(options(ns, `certs-${process.pid}-absent`, certDir, rec.log, { checkIntervalMs: 200 }))
  await m.ready
  t.ok(readFileSync(join(certDir, 'tls.crt'), 'utf8').includes('BEGIN CERTIFICATE'))
  await eventually('a few more passes', async () =>
    rec.lines.filter((l) => l.includes('webhook configuration not found')).length >= 3 ? true : undefined,
  )
  await m.stop()
  const n = rec.lines.length
  await new Promise((r) => setTimeout(r, 600))
  t.equal(rec.lines.length, n, 'no passes after stop')
})

t.test('a failing pass is retried and reported without key material', async (t) => {
  const ns = await freshNamespace(t, admin, 'certs-fail')
  const certDir = mkdtempSync(join(tmpdir(), 'ts-fail-'))
  const rec = recorder()
  // A Secret name the API server rejects: every pass fails until stopped.
  const m = runCertManager(
    options(ns, `certs-${process.pid}-x`, certDir, rec.log, { secretName: 'Not_A_Valid_Name', checkIntervalMs: 2_000 }),
  )
  await eventually('two failed passes', async () =>
    rec.lines.filter((l) => l.includes('certificate pass failed')).length >= 2 ? true : undefined,
  )
  await m.stop()
  t.match(
    rec.lines.find((l) => l.includes('certificate pass failed')),
    /"attempt":1/,
  )
  t.notMatch(rec.lines.join('\n'), /PRIVATE KEY/)
})
