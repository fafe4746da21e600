// Real chart repositories for the Helm tests: the helm binary (v3, and v4 as
// helm4) with its state in a temporary directory, a chart repository served
// over HTTP with basic auth by the test process, and the OCI registry built in
// test/cluster (basic auth or the bearer token flow).

import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'

export const REPO_USER = 'chart-reader'
export const REPO_PASSWORD = 'hunter2-s3cret'

interface TestLike {
  teardown(fn: () => unknown): void
}

const root = new URL('../../../', import.meta.url).pathname
const binDir = process.env['TEMPLATE_SYNC_BIN_DIR'] ?? join(root, 'test/cluster/bin')

/** A binary of test/cluster/bin; a missing one is a failure, never a skip. */
export function clusterBin(name: string): string {
  const p = join(binDir, name)
  if (!existsSync(p)) throw new Error(`${p} missing: run bash test/cluster/build.sh ${name}`)
  return p
}

export interface HelmTool {
  /** A scratch directory, removed after the test; relative paths of helm commands start here. */
  readonly work: string
  readonly env: NodeJS.ProcessEnv
  helm(...args: string[]): string
  /** For helm talking to a server in this process, which must keep running meanwhile. */
  helmAsync(...args: string[]): Promise<string>
}

export function helmTool(t: TestLike, prefix: string): HelmTool {
  const work = mkdtempSync(join(tmpdir(), `${prefix}-`))
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const env = {
    ...process.env,
    HELM_CACHE_HOME: join(work, 'helm/cache'),
    HELM_CONFIG_HOME: join(work, 'helm/config'),
    HELM_DATA_HOME: join(work, 'helm/data'),
  }
  return {
    work,
    env,
    helm: (...args) => execFileSync(clusterBin('helm'), args, { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    helmAsync: async (...args) => (await promisify(execFile)(clusterBin('helm'), args, { cwd: work, env, encoding: 'utf8' })).stdout,
  }
}

/** Writes a chart directory (Chart.yaml plus `files`, chart-relative) and returns its path. */
export function writeChart(dir: string, name: string, version: string, files: Record<string, string>): string {
  const chart = join(dir, name)
  rmSync(chart, { recursive: true, force: true })
  const all = { 'Chart.yaml': `apiVersion: v2\nname: ${name}\nversion: ${version}\n`, ...files }
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(dirname(join(chart, file)), { recursive: true })
    writeFileSync(join(chart, file), text)
  }
  return chart
}

export interface Registry {
  readonly host: string
  stats(): Promise<{ manifestGets: number; blobGets: number }>
}

/** The test OCI registry, stopped after the test. */
export async function startRegistry(t: TestLike, auth: 'basic' | 'bearer'): Promise<Registry> {
  const child = spawn(clusterBin('oci-registry'), ['-auth', auth, '-user', REPO_USER], {
    env: { ...process.env, REGISTRY_PASSWORD: REPO_PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.teardown(() => {
    child.kill()
  })
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout })
    rl.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`oci-registry exited with ${code}`)))
  })
  const host = line.replace(/^listening /, '')
  return {
    host,
    stats: async () => (await (await fetch(`http://${host}/stats`)).json()) as { manifestGets: number; blobGets: number },
  }
}

export interface ChartServer {
  /** http://127.0.0.1:<port>, the same across stop() and start(). */
  readonly url: string
  /** Request paths, in order. */
  readonly requests: string[]
  /** What is served, by path (e.g. "/charts/index.yaml"); change it at will. */
  readonly files: Map<string, Buffer>
  /** Stops listening: requests get connection refused. */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
}

/** A static HTTP server for chart repositories; every request needs REPO_USER / REPO_PASSWORD. */
export async function startChartServer(t: TestLike): Promise<ChartServer> {
  const requests: string[] = []
  const files = new Map<string, Buffer>()
  const expected = `Basic ${Buffer.from(`${REPO_USER}:${REPO_PASSWORD}`).toString('base64')}`
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '')
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="charts"' }).end('unauthorized')
      return
    }
    const body = files.get(req.url ?? '')
    if (body === undefined) {
      res.writeHead(404).end('not found')
      return
    }
    const type = (req.url ?? '').endsWith('.yaml') ? 'application/yaml' : 'application/gzip'
    res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body)
  })
  let port = 0
  const listen = () =>
    new Promise<void>((resolve) =>
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port
        resolve()
      }),
    )
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  await listen()
  let listening = true
  t.teardown(() => (listening ? close() : undefined))
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    files,
    stop: async () => {
      listening = false
      await close()
    },
    start: async () => {
      await listen()
      listening = true
    },
  }
}
