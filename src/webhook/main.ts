// Entry point of `template-sync webhook`: parse settings, build the logger and
// the API client, start the server, and turn SIGTERM/SIGINT into the graceful
// shutdown. The only place in the webhook that reads the environment or
// installs signal handlers.

import type { Logger } from 'pino'
import { KubeClient } from '../kube/client.ts'
import { parseWebhookConfig, WebhookConfigError, type WebhookConfig } from './config.ts'
import { createWebhookLogger } from './logger.ts'
import { startWebhookServer, type WebhookServer } from './server.ts'
import { runCertManager, type CertManager } from '../certs/manager.ts'
import { readClientCa, type ClientAuth } from './client-auth.ts'
import { logTo } from '../telemetry/log.ts'

export interface RunWebhookOptions {
  /** Arguments after `template-sync webhook`. */
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  /** Install SIGTERM/SIGINT handlers (default true); tests call `stop` instead. */
  readonly handleSignals?: boolean
  /** Receives the running server, e.g. to stop it from a test. */
  readonly onStarted?: (server: WebhookServer, config: WebhookConfig) => void
  /** Logger override (tests); otherwise JSON lines on stdout at the configured level. */
  readonly log?: Logger
}

/** Extra time allowed after the drain for in-flight requests and cache shutdown. */
const SHUTDOWN_GRACE_MS = 20_000

/**
 * Runs the webhook until a signal (or `server.shutdown()`) stops it. Resolves
 * with the process exit code: 0 after a clean shutdown, 1 when it could not
 * start or a second signal cut the shutdown short, 2 for invalid settings.
 */
export async function runWebhook(options: RunWebhookOptions): Promise<number> {
  let config: WebhookConfig
  try {
    config = parseWebhookConfig(options.argv, options.env)
  } catch (err) {
    const log = options.log ?? createWebhookLogger('info')
    if (err instanceof WebhookConfigError) log.fatal({ err }, 'invalid webhook settings')
    else log.fatal({ err }, 'cannot read webhook settings')
    return 2
  }
  const log = options.log ?? createWebhookLogger(config.logLevel)
  if (config.operatorUsernames.length === 0) {
    log.warn("no operator usernames configured: in strict mode the reconciler's own reverts will be denied")
  }

  let client: KubeClient
  let server: WebhookServer
  try {
    client = config.kubeconfig
      ? KubeClient.fromFile(config.kubeconfig, 'template-sync-webhook')
      : KubeClient.fromDefault('template-sync-webhook')
  } catch (err) {
    log.fatal({ err, kubeconfig: config.kubeconfig }, 'cannot load Kubernetes client configuration')
    return 1
  }
  let certs: CertManager | undefined
  if (config.selfManaged) {
    // The serving pair must exist before the TLS listener loads it.
    certs = runCertManager({
      client,
      ...config.selfManaged,
      certDir: config.certDir,
      log: logTo(log),
    })
    try {
      await certs.ready
    } catch (err) {
      log.fatal({ err }, 'could not issue the self-managed serving certificate')
      await certs.stop()
      client.close()
      return 1
    }
  }
  let clientAuth: ClientAuth | undefined
  if (config.clientCaFile !== undefined) {
    try {
      clientAuth = { ca: readClientCa(config.clientCaFile), names: config.clientNames }
    } catch (err) {
      log.fatal({ err, file: config.clientCaFile }, 'cannot load the client CA bundle')
      await certs?.stop()
      client.close()
      return 1
    }
  }
  try {
    server = await startWebhookServer({
      client,
      log,
      config: { operatorUsernames: config.operatorUsernames, components: config.components },
      certDir: config.certDir,
      certFile: config.certFile,
      keyFile: config.keyFile,
      host: config.host,
      port: config.port,
      healthHost: config.healthHost,
      healthPort: config.healthPort,
      drainMs: config.drainMs,
      podCache: config.podCache,
      ...(clientAuth !== undefined ? { clientAuth } : {}),
      ...(config.memoryLimitBytes !== undefined ? { memoryLimitBytes: config.memoryLimitBytes } : {}),
      ...(config.maxConnections !== undefined ? { maxConnections: config.maxConnections } : {}),
    })
  } catch (err) {
    log.fatal({ err }, 'webhook failed to start')
    client.close()
    return 1
  }
  options.onStarted?.(server, config)

  let signals = 0
  let deadline: NodeJS.Timeout | undefined
  let cutShort: (code: number) => void = () => {}
  const interrupted = new Promise<number>((resolve) => {
    cutShort = resolve
  })
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++
    if (signals > 1) {
      log.warn({ signal }, 'second signal; exiting without waiting for the drain')
      cutShort(1)
      return
    }
    log.info({ signal }, 'signal received; shutting down')
    deadline = setTimeout(() => {
      log.error({ graceMs: config.drainMs + SHUTDOWN_GRACE_MS }, 'shutdown did not finish in time')
      cutShort(1)
    }, config.drainMs + SHUTDOWN_GRACE_MS)
    deadline.unref()
    // Failures surface through closed() below.
    server.shutdown().catch(() => {})
  }
  if (options.handleSignals ?? true) {
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  }
  // closed() settles for a shutdown started by a signal or by the caller (tests).
  const finished = server.closed().then(
    () => 0,
    (err: unknown) => {
      log.error({ err }, 'shutdown failed')
      return 1
    },
  )
  const code = await Promise.race([finished, interrupted])
  if (deadline) clearTimeout(deadline)
  process.off('SIGTERM', onSignal)
  process.off('SIGINT', onSignal)
  await certs?.stop()
  client.close()
  return code
}
