// template-sync on a running control plane, as `template-sync local` sets it
// up: the CRDs, the reconciler's ServiceAccount (cluster-admin on this local
// cluster only) and a token kubeconfig for it, a serving certificate for the
// webhook, the two processes under a Supervisor, and the chart's own
// ValidatingWebhookConfiguration (rendered from charts/template-sync by our
// Helm engine, no helm binary) pointed at the local webhook. The control
// plane itself is the caller's (local.ts starts one; the outage test brings
// the test cluster's).

import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { crdManifests } from '../api/crds.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { GROUP, VERSION } from '../api/names.ts'
import { CONTENT_APPLY, type KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import { RestMapper, resourcePath } from '../kube/discovery.ts'
import { freePort } from '../local/controlplane.ts'
import { loadChartDirectory } from '../helm/chart/load.ts'
import { DEFAULT_API_VERSIONS, type HelmRenderInput, renderChart } from '../helm/render/index.ts'
import type { Supervisor } from './supervisor.ts'

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
export const SYSTEM_NAMESPACE = 'template-sync'
const RECONCILER_SA = 'template-sync-reconciler'
const FIELD_MANAGER = 'template-sync-local'

/** What the system needs of a control plane (ControlPlane from src/local/controlplane.ts has it). */
export interface LocalCluster {
  readonly server: string
  /** An admin kubeconfig. */
  readonly kubeconfigPath: string
  /** The CA that signs the API server's certificate and the serving certificates below. */
  readonly caPem: string
  issueServingCert(name: string, sans: readonly string[]): { readonly certPem: string; readonly keyPem: string }
}

export interface SystemOptions {
  readonly cluster: LocalCluster
  /** Admin client of the cluster. */
  readonly client: KubeClient
  readonly supervisor: Supervisor
  /** Logs, certificates and kubeconfigs go here. */
  readonly stateDir: string
  readonly signal?: AbortSignal
}

export interface RunningSystem {
  readonly webhookPort: number
  readonly webhookHealthPort: number
  readonly reconcilerHealthPort: number
  /** Deletes the webhook configuration (first thing at shutdown: without the webhook it would block strict objects). */
  removeWebhookConfiguration(): Promise<void>
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls fn until it returns a value; fails after timeoutMs with what it waited for and the last error. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    signal?.throwIfAborted()
    try {
      const v = await fn()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
    await sleep(200)
  }
}

/** Server-side apply of one manifest, as the local field manager. */
export async function applyManifest(client: KubeClient, mapper: RestMapper, m: IdentifiedObject): Promise<void> {
  const mapping = await mapper.mapping(m.apiVersion, m.kind)
  await client.request('PATCH', resourcePath(mapping, m.metadata.namespace, m.metadata.name), {
    body: m,
    contentType: CONTENT_APPLY,
    query: { fieldManager: FIELD_MANAGER, force: true },
  })
}

function tokenKubeconfig(cluster: LocalCluster, token: string, path: string): void {
  const ca = Buffer.from(cluster.caPem).toString('base64')
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: local',
      `  cluster: {server: "${cluster.server}", certificate-authority-data: ${ca}}`,
      'users:',
      '- name: reconciler',
      `  user: {token: "${token}"}`,
      'contexts:',
      '- name: local',
      '  context: {cluster: local, user: reconciler}',
      'current-context: local',
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
}

async function waitHealthy(port: number, what: string, signal?: AbortSignal): Promise<void> {
  await until(
    `${what} ready`,
    async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined),
    90_000,
    signal,
  )
}

export const LOCAL_CHART_DIR = join(REPO_ROOT, 'charts/template-sync')
export const LOCAL_CHART_RELEASE = 'template-sync'
/** The control plane's version (src/local/controlplane.ts), as .Capabilities.KubeVersion. */
export const LOCAL_KUBE_VERSION = 'v1.37.2'
const WEBHOOK_CONFIGURATION_TEMPLATE = `${LOCAL_CHART_RELEASE}/templates/webhook-configuration.yaml`
const TENANT_ROLES_TEMPLATE = `${LOCAL_CHART_RELEASE}/templates/rbac-tenants.yaml`

/**
 * What `local` renders the project's own chart with: `helm template
 * template-sync charts/template-sync -n template-sync --kube-version 1.37.2
 * --set webhook.url=URL --set webhook.caBundle=BASE64`, with our engine.
 */
export async function localChartInput(url: string, caPem: string, webhookValues: Record<string, unknown> = {}): Promise<HelmRenderInput> {
  return {
    chart: await loadChartDirectory(LOCAL_CHART_DIR, { helm: 'v3' }),
    helm: 'v3',
    releaseName: LOCAL_CHART_RELEASE,
    namespace: SYSTEM_NAMESPACE,
    values: { webhook: { ...webhookValues, url, caBundle: Buffer.from(caPem).toString('base64') } },
    capabilities: { kubeVersion: LOCAL_KUBE_VERSION, apiVersions: DEFAULT_API_VERSIONS },
  }
}

/** The objects of one template file of the chart, rendered as `local` renders it (plus `webhook.*` values). */
async function renderChartFile(
  file: string,
  url: string,
  caPem: string,
  webhookValues?: Record<string, unknown>,
): Promise<IdentifiedObject[]> {
  const { objects } = renderChart(await localChartInput(url, caPem, webhookValues))
  return objects.filter((o) => o.template === file).map((o) => o.object as unknown as IdentifiedObject)
}

/** The chart's ValidatingWebhookConfiguration, pointed at a local URL and CA. */
export function renderWebhookConfiguration(
  url: string,
  caPem: string,
  webhookValues?: Record<string, unknown>,
): Promise<IdentifiedObject[]> {
  return renderChartFile(WEBHOOK_CONFIGURATION_TEMPLATE, url, caPem, webhookValues)
}

/**
 * The chart's roles for tenants (rbac-tenants.yaml): TemplateInstances for the
 * built-in admin, edit and view roles, and the template-author ClusterRole.
 */
export function renderTenantRoles(): Promise<IdentifiedObject[]> {
  return renderChartFile(TENANT_ROLES_TEMPLATE, 'https://127.0.0.1/validate', '')
}

async function reconcilerKubeconfig(client: KubeClient, mapper: RestMapper, cluster: LocalCluster, path: string): Promise<void> {
  // Its own ServiceAccount, so that the webhook exempts it and nobody else.
  await applyManifest(client, mapper, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: RECONCILER_SA, namespace: SYSTEM_NAMESPACE },
  })
  await applyManifest(client, mapper, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'template-sync-local-reconciler' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: RECONCILER_SA, namespace: SYSTEM_NAMESPACE }],
  })
  const tr = await client.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${SYSTEM_NAMESPACE}/serviceaccounts/${RECONCILER_SA}/token`,
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86400 } } },
  )
  tokenKubeconfig(cluster, tr.status.token, path)
}

/** Installs template-sync on the cluster and starts its two processes under the supervisor; resolves once both are ready. */
export async function startSystem(opts: SystemOptions): Promise<RunningSystem> {
  const { client, cluster, supervisor, stateDir, signal } = opts
  const mapper = new RestMapper(client)
  for (const crd of crdManifests()) await applyManifest(client, mapper, crd as unknown as IdentifiedObject)
  await until(
    'the CRDs to be served',
    () => client.getOrUndefined(`/apis/${GROUP}/${VERSION}/templates`).catch(() => undefined),
    60_000,
    signal,
  )
  await applyManifest(client, mapper, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } })
  for (const role of await renderTenantRoles()) await applyManifest(client, mapper, role)
  const reconcilerConfig = join(stateDir, 'reconciler.kubeconfig')
  await reconcilerKubeconfig(client, mapper, cluster, reconcilerConfig)

  const certDir = join(stateDir, 'webhook-tls')
  mkdirSync(certDir, { recursive: true })
  const cert = cluster.issueServingCert('webhook', ['127.0.0.1', 'localhost'])
  writeFileSync(join(certDir, 'tls.crt'), cert.certPem)
  writeFileSync(join(certDir, 'tls.key'), cert.keyPem, { mode: 0o600 })
  const [webhookPort, webhookHealthPort, reconcilerHealthPort] = [await freePort(), await freePort(), await freePort()]
  const bin = join(REPO_ROOT, 'bin/template-sync.js')
  signal?.throwIfAborted()
  supervisor.start({
    name: 'webhook',
    command: process.execPath,
    logFile: join(stateDir, 'webhook.log'),
    args: [
      bin,
      'webhook',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--cert-dir',
      certDir,
      '--listen-address',
      '127.0.0.1',
      '--port',
      String(webhookPort),
      '--health-address',
      '127.0.0.1',
      '--health-port',
      String(webhookHealthPort),
      '--operator-usernames',
      `system:serviceaccount:${SYSTEM_NAMESPACE}:${RECONCILER_SA}`,
      // The webhook configuration is deleted before the webhook stops: no traffic to drain.
      '--drain-seconds',
      '0',
    ],
  })
  supervisor.start({
    name: 'reconciler',
    command: process.execPath,
    logFile: join(stateDir, 'reconciler.log'),
    args: [
      bin,
      'reconciler',
      '--kubeconfig',
      reconcilerConfig,
      '--health-address',
      '127.0.0.1',
      '--health-port',
      String(reconcilerHealthPort),
      '--leader-election-namespace',
      SYSTEM_NAMESPACE,
    ],
  })
  await waitHealthy(webhookHealthPort, 'webhook', signal)
  await waitHealthy(reconcilerHealthPort, 'reconciler', signal)

  const webhookConfigs = await renderWebhookConfiguration(`https://127.0.0.1:${webhookPort}/validate`, cluster.caPem)
  for (const doc of webhookConfigs) await applyManifest(client, mapper, doc)
  return {
    webhookPort,
    webhookHealthPort,
    reconcilerHealthPort,
    async removeWebhookConfiguration() {
      for (const doc of webhookConfigs) {
        const mapping = await mapper.mapping(doc.apiVersion, doc.kind)
        await client.request('DELETE', resourcePath(mapping, undefined, doc.metadata.name), { timeoutMs: 5000 }).catch((e: unknown) => {
          if (!(e instanceof KubeApiError && e.code === 404)) throw e
        })
      }
    },
  }
}
