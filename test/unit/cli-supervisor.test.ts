// The Supervisor of `template-sync local` with real (tiny) child processes:
// restarts with back-off and one line each, a stop with one line per process,
// SIGKILL for one that ignores SIGTERM, no restart after a stop, a command
// that cannot start, process groups of their own, and the reaping of
// children a crashed run left behind.

import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAlive } from '../../src/cli/processes.ts'
import { reapLeftovers, Supervisor, type ProcessSpec } from '../../src/cli/supervisor.ts'

const dir = mkdtempSync(join(tmpdir(), 'ts-supervisor-'))
const FAST = { initialMs: 100, maxMs: 400, resetAfterMs: 60_000 }

function nodeProcess(name: string, script: string): ProcessSpec {
  return { name, command: process.execPath, args: ['-e', script], logFile: join(dir, `${name}.log`) }
}

const SLEEPER = 'setInterval(() => {}, 1000)'
const STUBBORN = "process.on('SIGTERM', () => {}); console.log('handler installed'); setInterval(() => {}, 1000)"
const CRASHER = `console.log(JSON.stringify({ level: 50, msg: 'lost the leader lease', err: { message: 'renew deadline passed' } })); process.exit(3)`

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Waits until a child has written that its SIGTERM handler is installed (a loaded machine may take seconds to start node). */
const handlerInstalled = (name: string): Promise<void> =>
  waitFor(`${name} to install its SIGTERM handler`, () => {
    try {
      return readFileSync(join(dir, `${name}.log`), 'utf8').includes('handler installed')
    } catch {
      return false
    }
  })

function supervisor(lines: string[], extra: Partial<ConstructorParameters<typeof Supervisor>[0]> = {}): Supervisor {
  return new Supervisor({ say: (l) => lines.push(l), policy: FAST, ...extra })
}

t.test('a process that exits is restarted with back-off, one line per exit and per restart', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines)
  sup.start(nodeProcess('crasher', CRASHER))
  await waitFor('three restarts', () => lines.filter((l) => l.startsWith('crasher restarted')).length >= 3)
  await sup.stop()
  const exits = lines.filter((l) => l.includes('exited with code 3'))
  t.match(
    exits[0],
    /^crasher exited with code 3 after [\d.]+ s \(lost the leader lease: renew deadline passed\); restarting in 0\.1 s; log: .*crasher\.log$/,
  )
  t.match(exits[1], /restarting in 0\.2 s/, 'the delay doubles')
  t.match(exits[2], /restarting in 0\.4 s/)
  t.match(lines.filter((l) => l.startsWith('crasher restarted'))[0], /^crasher restarted \(pid \d+, restart 1\)$/)
  t.match(readFileSync(join(dir, 'crasher.log'), 'utf8'), /lost the leader lease/, 'the output of every run is in the log file')
})

t.test('stop() ends every process with SIGTERM and says so once per process', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines)
  sup.start(nodeProcess('one', SLEEPER))
  sup.start(nodeProcess('two', SLEEPER))
  const pids = sup.pids()
  t.strictSame(Object.keys(pids), ['one', 'two'])
  for (const pid of Object.values(pids)) {
    // Field 5 of /proc/PID/stat is the process group: each child leads its own, so a terminal's Ctrl-C does not reach it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    t.equal(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]), pid, `pid ${pid} is its own process group`)
  }
  const outcomes = await sup.stop()
  t.strictSame(outcomes, [
    { name: 'one', pid: pids.one, clean: true },
    { name: 'two', pid: pids.two, clean: true },
  ])
  t.strictSame(lines.sort(), [`stopped one (pid ${pids.one})`, `stopped two (pid ${pids.two})`].sort())
  for (const pid of Object.values(pids)) t.notOk(isAlive(pid), `pid ${pid} is gone`)
})

t.test('a process that exits with an error on SIGTERM is stopped, and the line says how it ended', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines)
  sup.start(
    nodeProcess('grumpy', "process.on('SIGTERM', () => process.exit(1)); console.log('handler installed'); setInterval(() => {}, 1000)"),
  )
  const pid = sup.pids().grumpy ?? 0
  await handlerInstalled('grumpy')
  await sup.stop()
  t.strictSame(lines, [`stopped grumpy (pid ${pid}, exited with code 1)`])
})

t.test('a process that ignores SIGTERM is killed after the grace period, and the stop says so', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines, { stopGraceMs: 300 })
  sup.start(nodeProcess('stubborn', STUBBORN))
  const pid = sup.pids().stubborn ?? 0
  await handlerInstalled('stubborn')
  const [outcome] = await sup.stop()
  t.strictSame(outcome, { name: 'stubborn', pid, clean: false })
  t.strictSame(lines, [`stopped stubborn (pid ${pid}) with SIGKILL: it did not stop within 0.3 s of SIGTERM`])
  t.notOk(isAlive(pid))
})

t.test('a process waiting to be restarted is reported and not started again after stop()', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines, { policy: { initialMs: 500, maxMs: 500, resetAfterMs: 60_000 } })
  sup.start(nodeProcess('crasher', CRASHER))
  await waitFor('the first exit', () => lines.some((l) => l.includes('restarting in 0.5 s')))
  await sup.stop()
  await new Promise((r) => setTimeout(r, 800))
  t.equal(lines.filter((l) => l.startsWith('crasher restarted')).length, 0, 'no restart after stop')
  t.equal(lines.at(-1), 'crasher was not running (waiting to restart)')
})

t.test('a command that cannot start is reported with the cause and retried', async (t) => {
  const lines: string[] = []
  const sup = supervisor(lines)
  sup.start({ name: 'ghost', command: join(dir, 'no-such-binary'), args: [], logFile: join(dir, 'ghost.log') })
  await waitFor('two attempts', () => lines.filter((l) => l.startsWith('ghost could not start')).length >= 2)
  await sup.stop()
  t.match(lines[0], /^ghost could not start: spawn .*no-such-binary ENOENT; restarting in 0\.1 s; log: /)
})

t.test('the record file lists the running children; a later run reaps them once their owner is gone', async (t) => {
  const recordFile = join(dir, 'processes.json')
  const lines: string[] = []
  const sup = supervisor(lines, { recordFile })
  sup.start(nodeProcess('orphan', SLEEPER))
  const pid = sup.pids().orphan ?? 0
  const rec = JSON.parse(readFileSync(recordFile, 'utf8')) as { owner: number; processes: Record<string, { pid: number; cmdline: string }> }
  t.equal(rec.owner, process.pid)
  t.equal(rec.processes.orphan?.pid, pid)

  // The same record as another run that is still going would have it.
  const owner = spawn(process.execPath, ['-e', SLEEPER], { stdio: 'ignore' })
  t.teardown(() => void owner.kill('SIGKILL'))
  writeFileSync(recordFile, JSON.stringify({ ...rec, owner: owner.pid }))
  reapLeftovers(recordFile, (l) => lines.push(l))
  await new Promise((r) => setTimeout(r, 200))
  t.ok(isAlive(pid), 'not reaped while the owner lives')

  // And as a dead owner left it.
  const gone = spawn(process.execPath, ['-e', ''])
  await new Promise((r) => gone.on('exit', r))
  writeFileSync(recordFile, JSON.stringify({ ...rec, owner: gone.pid }))
  const said: string[] = []
  reapLeftovers(recordFile, (l) => said.push(l))
  t.strictSame(said, [`reaping leftover orphan (pid ${pid}) of a run that did not stop`])
  await waitFor('the orphan to die', () => !isAlive(pid))
  await sup.stop()
})

t.test('reapLeftovers leaves alone a pid that now runs something else', async (t) => {
  const other = spawn(process.execPath, ['-e', SLEEPER], { stdio: 'ignore' })
  t.teardown(() => void other.kill('SIGKILL'))
  const gone = spawn(process.execPath, ['-e', ''])
  await new Promise((r) => gone.on('exit', r))
  const recordFile = join(dir, 'reused.json')
  writeFileSync(
    recordFile,
    JSON.stringify({ owner: gone.pid, processes: { webhook: { pid: other.pid, cmdline: 'node bin/template-sync.js webhook' } } }),
  )
  const said: string[] = []
  reapLeftovers(recordFile, (l) => said.push(l))
  t.strictSame(said, [])
  t.ok(isAlive(other.pid ?? 0), 'the unrelated process lives')
})
