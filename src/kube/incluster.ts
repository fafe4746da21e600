// In-cluster credentials without the client library: the API server address
// from the service environment, the cluster CA and the projected
// service-account token, re-read every minute because bound tokens rotate.
// The webhook and the reconciler run with only this in a Pod; loading the
// full client library there costs about 80 MiB of memory and two seconds of
// start-up (docs/kube-client.md).

import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RequestOptions } from 'node:https'
import { tokenFile } from './reread.ts'

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'

export interface ClusterConfig {
  getCurrentCluster(): { server: string } | null
  /** Adds TLS settings and credentials to a request (called per request). */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>
}

export function inClusterAvailable(env: Readonly<Record<string, string | undefined>>, dir = SERVICE_ACCOUNT_DIR): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(dir, 'token')))
}

export function inClusterConfig(
  env: Readonly<Record<string, string | undefined>>,
  dir = SERVICE_ACCOUNT_DIR,
  now: () => number = Date.now,
): ClusterConfig {
  const host = env.KUBERNETES_SERVICE_HOST
  const port = env.KUBERNETES_SERVICE_PORT
  if (!host || !port) throw new Error('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set')
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`
  const ca = readFileSync(join(dir, 'ca.crt'), 'utf8')
  const currentToken = tokenFile(join(dir, 'token'), now)
  return {
    getCurrentCluster: () => ({ server }),
    applyToHTTPSOptions: async (opts) => {
      opts.ca = ca
      opts.headers = { ...(opts.headers as Record<string, string> | undefined), Authorization: `Bearer ${currentToken()}` }
    },
  }
}
