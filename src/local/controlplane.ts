// A local Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager
// with its default controllers, kube-scheduler, and kwok for simulated nodes)
// built from Go modules by test/cluster/build.sh. Each component acts under its
// own identity, as in a cluster: the controllers under their service accounts,
// the scheduler as system:kube-scheduler, the simulated kubelets as a node. Used by `template-sync local`,
// the integration tests and the benchmarks. Processes are tracked by pid (never
// by name) in a record file so that a crashed run's leftovers can be reaped.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { request as httpsRequest } from 'node:https'
import { request as httpRequest } from 'node:http'
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync, readdirSync, existsSync, openSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

export const KUBERNETES_VERSION = 'v1.37.2'

export interface ControlPlaneOptions {
  /** Directory with etcd, kube-apiserver, kube-controller-manager. */
  binDir?: string
  /** Work directory; a fresh temporary one when omitted. */
  workDir?: string
  /**
   * Start the cluster's own components: kube-controller-manager (its default
   * controllers), kube-scheduler and kwok with `nodes` simulated nodes, so that
   * Deployments roll out, claims bind and Jobs complete. Default true.
   */
  controllerManager?: boolean
  /** Simulated nodes (kwok) when the components run. Default 1. */
  nodes?: number
  /** Limit for each component to become ready. Default 90 s. */
  startTimeoutMs?: number
  /** Progress messages. */
  log?: (msg: string) => void
  /**
   * Make kube-apiserver present a client certificate to every webhook it
   * calls (through its admission configuration, a kubeconfig whose "*" user
   * has the certificate). The certificate comes from a CA of its own, so a
   * webhook can tell it from the cluster CA's certificates. Off by default.
   */
  webhookClientCert?: boolean
  /** More kube-apiserver flags, after the defaults (benchmarks only: bench/lib/operator.ts, BENCH_APISERVER_ARGS). */
  extraApiServerArgs?: readonly string[]
}

/** The certificate kube-apiserver presents to webhooks when webhookClientCert is on. */
export interface WebhookClientCert {
  /** Subject CN of the certificate. */
  readonly name: string
  readonly caPem: string
  readonly caCertPath: string
  readonly caKeyPath: string
  readonly certPath: string
  readonly keyPath: string
}

export interface ControlPlane {
  readonly workDir: string
  readonly server: string
  readonly kubeconfigPath: string
  readonly caCertPath: string
  readonly caKeyPath: string
  readonly caPem: string
  readonly pids: Readonly<Record<string, number>>
  readonly startMs: number
  /** Set when started with webhookClientCert. */
  readonly webhookClient?: WebhookClientCert
  /** Issues a serving certificate signed by the cluster CA (for webhook servers). */
  issueServingCert(name: string, sans: readonly string[]): { certPath: string; keyPath: string; certPem: string; keyPem: string }
  /** Peak resident memory of each component so far, in MiB (from /proc VmHWM). */
  peakRssMiB(): Record<string, number>
  /** Stops every component (SIGTERM, then SIGKILL) and removes the work directory. */
  stop(opts?: { keepWorkDir?: boolean }): Promise<void>
  /** Stops and restarts kube-apiserver only, keeping etcd and its data. */
  restartApiServer(): Promise<void>
  /** Stops kube-apiserver, keeps it down for `ms`, then starts it again (same port, etcd data kept). */
  apiServerOutage(ms: number): Promise<void>
}

const RECORD_DIR = join(tmpdir(), 'template-sync-controlplanes')

interface Record_ {
  owner: number
  workDir: string
  pids: Record<string, number>
}

/** The cluster's own components, started after the API server in this order. */
const COMPONENTS: readonly string[] = ['kube-controller-manager', 'kube-scheduler', 'kwok']

/** The binaries startControlPlane runs (build.sh targets): with the cluster's components unless told otherwise. */
export function controlPlaneBinaries(withComponents = true): readonly string[] {
  return ['etcd', 'kube-apiserver', ...(withComponents ? COMPONENTS : [])]
}

/** Nodes kwok simulates carry this annotation; it manages no other node. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node'

function kubeconfigText(server: string, caPem: string, cert: string, key: string): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64')
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: local',
    `  cluster: {server: "${server}", certificate-authority-data: ${b64(caPem)}}`,
    'users:',
    '- name: user',
    `  user: {client-certificate-data: ${b64(cert)}, client-key-data: ${b64(key)}}`,
    'contexts:',
    '- name: local',
    '  context: {cluster: local, user: user}',
    'current-context: local',
    '',
  ].join('\n')
}

/**
 * Creates `count` nodes for kwok to simulate (node-0, node-1, ...) and waits
 * until each reports Ready: pods scheduled there run, Jobs' pods complete.
 */
async function startNodes(
  server: string,
  tls: { ca: string; cert: string; key: string },
  count: number,
  waitFor: (what: string, probe: () => Promise<boolean>) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const name = `node-${i}`
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
        labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', type: 'kwok' },
      },
      status: { allocatable: { cpu: '32', memory: '256Gi', pods: '110' }, capacity: { cpu: '32', memory: '256Gi', pods: '110' } },
    }
    const created = await post(`${server}/api/v1/nodes`, node, tls)
    if (created.status !== 201 && created.status !== 409) throw new Error(`creating node ${name}: ${created.status} ${created.body}`)
    await waitFor(`node ${name} Ready (kwok)`, async () => {
      const r = await get(`${server}/api/v1/nodes/${name}`, tls)
      if (r.status !== 200) return false
      const conditions = (JSON.parse(r.body) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []
      return conditions.some((c) => c.type === 'Ready' && c.status === 'True')
    })
  }
}

export function defaultBinDir(): string {
  return resolve(process.env.TEMPLATE_SYNC_BIN_DIR ?? process.env.KUBEBUILDER_ASSETS ?? join(here, '..', '..', 'test', 'cluster', 'bin'))
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/** Kills the processes of control planes whose owning process died without stopping them. */
export function reapLeftovers(log: (m: string) => void = () => {}): void {
  if (!existsSync(RECORD_DIR)) return
  for (const f of readdirSync(RECORD_DIR)) {
    const file = join(RECORD_DIR, f)
    let rec: Record_
    try {
      rec = JSON.parse(readFileSync(file, 'utf8')) as Record_
    } catch {
      rmSync(file, { force: true })
      continue
    }
    if (alive(rec.owner)) continue
    for (const [name, pid] of Object.entries(rec.pids)) {
      if (alive(pid)) {
        log(`reaping leftover ${name} (pid ${pid}) of a crashed run`)
        killGroup(pid, 'SIGKILL')
      }
    }
    rmSync(rec.workDir, { recursive: true, force: true })
    rmSync(file, { force: true })
  }
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', rej)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => res(port))
    })
  })
}

function openssl(cwd: string, args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

function makeCa(dir: string, name = 'ca', subject = '/CN=template-sync-test-ca'): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`])
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    `${name}.key`,
    '-sha256',
    '-days',
    '30',
    '-subj',
    subject,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    `${name}.crt`,
  ])
}

function issueCert(dir: string, name: string, subject: string, ext: string, ca = 'ca'): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`])
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`])
  writeFileSync(join(dir, `${name}.ext`), ext)
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '30',
    '-sha256',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ])
}

function sanList(sans: readonly string[]): string {
  return sans.map((s) => (/^[0-9.]+$/.test(s) || s.includes(':') ? `IP:${s}` : `DNS:${s}`)).join(',')
}

interface Probe {
  status: number
  body: string
}

function get(url: string, tls?: { ca: string; cert?: string; key?: string }): Promise<Probe> {
  return send('GET', url, undefined, tls)
}

function post(url: string, body: unknown, tls: { ca: string; cert?: string; key?: string }): Promise<Probe> {
  return send('POST', url, JSON.stringify(body), tls)
}

function send(method: string, url: string, body: string | undefined, tls?: { ca: string; cert?: string; key?: string }): Promise<Probe> {
  return new Promise((res) => {
    const u = new URL(url)
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method, headers, timeout: 5000, ...(tls ?? {}) }, (r) => {
      let body = ''
      r.setEncoding('utf8')
      r.on('data', (c: string) => (body += c))
      r.on('end', () => res({ status: r.statusCode ?? 0, body }))
      r.on('error', () => res({ status: 0, body: '' }))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', (e) => res({ status: 0, body: String(e) }))
    req.end(body)
  })
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

async function waitFor(
  what: string,
  timeoutMs: number,
  child: ChildProcess | undefined,
  logFile: string | undefined,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (child && child.exitCode !== null) {
      throw new Error(`${what}: process exited with code ${child.exitCode}\n--- tail of ${logFile} ---\n${logFile ? tail(logFile) : ''}`)
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not ready after ${timeoutMs} ms\n--- tail of ${logFile} ---\n${logFile ? tail(logFile) : ''}`)
    }
    await new Promise((r) => setTimeout(r, 150))
  }
}

function peakRss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const m = /VmHWM:\s+(\d+) kB/.exec(status)
    return m ? Math.round(Number(m[1]) / 1024) : 0
  } catch {
    return 0
  }
}

const WEBHOOK_CLIENT_NAME = 'kube-apiserver-webhook-client'

/** A CA of its own and a client certificate signed by it, for kube-apiserver's calls to webhooks. */
function makeWebhookClientCert(pki: string): WebhookClientCert {
  makeCa(pki, 'webhook-client-ca', '/CN=template-sync-test-webhook-client-ca')
  issueCert(
    pki,
    'webhook-client',
    `/CN=${WEBHOOK_CLIENT_NAME}`,
    'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n',
    'webhook-client-ca',
  )
  return {
    name: WEBHOOK_CLIENT_NAME,
    caPem: readFileSync(join(pki, 'webhook-client-ca.crt'), 'utf8'),
    caCertPath: join(pki, 'webhook-client-ca.crt'),
    caKeyPath: join(pki, 'webhook-client-ca.key'),
    certPath: join(pki, 'webhook-client.crt'),
    keyPath: join(pki, 'webhook-client.key'),
  }
}

/**
 * The admission configuration that makes both webhook plugins present the
 * certificate: a kubeconfig whose "*" user (the default for every webhook
 * host) has it. Returns the configuration file's path.
 */
function writeAdmissionConfig(pki: string, cert: WebhookClientCert): string {
  const kubeconfig = join(pki, 'webhook-client.kubeconfig')
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'users:',
      '- name: "*"',
      `  user: {client-certificate: "${cert.certPath}", client-key: "${cert.keyPath}"}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
  const config = join(pki, 'admission-config.yaml')
  const plugin = (name: string): string[] => [
    `- name: ${name}`,
    '  configuration:',
    '    apiVersion: apiserver.config.k8s.io/v1',
    '    kind: WebhookAdmissionConfiguration',
    `    kubeConfigFile: "${kubeconfig}"`,
  ]
  writeFileSync(
    config,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      ...plugin('ValidatingAdmissionWebhook'),
      ...plugin('MutatingAdmissionWebhook'),
      '',
    ].join('\n'),
  )
  return config
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const t0 = Date.now()
  const log = opts.log ?? (() => {})
  const binDir = opts.binDir ?? defaultBinDir()
  const timeout = opts.startTimeoutMs ?? Number(process.env.TEMPLATE_SYNC_START_TIMEOUT_MS ?? 90_000)
  const withKcm = opts.controllerManager ?? true
  for (const b of controlPlaneBinaries(withKcm)) {
    if (!existsSync(join(binDir, b))) {
      throw new Error(`control plane binary ${join(binDir, b)} is missing: run "npm run cluster:build" (test/cluster/build.sh) first`)
    }
  }
  reapLeftovers(log)
  mkdirSync(RECORD_DIR, { recursive: true })
  const workDir = opts.workDir ?? mkdtempSync(join(tmpdir(), 'template-sync-cp-'))
  mkdirSync(workDir, { recursive: true })
  const pki = join(workDir, 'pki')
  mkdirSync(pki, { recursive: true })
  const recordFile = join(RECORD_DIR, `${process.pid}-${Date.now()}.json`)
  const pids: Record<string, number> = {}
  const children: Record<string, ChildProcess> = {}
  const writeRecord = (): void => writeFileSync(recordFile, JSON.stringify({ owner: process.pid, workDir, pids } satisfies Record_))

  // Throwaway PKI: one CA signs the API server's serving cert, the admin client
  // cert and webhook serving certs; a separate RSA key signs service-account tokens.
  makeCa(pki)
  issueCert(
    pki,
    'apiserver',
    '/CN=kube-apiserver',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n',
  )
  const clientExt = 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n'
  issueCert(pki, 'admin', '/O=system:masters/CN=template-sync-admin', clientExt)
  // The components' own identities: bootstrap RBAC authorizes the first two;
  // the simulated kubelet is a node (system:nodes) with the rights of masters,
  // since no Node authorizer runs.
  issueCert(pki, 'controller-manager', '/CN=system:kube-controller-manager', clientExt)
  issueCert(pki, 'scheduler', '/CN=system:kube-scheduler', clientExt)
  issueCert(pki, 'kwok', '/O=system:nodes/O=system:masters/CN=system:node:kwok', clientExt)
  openssl(pki, ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'])
  openssl(pki, ['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'])
  const webhookClient = opts.webhookClientCert ? makeWebhookClientCert(pki) : undefined
  const caPem = readFileSync(join(pki, 'ca.crt'), 'utf8')
  const adminCert = readFileSync(join(pki, 'admin.crt'), 'utf8')
  const adminKey = readFileSync(join(pki, 'admin.key'), 'utf8')

  const launch = (name: string, args: string[]): ChildProcess => {
    const logFile = join(workDir, `${name}.log`)
    const fd = openSync(logFile, 'a')
    // detached: its own process group, so stop() can signal the whole group by pid.
    const child = spawn(join(binDir, name), args, { detached: true, stdio: ['ignore', fd, fd] })
    closeSync(fd)
    child.unref()
    if (child.pid === undefined) throw new Error(`could not start ${name}`)
    pids[name] = child.pid
    children[name] = child
    writeRecord()
    return child
  }

  const stopOne = async (name: string): Promise<void> => {
    const pid = pids[name]
    if (pid === undefined) return
    killGroup(pid, 'SIGTERM')
    const deadline = Date.now() + 20_000
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    if (alive(pid)) killGroup(pid, 'SIGKILL')
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50))
    delete pids[name]
    delete children[name]
    writeRecord()
  }

  const peaks: Record<string, number> = {}
  const samplePeaks = (): Record<string, number> => {
    for (const [name, pid] of Object.entries(pids)) peaks[name] = Math.max(peaks[name] ?? 0, peakRss(pid))
    return { ...peaks }
  }

  const stopAll = async (keepWorkDir = false): Promise<void> => {
    samplePeaks()
    for (const name of [...controlPlaneBinaries()].reverse()) await stopOne(name)
    rmSync(recordFile, { force: true })
    if (!keepWorkDir) rmSync(workDir, { recursive: true, force: true })
  }

  try {
    const etcdClient = await freePort()
    const etcdPeer = await freePort()
    const apiPort = await freePort()
    const etcdUrl = `http://127.0.0.1:${etcdClient}`
    const etcd = launch('etcd', [
      '--name=test',
      `--data-dir=${join(workDir, 'etcd-data')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=test=http://127.0.0.1:${etcdPeer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ])
    await waitFor('etcd', timeout, etcd, join(workDir, 'etcd.log'), async () => {
      const r = await get(`${etcdUrl}/health`)
      return r.status === 200 && r.body.includes('true')
    })
    log(`etcd ready after ${Date.now() - t0} ms`)

    const server = `https://127.0.0.1:${apiPort}`
    const apiArgs = [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      `--cert-dir=${join(workDir, 'apiserver-certs')}`,
      `--tls-cert-file=${join(pki, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(pki, 'apiserver.key')}`,
      `--client-ca-file=${join(pki, 'ca.crt')}`,
      '--authorization-mode=RBAC',
      `--service-account-issuer=${server}`,
      `--service-account-key-file=${join(pki, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      // Compact often so that watches really meet 410 Gone during tests.
      '--etcd-compaction-interval=20s',
      // PodTemplates (unused otherwise) bypass the watch cache, so a watch from a
      // compacted resourceVersion meets a real 410 Gone from etcd; the cache
      // would instead replay current state.
      '--watch-cache-sizes=podtemplates#0',
      '--v=1',
      ...(webhookClient ? [`--admission-control-config-file=${writeAdmissionConfig(pki, webhookClient)}`] : []),
      ...(opts.extraApiServerArgs ?? []),
    ]
    const startApi = async (): Promise<void> => {
      const api = launch('kube-apiserver', apiArgs)
      const apiLog = join(workDir, 'kube-apiserver.log')
      const tls = { ca: caPem, cert: adminCert, key: adminKey }
      await waitFor(
        'kube-apiserver /readyz',
        timeout,
        api,
        apiLog,
        async () => (await get(`${server}/readyz`, { ca: caPem })).status === 200,
      )
      await waitFor(
        'kube-apiserver namespace default',
        timeout,
        api,
        apiLog,
        async () => (await get(`${server}/api/v1/namespaces/default`, tls)).status === 200,
      )
    }
    await startApi()
    log(`kube-apiserver ready after ${Date.now() - t0} ms`)

    const kubeconfigPath = join(workDir, 'kubeconfig')
    const b64 = (s: string): string => Buffer.from(s).toString('base64')
    writeFileSync(
      kubeconfigPath,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: template-sync-test',
        `  cluster: {server: "${server}", certificate-authority-data: ${b64(caPem)}}`,
        'users:',
        '- name: admin',
        `  user: {client-certificate-data: ${b64(adminCert)}, client-key-data: ${b64(adminKey)}}`,
        'contexts:',
        '- name: template-sync-test',
        '  context: {cluster: template-sync-test, user: admin}',
        'current-context: template-sync-test',
        '',
      ].join('\n'),
      { mode: 0o600 },
    )

    if (withKcm) {
      const kubeconfigOf = (user: string): string => {
        const path = join(workDir, `${user}.kubeconfig`)
        writeFileSync(
          path,
          kubeconfigText(server, caPem, readFileSync(join(pki, `${user}.crt`), 'utf8'), readFileSync(join(pki, `${user}.key`), 'utf8')),
          {
            mode: 0o600,
          },
        )
        return path
      }
      const kcm = launch('kube-controller-manager', [
        `--kubeconfig=${kubeconfigOf('controller-manager')}`,
        '--leader-elect=false',
        '--secure-port=0',
        // The default set, as in a cluster; the signer needs the CA's key.
        '--controllers=*',
        `--cluster-signing-cert-file=${join(pki, 'ca.crt')}`,
        `--cluster-signing-key-file=${join(pki, 'ca.key')}`,
        `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`,
        '--use-service-account-credentials=true',
        '--v=1',
      ])
      await waitFor(
        'kube-controller-manager (default ServiceAccount)',
        timeout,
        kcm,
        join(workDir, 'kube-controller-manager.log'),
        async () =>
          (await get(`${server}/api/v1/namespaces/default/serviceaccounts/default`, { ca: caPem, cert: adminCert, key: adminKey }))
            .status === 200,
      )
      log(`kube-controller-manager ready after ${Date.now() - t0} ms`)
      launch('kube-scheduler', [`--kubeconfig=${kubeconfigOf('scheduler')}`, '--leader-elect=false', '--secure-port=0', '--v=1'])
      const kwok = launch('kwok', [
        `--kubeconfig=${kubeconfigOf('kwok')}`,
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        '--cidr=10.244.0.0/16',
        '--node-ip=127.0.0.1',
        '--server-address=127.0.0.1:0',
      ])
      await startNodes(server, { ca: caPem, cert: adminCert, key: adminKey }, opts.nodes ?? 1, (what, probe) =>
        waitFor(what, timeout, kwok, join(workDir, 'kwok.log'), probe),
      )
      log(`kube-scheduler and ${opts.nodes ?? 1} simulated node(s) ready after ${Date.now() - t0} ms`)
    }

    const startMs = Date.now() - t0
    return {
      workDir,
      server,
      kubeconfigPath,
      caCertPath: join(pki, 'ca.crt'),
      caKeyPath: join(pki, 'ca.key'),
      caPem,
      pids,
      startMs,
      ...(webhookClient ? { webhookClient } : {}),
      issueServingCert(name, sans) {
        issueCert(
          pki,
          name,
          `/CN=${name}`,
          `subjectAltName=${sanList(sans)}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n`,
        )
        const certPath = join(pki, `${name}.crt`)
        const keyPath = join(pki, `${name}.key`)
        return { certPath, keyPath, certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') }
      },
      peakRssMiB: samplePeaks,
      stop: (o) => stopAll(o?.keepWorkDir ?? false),
      async restartApiServer() {
        samplePeaks()
        await stopOne('kube-apiserver')
        await startApi()
      },
      async apiServerOutage(ms) {
        samplePeaks()
        await stopOne('kube-apiserver')
        await new Promise((r) => setTimeout(r, ms))
        await startApi()
      },
    }
  } catch (err) {
    await stopAll(true)
    const logs = controlPlaneBinaries()
      .map((n) => `--- ${n}.log (tail) ---\n${tail(join(workDir, `${n}.log`), 30)}`)
      .join('\n')
    rmSync(workDir, { recursive: true, force: true })
    throw new Error(`control plane failed to start: ${(err as Error).message}\n${logs}`)
  }
}
