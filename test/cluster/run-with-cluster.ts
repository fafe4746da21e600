// Starts one local control plane, runs the given command with KUBECONFIG (and
// TEMPLATE_SYNC_TEST_CLUSTER, a JSON description) pointing at it, then stops the
// control plane whatever the command's outcome. Exits with the command's code.
// A loopback-only control endpoint lets tests restart kube-apiserver.

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
const control = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/restart-apiserver') {
    restarting ??= cp.restartApiServer().finally(() => (restarting = undefined))
    restarting.then(
      () => res.writeHead(200).end('restarted'),
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
