// The self-managed certificate loop of the webhook (`--self-managed-certs`).
// Every replica runs it. Each pass:
//  1. reads the webhook configuration (to learn which CAs it trusts) and the
//     Secret, plans the next state (plan.ts) and writes the Secret only when
//     the plan changed something, with optimistic concurrency: a create that
//     meets 409 or an update that meets 409 re-reads and re-plans, so racing
//     replicas converge on the winner's CA and certificate;
//  2. writes the serving pair into the certificate directory (files.ts),
//     which the webhook's watcher picks up without a restart;
//  3. puts the trust bundle into `caBundle` of every entry of the webhook
//     configuration by read-modify-write with the resourceVersion read.
// Only fingerprints, serial numbers and dates are logged, never key material.

import { X509Certificate } from 'node:crypto'
import type { KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import { writeCertDir } from './files.ts'
import { serviceDnsNames, SERVING_VALIDITY_DAYS } from './mint.ts'
import { splitCertificates } from '../encoding/pem.ts'
import {
  dataFromStored,
  daysToMs,
  fingerprint,
  planCertificates,
  SecretKeys,
  storedFromData,
  type PlanStep,
  type StoredCerts,
} from './plan.ts'
import type { LogFn } from '../telemetry/log.ts'

export interface CertManagerOptions {
  readonly client: Pick<KubeClient, 'request'>
  readonly secretNamespace: string
  readonly secretName: string
  readonly webhookConfigurationName: string
  readonly serviceName: string
  readonly serviceNamespace: string
  readonly certDir: string
  /** Renew the serving certificate this many days before it expires (default 30). */
  readonly renewBeforeDays?: number
  /** Replace the CA this many days before it expires (default: serving validity + renewBeforeDays). */
  readonly caRenewBeforeDays?: number
  /** Time between passes (default 60 s). */
  readonly checkIntervalMs?: number
  readonly log: LogFn
  /** Clock (tests). */
  readonly now?: () => Date
  /** Extra names for the serving certificate besides the Service's four. */
  readonly extraDnsNames?: readonly string[]
}

export interface PassResult {
  readonly steps: readonly PlanStep[]
  readonly secretWritten: boolean
  readonly filesWritten: boolean
  readonly webhookConfigurationPatched: boolean
  /** SHA-256 fingerprints of the trusted CAs, signer first. */
  readonly bundle: readonly string[]
  readonly servingNotAfter: string | undefined
}

export const DEFAULT_RENEW_BEFORE_DAYS = 30
export const DEFAULT_CHECK_INTERVAL_MS = 60_000
const MAX_CONFLICT_RETRIES = 5
const MIN_RETRY_MS = 1_000

interface Secret {
  apiVersion?: string
  kind?: string
  type?: string
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> }
  data?: Record<string, string>
}

interface WebhookEntry {
  name: string
  clientConfig?: { caBundle?: string; [k: string]: unknown }
  [k: string]: unknown
}

interface WebhookConfiguration {
  metadata: { name: string; resourceVersion?: string }
  webhooks?: WebhookEntry[]
}

const isStatus = (e: unknown, code: number): boolean => e instanceof KubeApiError && e.code === code
const decode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))
const encode = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]))

export class CertManager {
  /** Resolves after the first pass that left usable files in the certificate directory. */
  readonly ready: Promise<void>
  private readonly opts: CertManagerOptions
  private readonly secretPath: string
  private readonly configPath: string
  private readonly dnsNames: readonly string[]
  private resolveReady: () => void = () => {}
  private isReady = false
  private chain: Promise<unknown> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private failures = 0

  constructor(opts: CertManagerOptions) {
    this.opts = opts
    this.secretPath = `/api/v1/namespaces/${encodeURIComponent(opts.secretNamespace)}/secrets/${encodeURIComponent(opts.secretName)}`
    this.configPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${encodeURIComponent(opts.webhookConfigurationName)}`
    this.dnsNames = [...serviceDnsNames(opts.serviceName, opts.serviceNamespace), ...(opts.extraDnsNames ?? [])]
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve
    })
  }

  /** Starts the loop: a pass now, then one every check interval; failures retry sooner with backoff. */
  start(): this {
    this.schedule(0)
    return this
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.chain.catch(() => {})
  }

  /** One pass, serialized with the loop's own passes. */
  runOnce(): Promise<PassResult> {
    const next = this.chain.then(() => this.pass())
    this.chain = next.catch(() => {})
    return next
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.runOnce().then(
        () => {
          this.failures = 0
          this.schedule(this.interval())
        },
        (err: unknown) => {
          this.failures++
          const delay = Math.min(this.interval(), MIN_RETRY_MS * 2 ** Math.min(this.failures - 1, 10))
          this.opts.log('warn', 'certificate pass failed; retrying', {
            error: (err as Error).message,
            attempt: this.failures,
            retryInMs: delay,
          })
          this.schedule(delay)
        },
      )
    }, ms)
    // Deliberately not unref'd: before the server listens, this timer is what
    // keeps the process alive while it waits for `ready`. stop() clears it.
  }

  private interval(): number {
    return this.opts.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date()
  }

  private async pass(): Promise<PassResult> {
    const renewBeforeDays = this.opts.renewBeforeDays ?? DEFAULT_RENEW_BEFORE_DAYS
    const caRenewBeforeDays = this.opts.caRenewBeforeDays ?? SERVING_VALIDITY_DAYS + renewBeforeDays
    let steps: readonly PlanStep[] = []
    let state: StoredCerts | undefined
    let secretWritten = false
    for (let attempt = 1; state === undefined; attempt++) {
      const config = await this.readConfig()
      const secret = await this.readSecret()
      const plan = planCertificates(storedFromData(decode(secret?.data)), {
        dnsNames: this.dnsNames,
        now: this.now(),
        renewBeforeMs: daysToMs(renewBeforeDays),
        caRenewBeforeMs: daysToMs(caRenewBeforeDays),
        ...(config ? { trusted: trustedBy(config) } : {}),
      })
      if (!plan.changed) {
        state = plan.next
        steps = plan.steps
        break
      }
      try {
        await this.writeSecret(secret, plan.next)
        state = plan.next
        steps = plan.steps
        secretWritten = true
      } catch (err) {
        if (!isStatus(err, 409) || attempt >= MAX_CONFLICT_RETRIES) throw err
        // Another replica wrote first: read its result and plan again from there.
        this.opts.log('debug', 'certificate Secret changed concurrently; re-reading', {
          secret: `${this.opts.secretNamespace}/${this.opts.secretName}`,
        })
      }
    }

    if (secretWritten) {
      this.opts.log('info', 'certificate Secret updated', {
        secret: `${this.opts.secretNamespace}/${this.opts.secretName}`,
        steps,
        ...describe(state),
      })
    } else if (steps.includes('serving-renewal-deferred')) {
      this.opts.log('info', 'serving certificate renewal waits until the webhook configuration trusts the new CA', describe(state))
    }

    const filesWritten = state.serving
      ? await writeCertDir(this.opts.certDir, {
          [SecretKeys.servingCert]: state.serving.certPem,
          [SecretKeys.servingKey]: state.serving.keyPem,
          [SecretKeys.trustBundle]: state.bundle.join(''),
        })
      : false
    if (filesWritten) this.opts.log('info', 'serving certificate written', { dir: this.opts.certDir, ...describe(state) })
    if (state.serving && !this.isReady) {
      this.isReady = true
      this.resolveReady()
    }

    const webhookConfigurationPatched = await this.injectBundle(state.bundle.join(''))
    return {
      steps,
      secretWritten,
      filesWritten,
      webhookConfigurationPatched,
      bundle: state.bundle.map(fingerprint),
      servingNotAfter: describe(state).servingNotAfter,
    }
  }

  private async readSecret(): Promise<Secret | undefined> {
    try {
      return await this.opts.client.request<Secret>('GET', this.secretPath)
    } catch (err) {
      if (isStatus(err, 404)) return undefined
      throw err
    }
  }

  private async readConfig(): Promise<WebhookConfiguration | undefined> {
    try {
      return await this.opts.client.request<WebhookConfiguration>('GET', this.configPath)
    } catch (err) {
      if (isStatus(err, 404)) return undefined
      throw err
    }
  }

  private async writeSecret(current: Secret | undefined, next: StoredCerts): Promise<void> {
    const data = encode(dataFromStored(next))
    if (current === undefined) {
      const body: Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: {
          name: this.opts.secretName,
          namespace: this.opts.secretNamespace,
          labels: { 'app.kubernetes.io/managed-by': 'template-sync' },
        },
        data,
      }
      await this.opts.client.request('POST', `/api/v1/namespaces/${encodeURIComponent(this.opts.secretNamespace)}/secrets`, { body })
      return
    }
    // PUT with the resourceVersion read: the API server refuses it (409) if anyone wrote in between.
    await this.opts.client.request('PUT', this.secretPath, { body: { ...current, data: { ...current.data, ...data } } })
  }

  /** Sets caBundle on every entry; false when they already carried it or the configuration does not exist. */
  private async injectBundle(bundle: string): Promise<boolean> {
    const caBundle = Buffer.from(bundle, 'utf8').toString('base64')
    for (let attempt = 1; ; attempt++) {
      const config = await this.readConfig()
      if (config === undefined) {
        this.opts.log('warn', 'webhook configuration not found; caBundle not injected yet', {
          webhookConfiguration: this.opts.webhookConfigurationName,
        })
        return false
      }
      const webhooks = config.webhooks ?? []
      if (webhooks.every((w) => w.clientConfig?.caBundle === caBundle)) return false
      const body = { ...config, webhooks: webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle } })) }
      try {
        await this.opts.client.request('PUT', this.configPath, { body })
        this.opts.log('info', 'caBundle injected', {
          webhookConfiguration: this.opts.webhookConfigurationName,
          entries: webhooks.length,
          cas: splitCertificates(bundle).map(fingerprint),
        })
        return true
      } catch (err) {
        if (!isStatus(err, 409) || attempt >= MAX_CONFLICT_RETRIES) throw err
      }
    }
  }
}

/** CAs that every entry trusts; entries without a bundle trust none of ours. */
function trustedBy(config: WebhookConfiguration): ReadonlySet<string> | undefined {
  const entries = config.webhooks ?? []
  if (entries.length === 0) return undefined
  let common: Set<string> | undefined
  for (const w of entries) {
    const pems = splitCertificates(Buffer.from(w.clientConfig?.caBundle ?? '', 'base64').toString('utf8'))
    const set = new Set<string>()
    for (const p of pems) {
      try {
        set.add(fingerprint(p))
      } catch {
        // not a certificate we can read: trusts nothing of ours
      }
    }
    common = common === undefined ? set : new Set([...common].filter((f) => set.has(f)))
  }
  return common
}

function describe(state: StoredCerts): { caFingerprints: string[]; servingNotAfter: string | undefined } {
  let servingNotAfter: string | undefined
  if (state.serving) {
    try {
      servingNotAfter = new Date(new X509Certificate(state.serving.certPem).validTo).toISOString()
    } catch {
      servingNotAfter = undefined
    }
  }
  return { caFingerprints: state.bundle.map(fingerprint), servingNotAfter }
}

/** Creates the manager and starts its loop. */
export function runCertManager(opts: CertManagerOptions): CertManager {
  return new CertManager(opts).start()
}
