// A small JSON REST client for the Kubernetes API. Authentication and TLS come
// from a ClusterConfig: in a Pod the light in-cluster loader (incluster.ts),
// elsewhere the light kubeconfig loader (kubeconfig.ts) for static
// credentials, and @kubernetes/client-node's KubeConfig, loaded only then,
// for what only it serves (exec plugins, auth providers, proxies, merged
// KUBECONFIG paths; docs/kubeconfig-loader.md). Requests go through node:https with
// keep-alive agents so that bodies stay raw JSON (no generated serializers
// dropping unknown fields) and watch streams are under our control.
// Two connection pools ("lanes"): work requests and watches share one, and
// leader election has its own, so a Lease renewal never waits for a socket
// behind reconcile traffic or long-lived watches (docs/leader-election.md).
// Nothing on either lane is rate-limited on the client side.

import { Agent, request as httpsRequest, type RequestOptions } from 'node:https'
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http'
import { createInterface } from 'node:readline'
import { KubeApiError } from './errors.ts'
import { inClusterAvailable, inClusterConfig, type ClusterConfig } from './incluster.ts'
import { loadDefaultKubeconfig, loadKubeconfigFile } from './kubeconfig.ts'

export type Query = Record<string, string | number | boolean | undefined>

/** Which connection pool a request uses. */
export type Lane = 'work' | 'leader-election'

export interface RequestInit {
  query?: Query
  body?: unknown
  contentType?: string
  signal?: AbortSignal
  timeoutMs?: number
  /** Accept header; application/json unless set (e.g. to ask for PartialObjectMetadata). */
  accept?: string
  /** Default 'work'. 'leader-election' is for Lease reads and writes only. */
  lane?: Lane
}

export interface KubeClientOptions {
  /** Most concurrent connections of the work lane (requests beyond wait for one). Default 64. */
  readonly workSockets?: number
  /**
   * Act as this user (Impersonate-User / Impersonate-Group headers): the
   * credentials must be allowed to impersonate. Tests use it to act as a
   * tenant through the real API server's authorization.
   */
  readonly impersonate?: Impersonation
}

export interface Impersonation {
  readonly user: string
  /** Groups of the impersonated user; the API server adds system:authenticated. */
  readonly groups?: readonly string[]
}

/** Accept headers that make the API server send metadata only (PartialObjectMetadata / ...List). */
export const ACCEPT_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json'
export const ACCEPT_METADATA = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json'

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'
  object: Record<string, unknown>
}

export interface RequestCounter {
  total: number
  byVerb: Record<string, number>
}

export const CONTENT_APPLY = 'application/apply-patch+yaml'
export const CONTENT_MERGE = 'application/merge-patch+json'
export const CONTENT_JSON_PATCH = 'application/json-patch+json'

/** A request body as sent: strings as they are, anything else as JSON. */
function bodyBytes(body: unknown): Buffer {
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8')
}

export class KubeClient {
  readonly server: string
  readonly kubeConfig: ClusterConfig
  /** Every request this client made, by verb (used to prove "no API call per admission request"). */
  readonly counter: RequestCounter = { total: 0, byVerb: {} }
  private readonly observers: ((verb: string, path: string) => void)[] = []
  private readonly agents: Readonly<Record<Lane, Agent | HttpAgent>>
  private readonly isHttps: boolean
  private readonly userAgent: string
  private readonly impersonate: Impersonation | undefined

  constructor(kc: ClusterConfig, userAgent = 'template-sync', opts: KubeClientOptions = {}) {
    const cluster = kc.getCurrentCluster()
    if (!cluster) throw new Error('kubeconfig has no current cluster')
    this.kubeConfig = kc
    this.server = cluster.server.replace(/\/$/, '')
    this.isHttps = this.server.startsWith('https:')
    const agent = (maxSockets: number): Agent | HttpAgent =>
      this.isHttps ? new Agent({ keepAlive: true, maxSockets }) : new HttpAgent({ keepAlive: true, maxSockets })
    // A renewal is a GET then a PUT, one at a time: two sockets leave room for a release racing a last renewal.
    this.agents = { work: agent(opts.workSockets ?? 64), 'leader-election': agent(2) }
    this.userAgent = userAgent
    this.impersonate = opts.impersonate
  }

  /** A client with the same credentials acting as another user (see KubeClientOptions.impersonate). */
  as(user: Impersonation, userAgent = this.userAgent): KubeClient {
    return new KubeClient(this.kubeConfig, userAgent, { impersonate: user })
  }

  static fromFile(path: string, userAgent?: string, opts?: KubeClientOptions): KubeClient {
    return new KubeClient(loadKubeconfigFile(path).config, userAgent, opts)
  }

  /** In-cluster config when running in a Pod, else KUBECONFIG / ~/.kube/config. */
  static fromDefault(userAgent?: string, env: Readonly<Record<string, string | undefined>> = process.env): KubeClient {
    if (inClusterAvailable(env) && !env.KUBECONFIG) return new KubeClient(inClusterConfig(env), userAgent)
    return new KubeClient(loadDefaultKubeconfig(env).config, userAgent)
  }

  /** Calls fn with the counted verb and the path of every request (metrics, tests). */
  observe(fn: (verb: string, path: string) => void): () => void {
    this.observers.push(fn)
    return () => {
      const i = this.observers.indexOf(fn)
      if (i >= 0) this.observers.splice(i, 1)
    }
  }

  close(): void {
    for (const a of Object.values(this.agents)) a.destroy()
  }

  private async options(method: string, url: URL, init: RequestInit): Promise<RequestOptions> {
    const opts: RequestOptions = { method, headers: {} }
    // applyToHTTPSOptions fills ca/cert/key and the Authorization header; it
    // re-reads rotating service-account tokens, so call it per request.
    await this.kubeConfig.applyToHTTPSOptions(opts)
    const headers = (opts.headers ?? {}) as Record<string, string | string[]>
    headers['Accept'] = init.accept ?? 'application/json'
    headers['User-Agent'] = this.userAgent
    if (this.impersonate) {
      headers['Impersonate-User'] = this.impersonate.user
      if (this.impersonate.groups?.length) headers['Impersonate-Group'] = [...this.impersonate.groups]
    }
    if (init.body !== undefined) {
      headers['Content-Type'] = init.contentType ?? 'application/json'
      // A length, not chunks: kube-apiserver (Go's net/http) may answer a DELETE
      // before reading a chunked body, and the next request on that connection
      // then fails with a bare "400 Bad Request".
      headers['Content-Length'] = String(bodyBytes(init.body).length)
    }
    opts.headers = headers
    opts.agent = this.agents[init.lane ?? 'work']
    opts.hostname = url.hostname
    opts.port = url.port
    opts.path = url.pathname + url.search
    if (init.signal) opts.signal = init.signal
    return opts
  }

  private url(path: string, query?: Query): URL {
    const u = new URL(this.server + path)
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v))
    return u
  }

  private count(method: string, path: string, query?: Query): void {
    // Dry runs are reads as far as the cluster is concerned, and lease renewals
    // are the price of leader election, not work on objects: count both apart.
    // Events and status writes too, so a breakdown shows what the writes were for.
    const base = query?.watch ? 'WATCH' : query?.dryRun ? `${method}-DRYRUN` : method
    const verb = path.includes('/leases')
      ? `LEASE-${base}`
      : /\/events(\/|$)/.test(path)
        ? `EVENT-${base}`
        : path.endsWith('/status')
          ? `STATUS-${base}`
          : base
    for (const fn of this.observers) fn(verb, path)
    this.counter.total++
    this.counter.byVerb[verb] = (this.counter.byVerb[verb] ?? 0) + 1
  }

  private send(method: string, path: string, init: RequestInit): Promise<IncomingMessage> {
    const url = this.url(path, init.query)
    this.count(method, path, init.query)
    return this.options(method, url, init).then(
      (opts) =>
        new Promise<IncomingMessage>((resolve, reject) => {
          const req = (this.isHttps ? httpsRequest : httpRequest)(opts, resolve)
          req.on('error', reject)
          if (init.timeoutMs)
            req.setTimeout(init.timeoutMs, () => req.destroy(new Error(`${method} ${path}: timed out after ${init.timeoutMs} ms`)))
          if (init.body !== undefined) req.end(bodyBytes(init.body))
          else req.end()
        }),
    )
  }

  /** One request; resolves to the parsed JSON body, throws KubeApiError for a non-2xx status. */
  async request<T = Record<string, unknown>>(method: string, path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.send(method, path, { timeoutMs: 60_000, ...init })
    const chunks: Buffer[] = []
    for await (const c of res) chunks.push(c as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const status = res.statusCode ?? 0
    if (status < 200 || status >= 300) throw KubeApiError.fromResponse(method, path, status, text)
    return (text ? JSON.parse(text) : {}) as T
  }

  get<T = Record<string, unknown>>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, query ? { query } : {})
  }

  /** GET that returns undefined for 404. */
  async getOrUndefined<T = Record<string, unknown>>(path: string, query?: Query): Promise<T | undefined> {
    try {
      return await this.get<T>(path, query)
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 404) return undefined
      throw e
    }
  }

  /**
   * Opens a watch stream and calls onEvent per event until the stream ends.
   * Resolves when the server closes the stream (normal at timeoutSeconds),
   * rejects on transport errors or a non-200 status.
   */
  async watch(
    path: string,
    query: Query,
    onEvent: (e: WatchEvent) => void,
    signal?: AbortSignal,
    opts: { readonly accept?: string; readonly parseLine?: (line: string) => WatchEvent } = {},
  ): Promise<void> {
    const parseLine = opts.parseLine ?? ((line: string): WatchEvent => JSON.parse(line) as WatchEvent)
    const res = await this.send('GET', path, {
      query: { ...query, watch: true },
      ...(signal ? { signal } : {}),
      ...(opts.accept ? { accept: opts.accept } : {}),
    })
    const status = res.statusCode ?? 0
    if (status !== 200) {
      const chunks: Buffer[] = []
      for await (const c of res) chunks.push(c as Buffer)
      throw KubeApiError.fromResponse('WATCH', path, status, Buffer.concat(chunks).toString('utf8'))
    }
    const lines = createInterface({ input: res, crlfDelay: Infinity })
    try {
      for await (const line of lines) {
        if (!line) continue
        let ev: WatchEvent
        try {
          ev = parseLine(line)
        } catch {
          throw new Error(`watch ${path}: malformed event line`)
        }
        onEvent(ev)
      }
    } finally {
      lines.close()
      res.destroy()
    }
  }
}
