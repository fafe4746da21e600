// `template-sync local`: the whole system on this machine. Builds (or reuses)
// the control-plane binaries, starts etcd + kube-apiserver +
// kube-controller-manager, installs the CRDs and the chart's own webhook
// configuration (pointing at a local URL), runs the webhook and the reconciler
// as separate processes with their own identities, applies examples/, and
// prints what to try. Ctrl-C stops everything. `--check` runs the walkthrough
// itself (a denied edit, a reverted edit) and exits.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadAll } from 'js-yaml'
import { startControlPlane, freePort, defaultBinDir, type ControlPlane } from '../local/controlplane.ts'
import { KubeClient, CONTENT_APPLY, CONTENT_MERGE } from '../kube/client.ts'
import { RestMapper, resourcePath } from '../kube/discovery.ts'
import { KubeApiError } from '../kube/errors.ts'
import { crdManifests } from '../api/crds.ts'
import { GROUP, VERSION } from '../api/names.ts'

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const NAMESPACE = 'template-sync'
const RECONCILER_SA = 'template-sync-reconciler'

type Out = (line: string) => void

interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string }
  [k: string]: unknown
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
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

async function applyManifest(client: KubeClient, mapper: RestMapper, m: Manifest): Promise<void> {
  const mapping = await mapper.mapping(m.apiVersion, m.kind)
  await client.request('PATCH', resourcePath(mapping, m.metadata.namespace, m.metadata.name), {
    body: m,
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'template-sync-local', force: true },
  })
}

function buildBinaries(out: Out): void {
  out('building (or reusing) the control-plane binaries and helm ...')
  const r = spawnSync('bash', [join(root, 'test/cluster/build.sh'), 'etcd', 'kube-apiserver', 'kube-controller-manager', 'helm'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (r.status !== 0) throw new Error('test/cluster/build.sh failed (Go 1.26 is needed to build the local control plane)')
}

function startProcess(name: string, args: string[], logDir: string, out: Out): ChildProcess {
  const logFile = join(logDir, `${name}.log`)
  const child = spawn(process.execPath, [join(root, 'bin/template-sync.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const sink = (b: Buffer): void => {
    writeFileSync(logFile, b, { flag: 'a' })
    lines.push(...b.toString().split('\n').filter(Boolean))
    if (lines.length > 50) lines.splice(0, lines.length - 50)
  }
  child.stdout?.on('data', sink)
  child.stderr?.on('data', sink)
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) out(`${name} exited with code ${code}; last log lines:\n${lines.slice(-10).join('\n')}`)
  })
  return child
}

async function waitHealthy(port: number, what: string): Promise<void> {
  await until(`${what} ready`, async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined), 90_000)
}

function tokenKubeconfig(cp: ControlPlane, token: string, path: string): void {
  const ca = Buffer.from(cp.caPem).toString('base64')
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: local',
      `  cluster: {server: "${cp.server}", certificate-authority-data: ${ca}}`,
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

function walkthrough(kubeconfig: string): string {
  const k = `kubectl --kubeconfig ${kubeconfig}`
  return `
template-sync is running on a local control plane.

  export KUBECONFIG=${kubeconfig}

strict (NetworkPolicy baseline in team-a): edits are denied at admission
  ${k} -n team-a label networkpolicy default-deny-ingress tier=changed
      -> denied: names TemplateInstance team-a/baseline and the changed path
  ${k} -n team-a annotate networkpolicy default-deny-ingress note=allowed
      -> allowed: metadata.annotations is in sync.ignoreFields

revert (Deployment team-a/web): drift is put back within a second
  ${k} -n team-a set image deployment/web web=registry.example.com/web:evil
  ${k} -n team-a get deployment web -o jsonpath='{.spec.template.spec.containers[0].image}'
  ${k} -n team-a scale deployment web --replicas=5     # kept: spec.replicas is ignored

off (ConfigMap team-a/team-settings): seeded once, then yours
  ${k} -n team-a patch configmap team-settings --type merge -p '{"data":{"log-level":"debug"}}'

status and events
  ${k} get templateinstances -A
  ${k} -n team-a describe templateinstance web

Press Ctrl-C to stop everything.
`
}

export async function runLocal(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: { stdout?: NodeJS.WritableStream } = {},
): Promise<number> {
  const out: Out = (line) => void (io.stdout ?? process.stdout).write(`${line}\n`)
  let flags
  try {
    flags = parseArgs({
      args: [...argv],
      options: { check: { type: 'boolean' }, 'skip-build': { type: 'boolean' }, 'state-dir': { type: 'string' } },
      strict: true,
    }).values
  } catch (e) {
    out(`${(e as Error).message}\nusage: template-sync local [--check] [--skip-build] [--state-dir DIR]`)
    return 2
  }
  const t0 = Date.now()
  if (!flags['skip-build']) buildBinaries(out)
  const stateDir = resolve(flags['state-dir'] ?? env.TEMPLATE_SYNC_LOCAL_DIR ?? join(root, '.local'))
  mkdirSync(stateDir, { recursive: true })
  const children: ChildProcess[] = []
  let cp: ControlPlane | undefined
  let client: KubeClient | undefined
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    out('stopping ...')
    // The webhook configuration goes first: with the webhook gone it would block writes.
    if (client)
      await client.request('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/template-sync`).catch(() => {})
    for (const c of children) c.kill('SIGTERM')
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)))))
    client?.close()
    await cp?.stop()
  }
  const onSignal = (): void => void stop().then(() => process.exit(0))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    cp = await startControlPlane({ log: (m) => out(`control plane: ${m}`), binDir: defaultBinDir() })
    const kubeconfig = join(stateDir, 'kubeconfig')
    writeFileSync(kubeconfig, readFileSync(cp.kubeconfigPath), { mode: 0o600 })
    client = KubeClient.fromFile(cp.kubeconfigPath, 'template-sync-local')
    const mapper = new RestMapper(client)
    for (const crd of crdManifests()) await applyManifest(client, mapper, crd as unknown as Manifest)
    await until(
      'CRDs served',
      () => client?.getOrUndefined(`/apis/${GROUP}/${VERSION}/templates`).catch(() => undefined) ?? Promise.resolve(undefined),
    )
    for (const ns of [NAMESPACE, 'platform', 'team-a'])
      await applyManifest(client, mapper, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })

    // The reconciler runs as its own ServiceAccount, so that the webhook
    // exempts it and nobody else (cluster-admin only on this local cluster).
    await applyManifest(client, mapper, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: RECONCILER_SA, namespace: NAMESPACE },
    })
    await applyManifest(client, mapper, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'template-sync-local-reconciler' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: RECONCILER_SA, namespace: NAMESPACE }],
    })
    const tr = await client.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${RECONCILER_SA}/token`,
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86400 } } },
    )
    const reconcilerKubeconfig = join(stateDir, 'reconciler.kubeconfig')
    tokenKubeconfig(cp, tr.status.token, reconcilerKubeconfig)

    const certDir = join(stateDir, 'webhook-tls')
    mkdirSync(certDir, { recursive: true })
    const cert = cp.issueServingCert('webhook', ['127.0.0.1', 'localhost'])
    writeFileSync(join(certDir, 'tls.crt'), cert.certPem)
    writeFileSync(join(certDir, 'tls.key'), cert.keyPem, { mode: 0o600 })
    const [webhookPort, webhookHealth, reconcilerHealth] = [await freePort(), await freePort(), await freePort()]
    const operator = `system:serviceaccount:${NAMESPACE}:${RECONCILER_SA}`
    children.push(
      startProcess(
        'webhook',
        [
          'webhook',
          '--kubeconfig',
          cp.kubeconfigPath,
          '--cert-dir',
          certDir,
          '--listen-address',
          '127.0.0.1',
          '--port',
          String(webhookPort),
          '--health-address',
          '127.0.0.1',
          '--health-port',
          String(webhookHealth),
          '--operator-usernames',
          operator,
        ],
        stateDir,
        out,
      ),
    )
    children.push(
      startProcess(
        'reconciler',
        [
          'reconciler',
          '--kubeconfig',
          reconcilerKubeconfig,
          '--health-address',
          '127.0.0.1',
          '--health-port',
          String(reconcilerHealth),
          '--leader-election-namespace',
          NAMESPACE,
        ],
        stateDir,
        out,
      ),
    )
    await waitHealthy(webhookHealth, 'webhook')
    await waitHealthy(reconcilerHealth, 'reconciler')

    // The chart's own webhook configuration, pointed at the local server.
    const helm = join(defaultBinDir(), 'helm')
    const rendered = spawnSync(
      helm,
      [
        'template',
        'template-sync',
        join(root, 'charts/template-sync'),
        '--namespace',
        NAMESPACE,
        '--kube-version',
        '1.37.2',
        '--show-only',
        'templates/webhook-configuration.yaml',
        '--set',
        `webhook.url=https://127.0.0.1:${webhookPort}/validate`,
        '--set',
        `webhook.caBundle=${Buffer.from(cp.caPem).toString('base64')}`,
      ],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(stateDir, 'helm'),
          HELM_CONFIG_HOME: join(stateDir, 'helm'),
          HELM_DATA_HOME: join(stateDir, 'helm'),
        },
      },
    )
    if (rendered.status !== 0) throw new Error(`helm template failed: ${rendered.stderr}`)
    for (const doc of loadAll(rendered.stdout)) if (doc) await applyManifest(client, mapper, doc as Manifest)

    for (const f of readdirSync(join(root, 'examples'))
      .filter((n) => n.endsWith('.yaml'))
      .sort()) {
      for (const doc of loadAll(readFileSync(join(root, 'examples', f), 'utf8')))
        if (doc) await applyManifest(client, mapper, doc as Manifest)
    }
    const instances = ['baseline', 'web', 'settings']
    for (const name of instances) {
      await until(`TemplateInstance team-a/${name} Ready`, async () => {
        const i = await client?.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
          `/apis/${GROUP}/${VERSION}/namespaces/team-a/templateinstances/${name}`,
        )
        return i?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined
      })
    }
    out(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (control plane ${(cp.startMs / 1000).toFixed(1)} s); logs in ${stateDir}`)

    if (flags.check) {
      const ok = await check(client, out)
      await stop()
      return ok ? 0 : 1
    }
    out(walkthrough(kubeconfig))
    await new Promise<never>(() => {})
  } catch (e) {
    out(`template-sync local failed: ${(e as Error).message}`)
    await stop()
    return 1
  }
  return 0
}

/** The walkthrough, done by a program: a denied strict edit, a reverted one, a kept ignored field. */
async function check(client: KubeClient, out: Out): Promise<boolean> {
  // The admin client is not exempt from the webhook: it acts like a user.
  const np = '/apis/networking.k8s.io/v1/namespaces/team-a/networkpolicies/default-deny-ingress'
  const denied = await client
    .request('PATCH', np, { body: { metadata: { labels: { tier: 'changed' } } }, contentType: CONTENT_MERGE })
    .catch((e: unknown) => e)
  const deniedOk = denied instanceof KubeApiError && denied.code === 403 && /team-a\/baseline/.test(denied.apiMessage)
  out(`check: strict edit denied: ${deniedOk ? 'yes' : `NO (${String(denied)})`}`)
  const allowed = await client
    .request('PATCH', np, { body: { metadata: { annotations: { note: 'allowed' } } }, contentType: CONTENT_MERGE })
    .then(
      () => true,
      () => false,
    )
  out(`check: ignored annotation allowed: ${allowed ? 'yes' : 'NO'}`)
  const dep = '/apis/apps/v1/namespaces/team-a/deployments/web'
  await client.request('PATCH', dep, {
    body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example.com/web:evil' }] } } } },
    contentType: 'application/strategic-merge-patch+json',
  })
  const reverted = await until(
    'revert',
    async () => {
      const d = await client.get<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(dep)
      return d.spec.template.spec.containers[0]?.image === 'registry.example.com/web:1.4.2' ? true : undefined
    },
    15_000,
  ).then(
    () => true,
    () => false,
  )
  out(`check: revert-mode drift reverted: ${reverted ? 'yes' : 'NO'}`)
  await client.request('PATCH', `${dep}/scale`, { body: { spec: { replicas: 5 } }, contentType: CONTENT_MERGE })
  await sleep(1500)
  const scaled = (await client.get<{ spec: { replicas: number } }>(dep)).spec.replicas === 5
  out(`check: ignored spec.replicas kept: ${scaled ? 'yes' : 'NO'}`)
  return deniedOk && allowed && reverted && scaled
}
