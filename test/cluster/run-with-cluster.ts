// Starts one local control plane, runs the given command with KUBECONFIG (and
// TEMPLATE_SYNC_TEST_CLUSTER, a JSON description) pointing at it, then stops the
// control plane whatever the command's outcome. Exits with the command's code.
// A loopback-only control endpoint lets tests restart kube-apiserver or take it
// down for a while.

import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startControlPlane } from '../../src/local/controlplane.ts'

const argv = process.argv.slice(2)
if (argv.length === 0) {
  console.error('usage: run-with-cluster.ts COMMAND [ARGS...]')
  process.exit(2)
}
const log = (m: string): void => console.error(`[control-plane] ${m}`)

const cp = await startControlPlane({ log })
log(`ready in ${cp.startMs} ms at ${cp.server} (work dir ${cp.workDir})`)

let restarting: Promise<void> | undefined
let outage: Promise<void> | undefined
const control = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/restart-apiserver') {
    restarting ??= cp.restartApiServer().finally(() => (restarting = undefined))
    restarting.then(
      () => res.writeHead(200).end('restarted'),
      (e: unknown) => res.writeHead(500).end(String(e)),
    )
    return
  }
  // POST /apiserver-outage?seconds=N: kube-apiserver down for N seconds; answers once it is serving again.
  const url = new URL(req.url ?? '/', 'http://control')
  if (req.method === 'POST' && url.pathname === '/apiserver-outage') {
    const seconds = Number(url.searchParams.get('seconds'))
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > 600) {
      res.writeHead(400).end(`seconds must be a number in 0..600, got ${JSON.stringify(url.searchParams.get('seconds'))}`)
      return
    }
    if (outage !== undefined) {
      res.writeHead(409).end('an outage is already in progress')
      return
    }
    log(`kube-apiserver down for ${seconds} s`)
    outage = cp.apiServerOutage(seconds * 1000).finally(() => (outage = undefined))
    outage.then(
      () => {
        log('kube-apiserver back')
        res.writeHead(200).end('back')
      },
      (e: unknown) => res.writeHead(500).end(String(e)),
    )
    return
  }
  res.writeHead(404).end()
})
await new Promise<void>((r) => control.listen(0, '127.0.0.1', () => r()))
const addr = control.address()
const controlUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`

const infoPath = join(cp.workDir, 'cluster.json')
writeFileSync(
  infoPath,
  JSON.stringify({
    server: cp.server,
    kubeconfig: cp.kubeconfigPath,
    caCert: cp.caCertPath,
    caKey: cp.caKeyPath,
    workDir: cp.workDir,
    control: controlUrl,
  }),
)

let stopping = false
const finish = async (code: number): Promise<never> => {
  if (!stopping) {
    stopping = true
    control.close()
    const peaks = cp.peakRssMiB()
    await cp.stop()
    const total = Object.values(peaks).reduce((a, b) => a + b, 0)
    log(`stopped; peak RSS MiB ${JSON.stringify(peaks)} total ${total}`)
  }
  process.exit(code)
}

const child = spawn(argv[0] as string, argv.slice(1), {
  stdio: 'inherit',
  env: { ...process.env, KUBECONFIG: cp.kubeconfigPath, TEMPLATE_SYNC_TEST_CLUSTER: infoPath },
})
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    child.kill(sig)
  })
}
child.on('exit', (code, signal) => {
  void finish(code ?? (signal ? 1 : 0))
})
child.on('error', (e) => {
  log(`could not run ${argv[0]}: ${e.message}`)
  void finish(1)
})
