// Webhook process settings from flags and environment, parsed once. Flags win
// over environment variables; both are validated here so that a typo stops
// the process at start instead of surfacing as odd behaviour later.

import { parseArgs } from 'node:util'
import { parseMemoryQuantity } from './sizing.ts'
import { COMPONENT_FLAGS, type ComponentTable, componentTableFrom, DEFAULT_COMPONENTS } from '../api/writers.ts'

export const LOG_LEVELS = Object.freeze(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const)
export type LogLevel = (typeof LOG_LEVELS)[number]

export interface WebhookConfig {
  /** Path to a kubeconfig; absent means the client's default loading ($KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfig: string | undefined
  readonly certDir: string
  readonly certFile: string
  readonly keyFile: string
  readonly host: string
  readonly port: number
  readonly healthHost: string
  readonly healthPort: number
  /** Exact usernames whose writes are never judged (the reconciler's service accounts). */
  readonly operatorUsernames: readonly string[]
  /** The cluster's components, which may write what a Template does not render (docs/writers.md). */
  readonly components: ComponentTable
  readonly logLevel: LogLevel
  readonly drainMs: number
  /** PEM bundle of the CA that signs the API server's client certificate; set: clients must present one. */
  readonly clientCaFile?: string
  /** Accepted subject CNs or DNS names of client certificates; none listed accepts every certificate from the CA. */
  readonly clientNames: readonly string[]
  /** Cache rendered Pods to judge pods/eviction and pods/binding (needs list/watch on pods). */
  readonly podCache: boolean
  /** The container's memory limit in bytes (the chart passes it); sizes the body budget and the connection cap. */
  readonly memoryLimitBytes?: number
  /** Cap on open connections; derived from the memory limit when unset. */
  readonly maxConnections?: number
  /** Mint and rotate the serving certificate in-process (no cert-manager). */
  readonly selfManaged?: {
    readonly secretNamespace: string
    readonly secretName: string
    readonly webhookConfigurationName: string
    readonly serviceNamespace: string
    readonly serviceName: string
  }
}

export const DEFAULT_WEBHOOK_CONFIG: WebhookConfig = Object.freeze({
  kubeconfig: undefined,
  certDir: '/etc/template-sync/webhook-tls',
  certFile: 'tls.crt',
  keyFile: 'tls.key',
  host: '0.0.0.0',
  port: 9443,
  healthHost: '0.0.0.0',
  healthPort: 8081,
  operatorUsernames: Object.freeze([]) as readonly string[],
  components: DEFAULT_COMPONENTS,
  logLevel: 'info' as LogLevel,
  drainMs: 5_000,
  clientNames: Object.freeze([]) as readonly string[],
  podCache: true,
})

/** Flag name, environment variable, and what it sets. */
const SETTINGS = {
  // KUBECONFIG itself (which may list several files) is left to the client's default loading.
  kubeconfig: { env: 'TEMPLATE_SYNC_KUBECONFIG', help: 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster)' },
  'cert-dir': { env: 'TEMPLATE_SYNC_WEBHOOK_CERT_DIR', help: 'directory with the serving certificate and key' },
  'cert-file': { env: 'TEMPLATE_SYNC_WEBHOOK_CERT_FILE', help: 'certificate file name inside cert-dir' },
  'key-file': { env: 'TEMPLATE_SYNC_WEBHOOK_KEY_FILE', help: 'key file name inside cert-dir' },
  'listen-address': { env: 'TEMPLATE_SYNC_WEBHOOK_ADDRESS', help: 'address of the TLS admission listener' },
  port: { env: 'TEMPLATE_SYNC_WEBHOOK_PORT', help: 'port of the TLS admission listener' },
  'health-address': { env: 'TEMPLATE_SYNC_HEALTH_ADDRESS', help: 'address of the plain-HTTP health and metrics listener' },
  'health-port': { env: 'TEMPLATE_SYNC_HEALTH_PORT', help: 'port of the health and metrics listener' },
  'operator-usernames': { env: 'TEMPLATE_SYNC_OPERATOR_USERNAMES', help: 'comma-separated usernames never judged (the reconciler)' },
  'log-level': { env: 'TEMPLATE_SYNC_LOG_LEVEL', help: `one of ${LOG_LEVELS.join(', ')}` },
  'drain-seconds': { env: 'TEMPLATE_SYNC_WEBHOOK_DRAIN_SECONDS', help: 'seconds between readiness turning false and the listener closing' },
  'cert-secret': {
    env: 'TEMPLATE_SYNC_CERT_SECRET',
    help: 'NAMESPACE/NAME of the Secret holding the self-managed CA and serving certificate',
  },
  'webhook-configuration': {
    env: 'TEMPLATE_SYNC_WEBHOOK_CONFIGURATION',
    help: 'ValidatingWebhookConfiguration whose caBundle is kept current (self-managed certificates)',
  },
  service: { env: 'TEMPLATE_SYNC_WEBHOOK_SERVICE', help: 'NAMESPACE/NAME of the webhook Service (names in the serving certificate)' },
  'client-ca-file': {
    env: 'TEMPLATE_SYNC_WEBHOOK_CLIENT_CA_FILE',
    help: "CA bundle of the API server's client certificate; when set, clients without one are refused at the TLS layer",
  },
  'client-names': {
    env: 'TEMPLATE_SYNC_WEBHOOK_CLIENT_NAMES',
    help: 'comma-separated subject CNs or DNS names accepted on client certificates (default: any from the CA)',
  },
  'pod-cache': { env: 'TEMPLATE_SYNC_WEBHOOK_POD_CACHE', help: 'true or false: cache rendered Pods to judge evictions and bindings' },
  'memory-limit': {
    env: 'TEMPLATE_SYNC_WEBHOOK_MEMORY_LIMIT',
    help: 'memory limit of the container (bytes, or 256Mi); sizes the body budget and the connection cap',
  },
  'max-connections': { env: 'TEMPLATE_SYNC_WEBHOOK_MAX_CONNECTIONS', help: 'open connections at most (default: from the memory limit)' },
  ...COMPONENT_FLAGS,
} as const

type SettingName = keyof typeof SETTINGS

export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError'
  readonly code = 'WEBHOOK_CONFIG_INVALID'
}

/** Usage text for `template-sync webhook --help`. */
export function webhookUsage(): string {
  const lines = Object.entries(SETTINGS).map(([flag, s]) => `  --${flag.padEnd(20)} ${s.help} [$${s.env}]`)
  return ['usage: template-sync webhook [flags]', '', ...lines, ''].join('\n')
}

function port(value: string, what: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new WebhookConfigError(`${what} must be a port number (0-65535), got ${JSON.stringify(value)}`)
  return n
}

export function parseWebhookConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): WebhookConfig {
  let flags: Partial<Record<SettingName, string>>
  let selfManagedFlag = false
  try {
    const options = {
      ...Object.fromEntries(Object.keys(SETTINGS).map((k) => [k, { type: 'string' as const }])),
      'self-managed-certs': { type: 'boolean' as const },
    }
    const parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values as Partial<
      Record<SettingName, string>
    > & { 'self-managed-certs'?: boolean }
    selfManagedFlag = parsed['self-managed-certs'] === true
    delete parsed['self-managed-certs']
    flags = parsed
  } catch (err) {
    throw new WebhookConfigError(`${(err as Error).message}\n${webhookUsage()}`)
  }
  const get = (name: SettingName): string | undefined => {
    const v = flags[name] ?? env[SETTINGS[name].env]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const d = DEFAULT_WEBHOOK_CONFIG
  const level = get('log-level') ?? d.logLevel
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new WebhookConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`)
  const drain = get('drain-seconds')
  const drainSeconds = drain === undefined ? d.drainMs / 1000 : Number(drain)
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0 || drainSeconds > 300) {
    throw new WebhookConfigError(`drain seconds must be a number between 0 and 300, got ${JSON.stringify(drain)}`)
  }
  const users = (get('operator-usernames') ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
  const host = get('listen-address') ?? d.host
  const portText = get('port')
  const healthPortText = get('health-port')
  const nsName = (name: SettingName): { namespace: string; name: string } => {
    const v = get(name)
    const m = v === undefined ? null : /^([a-z0-9-]+)\/([a-z0-9.-]+)$/.exec(v)
    if (!m) throw new WebhookConfigError(`--${name} must be NAMESPACE/NAME, got ${JSON.stringify(v ?? '')}`)
    return { namespace: m[1] as string, name: m[2] as string }
  }
  let selfManaged: WebhookConfig['selfManaged']
  if (selfManagedFlag || env.TEMPLATE_SYNC_SELF_MANAGED_CERTS === 'true') {
    const secret = nsName('cert-secret')
    const service = nsName('service')
    const wc = get('webhook-configuration')
    if (!wc) throw new WebhookConfigError('--self-managed-certs needs --webhook-configuration NAME')
    selfManaged = Object.freeze({
      secretNamespace: secret.namespace,
      secretName: secret.name,
      webhookConfigurationName: wc,
      serviceNamespace: service.namespace,
      serviceName: service.name,
    })
  }
  const list = (name: SettingName): string[] =>
    (get(name) ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter((u) => u !== '')
  const podCacheText = get('pod-cache') ?? 'true'
  if (podCacheText !== 'true' && podCacheText !== 'false') {
    throw new WebhookConfigError(`--pod-cache must be true or false, got ${JSON.stringify(podCacheText)}`)
  }
  const memoryText = get('memory-limit')
  const memoryLimitBytes = memoryText === undefined ? undefined : parseMemoryQuantity(memoryText)
  if (memoryText !== undefined && memoryLimitBytes === undefined) {
    throw new WebhookConfigError(`--memory-limit must be a byte count or a quantity such as 256Mi, got ${JSON.stringify(memoryText)}`)
  }
  const maxConnText = get('max-connections')
  const maxConnections = maxConnText === undefined ? undefined : Number(maxConnText)
  if (maxConnections !== undefined && !(Number.isInteger(maxConnections) && maxConnections >= 1 && maxConnections <= 1_000_000)) {
    throw new WebhookConfigError(`--max-connections must be a whole number from 1, got ${JSON.stringify(maxConnText)}`)
  }
  const clientCaFile = get('client-ca-file')
  const clientNames = list('client-names')
  if (clientNames.length > 0 && clientCaFile === undefined) {
    throw new WebhookConfigError('--client-names needs --client-ca-file: names are only checked on certificates from that CA')
  }
  return Object.freeze({
    ...(selfManaged ? { selfManaged } : {}),
    ...(clientCaFile !== undefined ? { clientCaFile } : {}),
    ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}),
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    clientNames: Object.freeze([...new Set(clientNames)]),
    podCache: podCacheText === 'true',
    kubeconfig: get('kubeconfig'),
    certDir: get('cert-dir') ?? d.certDir,
    certFile: get('cert-file') ?? d.certFile,
    keyFile: get('key-file') ?? d.keyFile,
    host,
    port: portText === undefined ? d.port : port(portText, 'port'),
    healthHost: get('health-address') ?? host,
    healthPort: healthPortText === undefined ? d.healthPort : port(healthPortText, 'health port'),
    operatorUsernames: Object.freeze([...new Set(users)]),
    components: componentTableFrom(get),
    logLevel: level as LogLevel,
    drainMs: Math.round(drainSeconds * 1000),
  })
}
