// Installs a ValidatingWebhookConfiguration that points at a local HTTPS server
// (url + caBundle, the way envtest rewrites service references) and waits until
// the API server really calls it.

import type { KubeClient } from '../../../src/kube/client.ts'
import { KubeApiError } from '../../../src/kube/errors.ts'

export interface WebhookInstall {
  name: string
  url: string
  caPem: string
  rules: Record<string, unknown>[]
  matchConditions?: { name: string; expression: string }[]
  namespaceSelector?: Record<string, unknown>
  objectSelector?: Record<string, unknown>
  failurePolicy?: 'Fail' | 'Ignore'
  timeoutSeconds?: number
}

export async function installValidatingWebhook(client: KubeClient, w: WebhookInstall): Promise<() => Promise<void>> {
  const body = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: w.name },
    webhooks: [
      {
        name: `${w.name}.template-sync.test`,
        clientConfig: { url: w.url, caBundle: Buffer.from(w.caPem).toString('base64') },
        rules: w.rules,
        ...(w.matchConditions ? { matchConditions: w.matchConditions } : {}),
        ...(w.namespaceSelector ? { namespaceSelector: w.namespaceSelector } : {}),
        ...(w.objectSelector ? { objectSelector: w.objectSelector } : {}),
        failurePolicy: w.failurePolicy ?? 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: w.timeoutSeconds ?? 5,
      },
    ],
  }
  await client.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body })
  return async () => {
    try {
      await client.request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${w.name}`)
    } catch (e) {
      if (!(e instanceof KubeApiError && e.code === 404)) throw e
    }
  }
}

/**
 * Repeats a probe (usually a dry-run request that the webhook must see) until
 * `seen()` reports that the server received a call: the API server loads
 * webhook configurations asynchronously.
 */
export async function waitUntilCalled(
  probe: () => Promise<unknown>,
  seen: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await seen())) {
    try {
      await probe()
    } catch {
      // a denial is fine: we only wait for the call
    }
    if (await seen()) return
    if (Date.now() > deadline) throw new Error(`webhook was not called within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
