// Helpers for reconciler tests: install the CRDs, run a Manager in-process
// against the test control plane, create Templates and TemplateInstances, and
// wait for conditions.

import pino, { type Logger } from 'pino'
import { crdManifests } from '../../../src/api/crds.ts'
import { API_VERSION, GROUP, VERSION } from '../../../src/api/names.ts'
import type { Template, TemplateSpec } from '../../../src/api/template.ts'
import type { TemplateInstance, TemplateInstanceSpec } from '../../../src/api/templateinstance.ts'
import type { Condition } from '../../../src/api/meta.ts'
import { KubeClient, CONTENT_APPLY, CONTENT_MERGE } from '../../../src/kube/client.ts'
import { Manager } from '../../../src/controller/manager.ts'
import type { InstanceReconcilerOptions, EventSink } from '../../../src/controller/instance.ts'
import { createRenderPipeline, createTemplateValidator } from '../../../src/reconciler/wiring.ts'
import { createHelmSupport, type HelmSupportOptions } from '../../../src/reconciler/helm.ts'
import { clusterInfo, eventually } from './cluster.ts'

export async function installCrds(client: KubeClient): Promise<void> {
  for (const crd of crdManifests()) {
    const name = (crd as { metadata: { name: string } }).metadata.name
    await client.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, {
      body: crd,
      contentType: CONTENT_APPLY,
      query: { fieldManager: 'template-sync-test', force: true },
    })
    await eventually(`CRD ${name} established`, async () => {
      const got = await client.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      )
      return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined
    })
  }
  await eventually('API group served', () => client.getOrUndefined(`/apis/${GROUP}/${VERSION}`))
}

export interface RunningManager {
  manager: Manager
  client: KubeClient
  events: { reason: string; message: string; type: string }[]
  /** Passes over the instance `namespace/name` this manager has finished (successful or not). */
  passes(key: string): number
  stop(): Promise<void>
}

export async function startManager(
  opts: {
    instanceOptions?: Partial<InstanceReconcilerOptions>
    client?: KubeClient
    /** spec.helm settings (plain-HTTP registries, retry interval, render limits). */
    helm?: Omit<HelmSupportOptions, 'client'>
    /** Default: silent, or $TEMPLATE_SYNC_TEST_LOG. */
    log?: Logger
    /** Where Events go instead of the in-memory list (e.g. an EventRecorder, to count its writes). */
    events?: EventSink
  } = {},
): Promise<RunningManager> {
  const client = opts.client ?? KubeClient.fromFile(clusterInfo().kubeconfig, 'template-sync')
  const events: RunningManager['events'] = []
  const sink: EventSink = {
    normal: (_o, reason, message) => void events.push({ type: 'Normal', reason, message }),
    warning: (_o, reason, message) => void events.push({ type: 'Warning', reason, message }),
  }
  const helm = createHelmSupport({ ...opts.helm, client })
  const manager = new Manager({
    client,
    pipeline: createRenderPipeline(client, helm),
    validator: createTemplateValidator(helm),
    events: opts.events ?? sink,
    log: opts.log ?? pino({ level: process.env.TEMPLATE_SYNC_TEST_LOG ?? 'silent' }),
    workers: 4,
    ...(opts.instanceOptions ? { instanceOptions: opts.instanceOptions } : {}),
  })
  // Counts each finished pass by instance key: a signal that a pass ran that needs no request of its own.
  const passes = new Map<string, number>()
  const reconciler = manager.instanceReconciler
  const reconcile = reconciler.reconcile.bind(reconciler)
  reconciler.reconcile = async (namespace, name) => {
    try {
      return await reconcile(namespace, name)
    } finally {
      const key = `${namespace}/${name}`
      passes.set(key, (passes.get(key) ?? 0) + 1)
    }
  }
  await manager.start()
  return {
    manager,
    client,
    events,
    passes: (key) => passes.get(key) ?? 0,
    stop: async () => {
      await manager.shutdown()
      await helm.close()
      if (!opts.client) client.close()
    },
  }
}

const base = `/apis/${GROUP}/${VERSION}`
export const templatePath = (ns: string, name = ''): string => `${base}/namespaces/${ns}/templates${name ? `/${name}` : ''}`
export const instancePath = (ns: string, name = ''): string => `${base}/namespaces/${ns}/templateinstances${name ? `/${name}` : ''}`

export async function createTemplate(client: KubeClient, ns: string, name: string, spec: TemplateSpec): Promise<Template> {
  return client.request<Template>('POST', templatePath(ns), {
    body: { apiVersion: API_VERSION, kind: 'Template', metadata: { name, namespace: ns }, spec },
  })
}

export async function patchTemplateSpec(client: KubeClient, ns: string, name: string, spec: Partial<TemplateSpec>): Promise<void> {
  await client.request('PATCH', templatePath(ns, name), { body: { spec }, contentType: CONTENT_MERGE })
}

export async function createInstance(client: KubeClient, ns: string, name: string, spec: TemplateInstanceSpec): Promise<TemplateInstance> {
  return client.request<TemplateInstance>('POST', instancePath(ns), {
    body: { apiVersion: API_VERSION, kind: 'TemplateInstance', metadata: { name, namespace: ns }, spec },
  })
}

export async function getInstance(client: KubeClient, ns: string, name: string): Promise<TemplateInstance | undefined> {
  return client.getOrUndefined<TemplateInstance>(instancePath(ns, name))
}

export function condition(obj: { status?: { conditions?: Condition[] } } | undefined, type: string): Condition | undefined {
  return obj?.status?.conditions?.find((c) => c.type === type)
}

/** Waits until the instance has condition `type` with `status` (and `reason`, when given). */
export async function waitForCondition(
  client: KubeClient,
  ns: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 30_000,
): Promise<TemplateInstance> {
  let last: Condition | undefined
  let all: readonly Condition[] = []
  try {
    return await eventually(
      `TemplateInstance ${ns}/${name} ${type}=${status}${reason ? `/${reason}` : ''}`,
      async () => {
        const i = await getInstance(client, ns, name)
        last = condition(i, type)
        all = i?.status?.conditions ?? []
        return last?.status === status && (reason === undefined || last.reason === reason) ? i : undefined
      },
      timeoutMs,
      150,
    )
  } catch (e) {
    const others = all.filter((c) => c.status !== 'True').map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message ?? ''}`)
    throw new Error(
      `${(e as Error).message}; last ${type}: ${JSON.stringify(last)}${others.length > 0 ? `; not True: ${others.join('; ')}` : ''}`,
    )
  }
}

export async function waitForTemplateCondition(
  client: KubeClient,
  ns: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 30_000,
): Promise<Template> {
  return eventually(
    `Template ${ns}/${name} ${type}=${status}`,
    async () => {
      const t = await client.getOrUndefined<Template>(templatePath(ns, name))
      const c = condition(t as { status?: { conditions?: Condition[] } }, type)
      return c?.status === status && (reason === undefined || c.reason === reason) ? t : undefined
    },
    timeoutMs,
    150,
  )
}

/** Deletes an instance and waits until it is gone (its cleanup finished). */
export async function deleteInstance(client: KubeClient, ns: string, name: string, timeoutMs = 30_000): Promise<void> {
  await client.request('DELETE', instancePath(ns, name)).catch(() => {})
  await eventually(
    `TemplateInstance ${ns}/${name} gone`,
    async () => ((await getInstance(client, ns, name)) === undefined ? true : undefined),
    timeoutMs,
  )
}

/** A ConfigMap manifest template, for Templates in tests. */
export function configMapTemplate(name: string, data: Record<string, string>): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${name}`,
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: ${v}`),
  ].join('\n')
}
