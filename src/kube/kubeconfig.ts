// Kubeconfig files without the client library for the common static cases:
// a server with its CA (inline or a file), client certificates, a bearer
// token (inline or a file re-read every minute) or basic auth. Loading
// @kubernetes/client-node costs a process 50-80 MiB of resident memory,
// mostly the library's module source kept by V8, and every process started
// with --kubeconfig paid it. Anything else (exec plugins, auth providers,
// impersonation, proxies, several KUBECONFIG paths, a file this parser does
// not understand) still goes to the library, loaded on first use, so no
// authentication method is lost (docs/kubeconfig-loader.md).

import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { RequestOptions } from 'node:https'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import type { KubeConfig } from '@kubernetes/client-node'
import { load, YAMLException } from 'js-yaml'
import type { ClusterConfig } from './incluster.ts'
import { rereadingFile, tokenFile } from './reread.ts'

/** A cluster entry the light loader serves. Paths as written in the file. */
export interface LightCluster {
  readonly name: string
  readonly server: string
  readonly caData?: string
  readonly caFile?: string
  readonly insecureSkipTlsVerify: boolean
  readonly tlsServerName?: string
}

/** A user entry the light loader serves. Paths as written in the file. */
export interface LightUser {
  readonly name?: string
  readonly certData?: string
  readonly certFile?: string
  readonly keyData?: string
  readonly keyFile?: string
  readonly token?: string
  readonly tokenFile?: string
  readonly username?: string
  readonly password?: string
}

export type KubeconfigPlan =
  | { readonly kind: 'light'; readonly context: string; readonly cluster: LightCluster; readonly user: LightUser }
  | { readonly kind: 'client-node'; readonly reason: string }

export interface LoadedKubeconfig {
  readonly config: ClusterConfig
  readonly loader: 'light' | 'client-node'
  /** Why the client library was needed; absent for the light loader. */
  readonly reason?: string
}

/** A kubeconfig the light loader reads but that is wrong for every loader (the library too). */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError'
}

type Fields = Readonly<Record<string, unknown>>

const CLUSTER_FIELDS = ['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'tls-server-name']
const USER_FIELDS = [
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'token',
  'tokenFile',
  'username',
  'password',
]
/** Fields that change nothing about how this client connects or authenticates. */
const IGNORED_FIELDS = ['extensions', 'disable-compression']

// Each predicate names what the file uses that only the library serves, or returns undefined.
type Predicate = (cluster: Named, user: Named | undefined) => string | undefined
interface Named {
  readonly name: string
  readonly fields: Fields
}

const userUsesExec: Predicate = (_, u) => (u && u.fields.exec !== undefined ? `user "${u.name}" uses exec` : undefined)
const userUsesAuthProvider: Predicate = (_, u) =>
  u && u.fields['auth-provider'] !== undefined ? `user "${u.name}" uses auth-provider` : undefined
const userImpersonates: Predicate = (_, u) => {
  const field = u && ['as', 'as-uid', 'as-groups', 'as-user-extra'].find((f) => u.fields[f] !== undefined)
  return u && field ? `user "${u.name}" impersonates (${field})` : undefined
}
const clusterUsesProxy: Predicate = (c) => (c.fields['proxy-url'] !== undefined ? `cluster "${c.name}" uses proxy-url` : undefined)
// The library refuses plain http unless TLS verification is off, and then uses its own http agent.
const clusterIsPlainHttp: Predicate = (c) =>
  typeof c.fields.server === 'string' && c.fields.server.startsWith('http:') ? `cluster "${c.name}" server is plain http` : undefined
// Both forms of one credential: the library takes the file, kubectl refuses; keep today's behaviour.
const bothForms: Predicate = (c, u) => {
  const pairs: [Named | undefined, string][] = [
    [c, 'certificate-authority'],
    [u, 'client-certificate'],
    [u, 'client-key'],
  ]
  for (const [entry, field] of pairs) {
    if (entry && entry.fields[field] !== undefined && entry.fields[`${field}-data`] !== undefined)
      return `${entry === c ? 'cluster' : 'user'} "${entry.name}" sets both ${field} and ${field}-data`
  }
  return undefined
}
// The library sends the token and drops basic auth; kubectl refuses. Keep today's behaviour.
const userMixesTokenAndBasicAuth: Predicate = (_, u) =>
  u && (u.fields.token !== undefined || u.fields.tokenFile !== undefined) && u.fields.username !== undefined
    ? `user "${u.name}" sets both a token and a username`
    : undefined
const unknownField: Predicate = (c, u) => {
  const odd = (entry: Named, known: readonly string[]): string | undefined =>
    Object.keys(entry.fields).find((f) => !known.includes(f) && !IGNORED_FIELDS.includes(f))
  const inCluster = odd(c, CLUSTER_FIELDS)
  if (inCluster) return `cluster "${c.name}" has field ${inCluster} that the light loader does not read`
  const inUser = u && odd(u, USER_FIELDS)
  return u && inUser ? `user "${u.name}" has field ${inUser} that the light loader does not read` : undefined
}
const wrongType: Predicate = (c, u) => {
  const odd = (entry: Named, known: readonly string[]): string | undefined =>
    known.find((f) => {
      const v = entry.fields[f]
      return v !== undefined && v !== null && typeof v !== (f === 'insecure-skip-tls-verify' ? 'boolean' : 'string')
    })
  const inCluster = odd(c, CLUSTER_FIELDS)
  if (inCluster) return `cluster "${c.name}" field ${inCluster} has an unexpected type`
  const inUser = u && odd(u, USER_FIELDS)
  return u && inUser ? `user "${u.name}" field ${inUser} has an unexpected type` : undefined
}

/** In order; the first reason wins. */
export const NEEDS_CLIENT_LIBRARY: readonly Predicate[] = [
  userUsesExec,
  userUsesAuthProvider,
  userImpersonates,
  clusterUsesProxy,
  clusterIsPlainHttp,
  bothForms,
  userMixesTokenAndBasicAuth,
  unknownField,
  wrongType,
]

/** Several paths in KUBECONFIG are merged by the library; one path is read here. */
export function kubeconfigPaths(value: string | undefined): string[] {
  return (value ?? '').split(delimiter).filter((p) => p !== '')
}

/**
 * Decides how to serve a kubeconfig file's current context (pure: `text` is
 * the file's contents, `file` only names it in messages). Throws
 * KubeconfigError for what no loader could serve; returns 'client-node' with
 * the reason when the file needs the library.
 */
export function planKubeconfig(text: string, file: string): KubeconfigPlan {
  const fallback = (reason: string): KubeconfigPlan => ({ kind: 'client-node', reason })
  let doc: unknown
  try {
    doc = load(text)
  } catch (err) {
    // Only the position: the YAML message quotes the file, which may hold a token.
    const at = err instanceof YAMLException && err.mark ? ` at line ${err.mark.line + 1}` : ''
    return fallback(`the light loader cannot parse the YAML${at}`)
  }
  if (!isFields(doc)) return fallback('the file is not a YAML mapping')
  const lists: Record<'clusters' | 'users' | 'contexts', Named[]> = { clusters: [], users: [], contexts: [] }
  for (const key of ['clusters', 'users', 'contexts'] as const) {
    const list = doc[key] ?? []
    if (!Array.isArray(list)) return fallback(`${key} is not a list`)
    const inner = key.slice(0, -1)
    for (const [i, item] of list.entries()) {
      if (!isFields(item) || typeof item.name !== 'string') return fallback(`${key}[${i}] has no name`)
      const body = item[inner] ?? {}
      if (!isFields(body)) return fallback(`${key}[${i}].${inner} is not a mapping`)
      lists[key].push({ name: item.name, fields: body })
    }
  }
  const where = `kubeconfig ${file}`
  const current = doc['current-context']
  if (typeof current !== 'string' || current === '') throw new KubeconfigError(`${where} has no current-context`)
  // The first entry of a name wins, as in the library.
  const find = (list: readonly Named[], name: string): Named | undefined => list.find((e) => e.name === name)
  const names = (list: readonly Named[]): string => list.map((e) => `"${e.name}"`).join(', ') || 'none'
  const context = find(lists.contexts, current)
  if (!context) throw new KubeconfigError(`${where}: current-context "${current}" names no context (contexts: ${names(lists.contexts)})`)
  const clusterName = context.fields.cluster
  if (typeof clusterName !== 'string' || clusterName === '') throw new KubeconfigError(`${where}: context "${current}" names no cluster`)
  const cluster = find(lists.clusters, clusterName)
  if (!cluster)
    throw new KubeconfigError(
      `${where}: context "${current}" names cluster "${clusterName}", which is not in the file (clusters: ${names(lists.clusters)})`,
    )
  const userName = context.fields.user
  if (userName !== undefined && userName !== null && typeof userName !== 'string')
    return fallback(`context "${current}" user is not a name`)
  const user = userName ? find(lists.users, userName) : undefined
  if (userName && !user)
    throw new KubeconfigError(
      `${where}: context "${current}" names user "${userName}", which is not in the file (users: ${names(lists.users)})`,
    )

  for (const needs of NEEDS_CLIENT_LIBRARY) {
    const reason = needs(cluster, user)
    if (reason) return fallback(reason)
  }
  const str = (entry: Named, field: string): string | undefined => {
    const v = entry.fields[field]
    return typeof v === 'string' && v !== '' ? v : undefined
  }
  const server = str(cluster, 'server')
  if (!server) throw new KubeconfigError(`${where}: cluster "${cluster.name}" has no server`)
  if (!/^https:\/\/[^/]/.test(server))
    throw new KubeconfigError(`${where}: cluster "${cluster.name}" server "${server}" is not an https:// URL`)
  const light: LightUser = user
    ? {
        name: user.name,
        certData: str(user, 'client-certificate-data'),
        certFile: str(user, 'client-certificate'),
        keyData: str(user, 'client-key-data'),
        keyFile: str(user, 'client-key'),
        token: str(user, 'token'),
        tokenFile: str(user, 'tokenFile'),
        username: str(user, 'username'),
        password: str(user, 'password'),
      }
    : {}
  const hasCert = light.certData !== undefined || light.certFile !== undefined
  const hasKey = light.keyData !== undefined || light.keyFile !== undefined
  if (hasCert !== hasKey)
    throw new KubeconfigError(
      `${where}: user "${user?.name}" has a client ${hasCert ? 'certificate but no client key' : 'key but no client certificate'}`,
    )
  return {
    kind: 'light',
    context: current,
    cluster: {
      name: cluster.name,
      server,
      caData: str(cluster, 'certificate-authority-data'),
      caFile: str(cluster, 'certificate-authority'),
      insecureSkipTlsVerify: cluster.fields['insecure-skip-tls-verify'] === true,
      tlsServerName: str(cluster, 'tls-server-name'),
    },
    user: light,
  }
}

function isFields(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The ClusterConfig for a light plan. Reads the files it names now (so a
 * missing one fails at start, naming it) and again every minute; relative
 * paths are relative to the kubeconfig file, as kubectl resolves them.
 */
export function lightClusterConfig(
  plan: Extract<KubeconfigPlan, { kind: 'light' }>,
  file: string,
  now: () => number = Date.now,
): ClusterConfig {
  const { cluster, user } = plan
  const where = `kubeconfig ${file}`
  const resolve = (p: string): string => (isAbsolute(p) ? p : join(dirname(file), p))
  const material = (data: string | undefined, path: string | undefined, what: string): (() => Buffer) | undefined => {
    if (path !== undefined) return rereadingFile(resolve(path), what, (raw) => raw, now)
    if (data === undefined) return undefined
    const bytes = Buffer.from(data, 'base64')
    if (bytes.length === 0) throw new KubeconfigError(`${where}: ${what} data is not base64`)
    return () => bytes
  }
  const ca = material(cluster.caData, cluster.caFile, `certificate authority of cluster "${cluster.name}"`)
  const cert = material(user.certData, user.certFile, `client certificate of user "${user.name}"`)
  const key = material(user.keyData, user.keyFile, `client key of user "${user.name}"`)
  // An inline token wins over tokenFile, as in client-go and the library.
  const inline = user.token
  const token = inline !== undefined ? () => inline : user.tokenFile !== undefined ? tokenFile(resolve(user.tokenFile), now) : undefined
  const basic =
    user.username !== undefined ? `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}` : undefined
  const server = cluster.server.replace(/\/$/, '')
  return {
    getCurrentCluster: () => ({ server }),
    applyToHTTPSOptions: async (opts: RequestOptions) => {
      // Verification stays on (whatever NODE_TLS_REJECT_UNAUTHORIZED says) unless the file turns it off.
      opts.rejectUnauthorized = !cluster.insecureSkipTlsVerify
      if (cluster.tlsServerName !== undefined) opts.servername = cluster.tlsServerName
      if (ca) opts.ca = ca()
      if (cert && key) {
        opts.cert = cert()
        opts.key = key()
      }
      const authorization = token ? `Bearer ${token()}` : basic
      if (authorization) opts.headers = { ...(opts.headers as Record<string, string> | undefined), Authorization: authorization }
    },
  }
}

/** The library's KubeConfig, loaded on first use only (it is large). */
function clientLibrary(): KubeConfig {
  const lib = createRequire(import.meta.url)('@kubernetes/client-node') as typeof import('@kubernetes/client-node')
  return new lib.KubeConfig()
}

/** Reads a kubeconfig file: the light loader where it serves the file, else the library. */
export function loadKubeconfigFile(file: string, now?: () => number): LoadedKubeconfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new KubeconfigError(
      code === 'ENOENT' ? `kubeconfig file ${file} does not exist` : `cannot read kubeconfig file ${file}: ${code ?? String(err)}`,
    )
  }
  const plan = planKubeconfig(text, file)
  if (plan.kind === 'light') return { config: lightClusterConfig(plan, file, now), loader: 'light' }
  const kc = clientLibrary()
  kc.loadFromFile(file)
  return { config: kc, loader: 'client-node', reason: plan.reason }
}

/**
 * KUBECONFIG (one path) or ~/.kube/config through the light loader; several
 * KUBECONFIG paths, or no file at all, as the library's loadFromDefault does
 * (it merges paths, and without a file falls back to in-cluster or localhost).
 */
export function loadDefaultKubeconfig(env: Readonly<Record<string, string | undefined>>): LoadedKubeconfig {
  const library = (reason: string): LoadedKubeconfig => {
    const kc = clientLibrary()
    kc.loadFromDefault()
    return { config: kc, loader: 'client-node', reason }
  }
  const paths = kubeconfigPaths(env.KUBECONFIG)
  if (paths.length > 1) return library(`KUBECONFIG holds ${paths.length} paths`)
  const [path] = paths
  if (path !== undefined) return loadKubeconfigFile(path)
  const home = env.HOME ? join(env.HOME, '.kube', 'config') : undefined
  if (home !== undefined && existsSync(home)) return loadKubeconfigFile(home)
  return library('no KUBECONFIG and no ~/.kube/config')
}
