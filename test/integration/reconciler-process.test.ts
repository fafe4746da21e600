// The reconciler as the real process (`template-sync reconciler`): two
// replicas on one Lease, exactly one works, and the other takes over when the
// leader stops gracefully or dies.

import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { adminClient, freshNamespace, clusterInfo, eventually } from './helpers/cluster.ts'
import { installCrds, createTemplate, createInstance, waitForCondition, configMapTemplate } from './helpers/operator.ts'

const client = adminClient()
t.before(() => installCrds(client))
t.teardown(() => client.close())

const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))

interface Replica {
  child: ChildProcess
  logs: string[]
  identity: () => string | undefined
}

function startReplica(leaseNs: string, name: string): Replica {
  const child = spawn(
    process.execPath,
    [
      bin,
      'reconciler',
      '--kubeconfig',
      clusterInfo().kubeconfig,
      '--health-port',
      '0',
      '--leader-election-namespace',
      leaseNs,
      '--lease-duration-seconds',
      '4',
      '--log-level',
      'info',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, POD_NAME: name },
    },
  )
  const logs: string[] = []
  const collect = (b: Buffer): void => {
    for (const line of b.toString().split('\n')) if (line.trim()) logs.push(line)
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  return {
    child,
    logs,
    identity: () => {
      for (const l of logs) {
        const m = /"identity":"([^"]+)"/.exec(l)
        if (m && l.includes('became leader')) return m[1]
      }
      return undefined
    },
  }
}

const leads = (r: Replica): boolean => r.logs.some((l) => l.includes('became leader'))
const exited = (r: Replica): Promise<number | null> =>
  new Promise((res) => (r.child.exitCode !== null ? res(r.child.exitCode) : r.child.once('exit', (c) => res(c))))

interface Lease {
  spec?: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number }
}

t.test('two replicas: one leader works, the other takes over after a graceful stop and after a crash', async (t) => {
  const leaseNs = await freshNamespace(t, client, 'lease')
  const ns = await freshNamespace(t, client)
  const a = startReplica(leaseNs, 'replica-a')
  const b = startReplica(leaseNs, 'replica-b')
  const c: Replica[] = []
  t.teardown(() => {
    for (const r of [a, b, ...c]) r.child.kill('SIGKILL')
  })
  const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${leaseNs}/leases/template-sync-reconciler`
  const first = await eventually('a leader', async () => (leads(a) ? a : leads(b) ? b : undefined), 30_000)
  const standby = first === a ? b : a
  await new Promise((r) => setTimeout(r, 1500))
  t.notOk(leads(standby), 'exactly one replica leads')
  const lease = await client.get<Lease>(leasePath)
  t.equal(lease.spec?.holderIdentity, first.identity(), 'the Lease names the leader')
  t.match(lease.spec?.renewTime, /\.\d{6}Z$/, 'MicroTime with microseconds')

  await createTemplate(client, ns, 'tpl', { gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  await createInstance(client, ns, 'by-first', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'by-first', 'Ready', 'True')

  // Graceful stop: the lease is released and the standby takes over at once.
  const t0 = Date.now()
  first.child.kill('SIGTERM')
  t.equal(await exited(first), 0, 'leader exits cleanly')
  await eventually('standby leads', async () => (leads(standby) ? true : undefined), 20_000)
  t.ok(Date.now() - t0 < 10_000, `takeover after a graceful stop took ${Date.now() - t0} ms`)
  await createInstance(client, ns, 'by-second', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'by-second', 'Ready', 'True')

  // Crash: a new replica waits for the lease to expire, then leads.
  const third = startReplica(leaseNs, 'replica-c')
  c.push(third)
  await new Promise((r) => setTimeout(r, 1500))
  t.notOk(leads(third), 'the new replica stands by while the leader lives')
  standby.child.kill('SIGKILL')
  await eventually('new replica leads after the lease expired', async () => (leads(third) ? true : undefined), 30_000)
  const after = await client.get<Lease>(leasePath)
  t.equal(after.spec?.holderIdentity, third.identity())
  t.ok((after.spec?.leaseTransitions ?? 0) >= 2, 'transitions counted')
  await createInstance(client, ns, 'by-third', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'by-third', 'Ready', 'True')
  third.child.kill('SIGTERM')
  t.equal(await exited(third), 0)
})
