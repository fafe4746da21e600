// `template-sync local`, the newcomer's command. With --check, run
// non-interactively: it starts its own control plane, the webhook and the
// reconciler, applies examples/, then proves a strict edit is denied, an
// ignored annotation is allowed, revert-mode drift is reverted and an ignored
// spec.replicas is kept. Interactively: Ctrl-C ends it with one line per
// process, exit code 0 and nothing left running.

import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

t.test('template-sync local --check brings everything up and passes its walkthrough', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'ts-local-'))
  t.teardown(() => rmSync(state, { recursive: true, force: true }))
  const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))
  const t0 = Date.now()
  const r = spawnSync(process.execPath, [bin, 'local', '--check', '--skip-build', '--state-dir', state], {
    encoding: 'utf8',
    timeout: 240_000,
  })
  const out = `${r.stdout}${r.stderr}`
  t.equal(r.status, 0, `exit code 0 (output:\n${out.slice(-2000)})`)
  t.match(out, /ready in [\d.]+ s/, `reports its start time (${Date.now() - t0} ms in all)`)
  for (const line of [
    'strict edit denied: yes',
    'ignored annotation allowed: yes',
    'revert-mode drift reverted: yes',
    'ignored spec.replicas kept: yes',
  ]) {
    t.ok(out.includes(`check: ${line}`), line)
  }
})

/** Every process below `root`, from /proc. */
function descendants(root: number): Map<number, string> {
  const parent = new Map<number, number>()
  const name = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
      name.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').slice(0, 3).join(' '))
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map<number, string>()
  const walk = (pid: number): void => {
    for (const [child, ppid] of parent) {
      if (ppid === pid && !out.has(child)) {
        out.set(child, name.get(child) ?? '')
        walk(child)
      }
    }
  }
  walk(root)
  return out
}

/** Running: it exists and is not a zombie waiting for its new parent to reap it. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z'
  } catch {
    return false
  }
}

t.test('Ctrl-C stops everything with one line per process and exit code 0, leaving nothing running', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'ts-local-'))
  t.teardown(() => rmSync(state, { recursive: true, force: true }))
  const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))
  // Its own process group, as a shell runs a foreground job: the terminal's Ctrl-C goes to the whole group.
  const local = spawn(process.execPath, [bin, 'local', '--skip-build', '--state-dir', state], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const pid = local.pid ?? 0
  t.teardown(() => {
    if (running(pid)) process.kill(-pid, 'SIGKILL')
  })
  let out = ''
  local.stdout.on('data', (b: Buffer) => (out += b.toString()))
  local.stderr.on('data', (b: Buffer) => (out += b.toString()))
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    local.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const deadline = Date.now() + 180_000
  while (!out.includes('Press Ctrl-C to stop everything.')) {
    if (Date.now() > deadline || local.exitCode !== null) throw new Error(`local did not come up:\n${out.slice(-3000)}`)
    await new Promise((r) => setTimeout(r, 200))
  }
  const started = descendants(pid)
  const names = [...started.values()]
  for (const what of [
    'etcd',
    'kube-apiserver',
    'kube-controller-manager',
    'kube-scheduler',
    'kwok',
    'template-sync.js webhook',
    'template-sync.js reconciler',
  ])
    t.ok(
      names.some((n) => n.includes(what)),
      `${what} runs under local`,
    )
  const before = out.length

  process.kill(-pid, 'SIGINT')
  const end = await exited
  const tail = out.slice(before).trim().split('\n')
  t.strictSame(end, { code: 0, signal: null }, `exit code 0 (output after Ctrl-C:\n${tail.join('\n')})`)
  t.equal(tail[0], 'SIGINT: stopping')
  const pidOf = (what: string): number | undefined => [...started].find(([, n]) => n.includes(what))?.[0]
  t.strictSame(
    tail.slice(1, 3).sort(),
    [
      `stopped reconciler (pid ${pidOf('template-sync.js reconciler')})`,
      `stopped webhook (pid ${pidOf('template-sync.js webhook')})`,
    ].sort(),
    'one line for each template-sync process',
  )
  t.strictSame(
    tail.slice(3),
    ['kwok', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'].map((n) => `stopped ${n} (pid ${pidOf(`bin/${n}`)})`),
    'then one line for each control-plane process, and nothing else',
  )
  const survivors = async (): Promise<number[]> => {
    for (let i = 0; i < 50; i++) {
      const left = [...started.keys()].filter(running)
      if (left.length === 0) return left
      await new Promise((r) => setTimeout(r, 100))
    }
    return [...started.keys()].filter(running)
  }
  t.strictSame(await survivors(), [], `no process local started is left (${started.size} checked)`)
  t.notOk(existsSync(join(state, 'processes.json')), 'the record of child processes is gone')
  const records = join(tmpdir(), 'template-sync-controlplanes')
  const leftover = existsSync(records) ? readdirSync(records).filter((f) => f.startsWith(`${pid}-`)) : []
  t.strictSame(leftover, [], 'no control-plane record left for a later run to reap')
})
