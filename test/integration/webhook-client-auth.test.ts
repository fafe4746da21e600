// Only the API server can call the webhook. This file starts a control plane
// of its own whose kube-apiserver presents a client certificate to webhooks
// (its admission configuration, src/local/controlplane.ts webhookClientCert),
// runs the webhook with that certificate's CA, and shows: the API server's
// reviews are judged, and every other client is refused at the TLS layer
// before it can send a review, whatever review it would have sent.

import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startControlPlane } from '../../src/local/controlplane.ts'
import { KubeClient } from '../../src/kube/client.ts'
import type { WebhookServer } from '../../src/webhook/server.ts'
import { admissionReview } from '../fixtures/webhook-synthetic.ts'
import { installCrds } from './helpers/operator.ts'
import { decisionCount, ownerIn, ownershipMeta, rawRequest, startTestWebhook } from './helpers/strict.ts'
import { installValidatingWebhook, waitUntilCalled } from './helpers/webhook.ts'

const cp = await startControlPlane({ controllerManager: false, webhookClientCert: true })
t.teardown(() => cp.stop())
const client = cp.webhookClient
if (client === undefined) throw new Error('the control plane was started without a webhook client certificate')
const admin = KubeClient.fromFile(cp.kubeconfigPath, 'template-sync-client-auth-test')
t.teardown(() => admin.close())
await installCrds(admin)

const serving = cp.issueServingCert('client-auth-webhook', ['127.0.0.1'])
const certDir = mkdtempSync(join(tmpdir(), 'ts-client-auth-'))
writeFileSync(join(certDir, 'tls.crt'), serving.certPem)
writeFileSync(join(certDir, 'tls.key'), serving.keyPem)

/** A client certificate signed by the given CA, with the given CN. */
function clientCert(name: string, caCert: string, caKey: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ts-client-cert-'))
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'c.key'])
  run(['req', '-new', '-key', 'c.key', '-subj', `/CN=${name}`, '-out', 'c.csr'])
  writeFileSync(join(dir, 'c.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n')
  const args = ['-days', '1', '-sha256', '-extfile', 'c.ext', '-out', 'c.crt']
  run(['x509', '-req', '-in', 'c.csr', '-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-CAserial', join(dir, 'ca.srl'), ...args])
  return { cert: readFileSync(join(dir, 'c.crt'), 'utf8'), key: readFileSync(join(dir, 'c.key'), 'utf8') }
}

const webhookClient = KubeClient.fromFile(cp.kubeconfigPath, 'template-sync-webhook-test')
t.teardown(() => webhookClient.close())

async function webhook(names: readonly string[]): Promise<WebhookServer> {
  const server = await startTestWebhook({ client: webhookClient, certDir, podCache: false, clientAuth: { ca: client?.caPem ?? '', names } })
  t.teardown(() => server.shutdown())
  return server
}

const server = await webhook([client.name])
const decisions = decisionCount

const ns = 'client-auth'
await admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })
const owner = await ownerIn(admin, server.caches, ns)
await admin.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
  body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', ...ownershipMeta(owner) }, data: { color: 'blue' } },
})
const rules = [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE', 'DELETE'], scope: 'Namespaced' }]
t.teardown(
  await installValidatingWebhook(admin, {
    name: 'client-auth',
    url: `${server.url}/validate`,
    caPem: cp.caPem,
    rules,
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
  }),
)
const patch = (): ReturnType<typeof rawRequest> =>
  rawRequest(admin, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/web`, { data: { color: 'red' } })
const before = await decisions(server)
await waitUntilCalled(patch, async () => (await decisions(server)) > before)

interface Outcome {
  readonly answered: boolean
  readonly status?: number
  readonly error?: string
}

/** Sends a review that would be denied straight to the webhook, as someone inside the cluster network could. */
function direct(port: number, tls: { cert?: string; key?: string }): Promise<Outcome> {
  const body = JSON.stringify(
    admissionReview({ operation: 'DELETE', oldObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: ns } } }),
  )
  return new Promise((resolve) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate',
        ca: cp.caPem,
        ...tls,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        agent: false,
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ answered: true, status: res.statusCode ?? 0 }))
      },
    )
    req.on('error', (e) => resolve({ answered: false, error: e.message }))
    req.end(body)
  })
}

t.test("the API server's reviews, sent with its client certificate, are judged", async (t) => {
  const res = await patch()
  t.equal(res.status, 403, 'denied by the webhook')
  t.match(res.body.message ?? '', `TemplateInstance ${ns}/inst`)
})

t.test('a client without a certificate is refused at the TLS layer', async (t) => {
  const judged = await decisions(server)
  const out = await direct(server.port, {})
  t.equal(out.answered, false, `no HTTP answer (${out.error ?? ''})`)
  t.equal(await decisions(server), judged, 'nothing was judged')
})

t.test('a certificate from another CA (the cluster CA) is refused at the TLS layer', async (t) => {
  const other = clientCert(client.name, cp.caCertPath, cp.caKeyPath)
  const out = await direct(server.port, other)
  t.equal(out.answered, false, `no HTTP answer (${out.error ?? ''})`)
})

t.test('a certificate from the right CA with a name outside the list is cut off before HTTP', async (t) => {
  const judged = await decisions(server)
  const out = await direct(server.port, clientCert('someone-else', client.caCertPath, client.caKeyPath))
  t.equal(out.answered, false, `no HTTP answer (${out.error ?? ''})`)
  t.equal(await decisions(server), judged, 'nothing was judged')
  const right = await direct(server.port, clientCert(client.name, client.caCertPath, client.caKeyPath))
  t.strictSame(right, { answered: true, status: 200 }, 'the same request with an accepted name is answered')
})

t.test("names are checked on the API server's own certificate too", async (t) => {
  const picky = await webhook(['not-the-api-server'])
  await admin.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    // Not managed, so the first webhook lets it through and only the picky one decides.
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'picky', labels: { picky: 'yes' } }, data: { color: 'blue' } },
  })
  const remove = await installValidatingWebhook(admin, {
    name: 'client-auth-picky',
    url: `${picky.url}/validate`,
    caPem: cp.caPem,
    rules,
    objectSelector: { matchLabels: { picky: 'yes' } },
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    failurePolicy: 'Fail',
  })
  t.teardown(remove)
  const res = await waitForCallFailure(() =>
    rawRequest(admin, 'PATCH', `/api/v1/namespaces/${ns}/configmaps/picky`, { data: { color: 'x' } }),
  )
  t.match(
    res.body.message ?? '',
    /failed calling webhook "client-auth-picky\.template-sync\.test"/,
    'the API server could not get an answer',
  )
  t.equal(await decisions(picky), 0, 'the picky webhook judged nothing')
})

/** The API server loads webhook configurations asynchronously: retry until the call is made and fails. */
async function waitForCallFailure(send: () => ReturnType<typeof rawRequest>): ReturnType<typeof rawRequest> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const res = await send()
    if (/failed calling webhook "client-auth-picky/.test(res.body.message ?? '') || Date.now() > deadline) return res
    await new Promise((r) => setTimeout(r, 200))
  }
}
