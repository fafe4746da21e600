// The whole of template-sync in the test process, as a cluster runs it: the
// reconciler under an identity of its own, the webhook behind the chart's own
// ValidatingWebhookConfiguration (rendered by our Helm engine, exempting only
// that identity), and both processes' logs kept for inspection. Tests then
// act as the cluster's people (tenancy.ts) through the real API server.

import { Writable } from 'node:stream'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import pino from 'pino'
import tap from 'tap'
import { KubeClient } from '../../../src/kube/client.ts'
import { RestMapper } from '../../../src/kube/discovery.ts'
import { KubeApiError } from '../../../src/kube/errors.ts'
import { applyManifest, renderWebhookConfiguration } from '../../../src/cli/local-system.ts'
import type { WebhookServer } from '../../../src/webhook/server.ts'
import { issueServingCert } from './cluster.ts'
import { userKubeconfig } from './identity.ts'
import { startManager, type RunningManager } from './operator.ts'
import type { InstanceReconcilerOptions } from '../../../src/controller/instance.ts'
import { decisionCount, MERGE, startTestWebhook } from './strict.ts'
import { waitUntilCalled } from './webhook.ts'
import { LABEL_INSTANCE_UID, LABEL_SYNC_MODE } from '../../../src/api/names.ts'

export interface TestSystem {
  readonly webhook: WebhookServer
  readonly reconciler: RunningManager
  /** The reconciler's username, the only one the webhook exempts. */
  readonly reconcilerUser: string
  /** Every log line both processes wrote so far. */
  logs(): string
  stop(): Promise<void>
}

let seq = 0

/**
 * The API server loads webhook configurations asynchronously: patch a
 * strict-labelled probe object (dry-run) until the webhook has judged it.
 */
async function untilCalled(admin: KubeClient, webhook: WebhookServer, name: string): Promise<void> {
  const path = `/api/v1/namespaces/default/configmaps/${name}-probe`
  await admin.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-probe`, labels: { [LABEL_INSTANCE_UID]: 'probe', [LABEL_SYNC_MODE]: 'strict' } },
    },
  })
  try {
    const before = await decisionCount(webhook)
    await waitUntilCalled(
      () => admin.request('PATCH', path, { body: { data: { a: String(Date.now()) } }, contentType: MERGE, query: { dryRun: 'All' } }),
      async () => (await decisionCount(webhook)) > before,
    )
  } finally {
    await admin.request('DELETE', path)
  }
}

function memoryLog(lines: string[]): pino.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  return pino({ level: 'debug' }, sink)
}

export interface TestAdmission {
  readonly webhook: WebhookServer
  stop(): Promise<void>
}

/**
 * The webhook in this process behind the chart's own webhook configuration,
 * exempting only reconcilerUser; resolves once the API server calls it.
 */
export async function startAdmission(admin: KubeClient, reconcilerUser: string, log: pino.Logger): Promise<TestAdmission> {
  const cert = issueServingCert(['127.0.0.1'])
  writeFileSync(join(cert.dir, 'tls.crt'), cert.cert)
  writeFileSync(join(cert.dir, 'tls.key'), cert.key)
  const webhook = await startTestWebhook({ client: admin, certDir: cert.dir, operatorUsernames: [reconcilerUser], log })
  const configs = await renderWebhookConfiguration(`${webhook.url}/validate`, cert.ca, { extraOperatorUsernames: [reconcilerUser] })
  const mapper = new RestMapper(admin)
  const name = `template-sync-test-${process.pid}-${seq++}`
  for (const c of configs) await applyManifest(admin, mapper, { ...c, metadata: { ...c.metadata, name } })
  await untilCalled(admin, webhook, name)
  return {
    webhook,
    async stop() {
      try {
        await admin.request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`)
      } catch (e) {
        if (!(e instanceof KubeApiError && e.code === 404)) throw e
      }
      await webhook.shutdown()
    },
  }
}

/** A username for the reconciler of one test system, unique in the run. */
export const reconcilerUsername = (): string => `template-sync-reconciler-${process.pid}-${seq++}`

/** Logs of both processes, kept in memory. */
export function memoryLogs(): { log: pino.Logger; text: () => string } {
  const lines: string[] = []
  return { log: memoryLog(lines), text: () => lines.join('') }
}

export async function startSystem(
  admin: KubeClient,
  opts: { instanceOptions?: Partial<InstanceReconcilerOptions> } = {},
): Promise<TestSystem> {
  const reconcilerUser = reconcilerUsername()
  const reconcilerClient = KubeClient.fromFile(userKubeconfig(reconcilerUser), 'template-sync')
  const logs = memoryLogs()
  const admission = await startAdmission(admin, reconcilerUser, logs.log.child({ process: 'webhook' }))
  const reconciler = await startManager({
    client: reconcilerClient,
    log: logs.log.child({ process: 'reconciler' }),
    ...(opts.instanceOptions ? { instanceOptions: opts.instanceOptions } : {}),
  })
  return {
    webhook: admission.webhook,
    reconciler,
    reconcilerUser,
    logs: logs.text,
    async stop() {
      await reconciler.stop()
      reconcilerClient.close()
      await admission.stop()
    },
  }
}

/**
 * One test system for a whole test file: started before its first test,
 * stopped after its last, the admin client closed with it. Returns a getter,
 * since the system exists only once the tests run.
 */
export function systemForFile(admin: KubeClient, opts: Parameters<typeof startSystem>[1] = {}): () => TestSystem {
  let system: TestSystem | undefined
  tap.before(async () => {
    system = await startSystem(admin, opts)
  })
  tap.teardown(async () => {
    await system?.stop()
    admin.close()
  })
  return () => {
    if (!system) throw new Error('the test system has not started yet')
    return system
  }
}
