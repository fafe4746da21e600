// Fixtures for webhook tests on the real API server: a strict (or revert)
// Template and TemplateInstance known to the webhook's caches, the ownership
// metadata a rendered object carries, and raw requests that return the
// status, headers and Status body the client sees.

import { request as httpsRequest, type RequestOptions } from 'node:https'
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
} from '../../../src/api/names.ts'
import type { KubeClient } from '../../../src/kube/client.ts'
import type { WebhookCaches } from '../../../src/webhook/caches.ts'
import pino from 'pino'
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from '../../../src/webhook/server.ts'
import { eventually } from './cluster.ts'

export const MERGE = 'application/merge-patch+json'
export const STRATEGIC = 'application/strategic-merge-patch+json'

export interface Owner {
  readonly ns: string
  readonly instance: string
  readonly uid: string
  readonly template: string
}

export const tplPath = (ns: string, name = ''): string =>
  `/apis/${API_VERSION}/namespaces/${ns}/${PLURAL_TEMPLATE}${name ? `/${name}` : ''}`
export const tiPath = (ns: string, name = ''): string =>
  `/apis/${API_VERSION}/namespaces/${ns}/${PLURAL_TEMPLATE_INSTANCE}${name ? `/${name}` : ''}`

/** A Template and a TemplateInstance in `ns`, once the webhook's caches hold both. */
export async function ownerIn(
  client: KubeClient,
  caches: WebhookCaches,
  ns: string,
  opts: { mode?: SyncMode; ignoreFields?: string[]; finalizers?: string[] } = {},
): Promise<Owner> {
  await client.request('POST', tplPath(ns), {
    body: {
      apiVersion: API_VERSION,
      kind: 'Template',
      metadata: { name: 'tpl' },
      spec: { gotemplate: 'kind: ConfigMap', sync: { mode: opts.mode ?? 'strict', ignoreFields: opts.ignoreFields ?? [] } },
    },
  })
  const ti = await client.request<{ metadata: { uid: string } }>('POST', tiPath(ns), {
    body: {
      apiVersion: API_VERSION,
      kind: 'TemplateInstance',
      metadata: { name: 'inst', ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) },
      spec: { templateRef: { name: 'tpl', namespace: ns } },
    },
  })
  await eventually(`Template and TemplateInstance in ${ns} cached by the webhook`, async () =>
    caches.templates.get(ns, 'tpl') !== undefined && caches.instances.get(ns, 'inst')?.metadata?.uid === ti.metadata.uid ? true : undefined,
  )
  return { ns, instance: 'inst', uid: ti.metadata.uid, template: 'tpl' }
}

/** The labels and annotation template-sync stamps on what it renders. */
export function ownershipMeta(
  o: Owner,
  mode: SyncMode = 'strict',
): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: {
      app: 'web',
      [LABEL_INSTANCE]: o.instance,
      [LABEL_INSTANCE_UID]: o.uid,
      [LABEL_INSTANCE_NAME]: o.instance,
      [LABEL_INSTANCE_NAMESPACE]: o.ns,
      [LABEL_SYNC_MODE]: mode,
    },
    annotations: { [ANNOTATION_INSTANCE_REF]: `${o.ns}/${o.instance}`, note: 'rendered' },
  }
}

export interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: { message?: string; [k: string]: unknown }
}

/** A request with the client's credentials that returns status, headers (Warning) and the parsed body. */
export async function rawRequest(
  client: KubeClient,
  method: string,
  path: string,
  body?: unknown,
  contentType = MERGE,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const url = new URL(client.server + path)
  const opts: RequestOptions & { headers: Record<string, string> } = {
    method,
    hostname: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    headers: {},
  }
  await client.kubeConfig.applyToHTTPSOptions(opts)
  Object.assign(opts.headers, headers)
  opts.headers['Accept'] = 'application/json'
  if (body !== undefined) opts.headers['Content-Type'] = contentType
  return new Promise((resolve, reject) => {
    const req = httpsRequest(opts, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as RawAnswer['body']) : {} })
      })
    })
    req.on('error', reject)
    if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body))
    req.end()
  })
}

/** Admission decisions the webhook has made so far, from its metrics. */
export async function decisionCount(server: Pick<WebhookServer, 'metrics'>): Promise<number> {
  return (await server.metrics.registry.render())
    .split('\n')
    .filter((l) => l.startsWith('template_sync_webhook_decisions_total{'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0)
}

/** The webhook in this process on loopback ports, once its caches have synced. Stop it with shutdown(). */
export async function startTestWebhook(
  opts: Pick<WebhookServerOptions, 'client' | 'certDir'> & Partial<WebhookServerOptions> & { operatorUsernames?: string[] },
): Promise<WebhookServer> {
  const { operatorUsernames, ...rest } = opts
  const server = await startWebhookServer({
    log: pino({ level: process.env.TEMPLATE_SYNC_TEST_LOG ?? 'silent' }),
    config: { operatorUsernames: operatorUsernames ?? [] },
    host: '127.0.0.1',
    port: 0,
    healthHost: '127.0.0.1',
    healthPort: 0,
    drainMs: 0,
    ...rest,
  })
  await server.synced()
  return server
}
