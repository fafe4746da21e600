// The part of `template-sync local` that a kubelet plays in a cluster: it runs
// the webhook and the reconciler as child processes, restarts one that exits
// (with back-off, restart-policy.ts), says so in one line on the terminal,
// and stops them all on request with one line per process.
//
// Each child gets its own process group (detached), so the terminal's Ctrl-C
// reaches `local` only: `local` decides the order of the shutdown and each
// child sees exactly one SIGTERM. The pids are recorded in a file so that a
// later run can reap children a crashed run left behind.

import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs'
import { describeExit, formatSeconds, lastProblem } from './exit-report.ts'
import { isAlive, killGroup } from './processes.ts'
import { LOCAL_RESTART_POLICY, planRestart, type RestartPolicy } from './restart-policy.ts'

export interface ProcessSpec {
  readonly name: string
  readonly command: string
  readonly args: readonly string[]
  /** Every run's stdout and stderr are appended here. */
  readonly logFile: string
}

export interface SupervisorOptions {
  /** One line for the person at the terminal. */
  readonly say: (line: string) => void
  readonly policy?: RestartPolicy
  /** Records the running pids (see reapLeftovers). */
  readonly recordFile?: string
  /** SIGTERM, then SIGKILL after this long. Default 15 s. */
  readonly stopGraceMs?: number
}

export interface StopOutcome {
  readonly name: string
  readonly pid: number | undefined
  /** Gone by SIGTERM (or was not running); false when it needed SIGKILL. */
  readonly clean: boolean
}

interface Supervised {
  readonly spec: ProcessSpec
  readonly log: WriteStream
  child: ChildProcess | undefined
  /** Settles with how the current child ended. */
  ended: Promise<Ending>
  startedAt: number
  streak: number
  restarts: number
  timer: NodeJS.Timeout | undefined
  /** The last lines of the current run, for the exit report. */
  tail: string[]
  partial: string
}

interface Ending {
  readonly code: number | null
  readonly signal: string | null
}

interface RecordFile {
  readonly owner: number
  readonly processes: Record<string, { readonly pid: number; readonly cmdline: string }>
}

const TAIL_LINES = 30

function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
  } catch {
    return undefined
  }
}

/**
 * Kills the processes recorded by a supervisor whose owner died without
 * stopping them. A pid counts only while it still runs the recorded command
 * line, so a reused pid is never signalled.
 */
export function reapLeftovers(recordFile: string, say: (line: string) => void): void {
  if (!existsSync(recordFile)) return
  let rec: RecordFile
  try {
    rec = JSON.parse(readFileSync(recordFile, 'utf8')) as RecordFile
  } catch {
    rmSync(recordFile, { force: true })
    return
  }
  // Our own pid as the owner can only be a dead run's pid, reused: callers reap before they start anything.
  if (rec.owner !== process.pid && isAlive(rec.owner)) return
  for (const [name, p] of Object.entries(rec.processes ?? {})) {
    if (cmdlineOf(p.pid) === p.cmdline) {
      say(`reaping leftover ${name} (pid ${p.pid}) of a run that did not stop`)
      killGroup(p.pid, 'SIGKILL')
    }
  }
  rmSync(recordFile, { force: true })
}

export class Supervisor {
  readonly #say: (line: string) => void
  readonly #policy: RestartPolicy
  readonly #recordFile: string | undefined
  readonly #graceMs: number
  readonly #processes: Supervised[] = []
  #stopping = false

  constructor(opts: SupervisorOptions) {
    this.#say = opts.say
    this.#policy = opts.policy ?? LOCAL_RESTART_POLICY
    this.#recordFile = opts.recordFile
    this.#graceMs = opts.stopGraceMs ?? 15_000
  }

  /** Starts `spec` and keeps it running until stop(). */
  start(spec: ProcessSpec): number | undefined {
    if (this.#stopping) throw new Error(`cannot start ${spec.name}: the supervisor is stopping`)
    const log = createWriteStream(spec.logFile, { flags: 'a' })
    log.on('error', (err) => this.#say(`cannot write ${spec.logFile}: ${err.message}`))
    const s: Supervised = {
      spec,
      log,
      child: undefined,
      ended: Promise.resolve({ code: null, signal: null }),
      startedAt: 0,
      streak: 0,
      restarts: 0,
      timer: undefined,
      tail: [],
      partial: '',
    }
    this.#processes.push(s)
    this.#launch(s)
    return s.child?.pid
  }

  /** The pid of each running process. */
  pids(): Record<string, number> {
    const out: Record<string, number> = {}
    for (const s of this.#processes) if (s.child?.pid !== undefined) out[s.spec.name] = s.child.pid
    return out
  }

  /** Stops every process (SIGTERM, SIGKILL after the grace period), one line each; restarts end. */
  async stop(): Promise<StopOutcome[]> {
    this.#stopping = true
    for (const s of this.#processes) {
      if (s.timer !== undefined) clearTimeout(s.timer)
      s.timer = undefined
    }
    const outcomes = await Promise.all(this.#processes.map((s) => this.#stopOne(s)))
    await Promise.all(this.#processes.map((s) => new Promise<void>((resolve) => s.log.end(resolve))))
    if (this.#recordFile !== undefined) rmSync(this.#recordFile, { force: true })
    return outcomes
  }

  /** SIGKILL to every process now, synchronously: for a `process.on('exit')` hook. */
  killNow(): void {
    this.#stopping = true
    for (const s of this.#processes) {
      if (s.timer !== undefined) clearTimeout(s.timer)
      if (s.child?.pid !== undefined) killGroup(s.child.pid, 'SIGKILL')
    }
  }

  async #stopOne(s: Supervised): Promise<StopOutcome> {
    const child = s.child
    const name = s.spec.name
    if (child === undefined || child.pid === undefined) {
      this.#say(`${name} was not running (waiting to restart)`)
      return { name, pid: undefined, clean: true }
    }
    const pid = child.pid
    killGroup(pid, 'SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const graceOver = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.#graceMs)))
    const first = await Promise.race([s.ended, graceOver])
    clearTimeout(timer)
    if (first === 'timeout') {
      killGroup(pid, 'SIGKILL')
      await s.ended
      this.#say(`stopped ${name} (pid ${pid}) with SIGKILL: it did not stop within ${formatSeconds(this.#graceMs)} of SIGTERM`)
      return { name, pid, clean: false }
    }
    // Ending by our SIGTERM (handled or not) is the normal stop; anything else is worth a word.
    const normal = (first.code === 0 && first.signal === null) || first.signal === 'SIGTERM'
    const how = normal ? '' : `, ${describeExit(first.code, first.signal)}`
    this.#say(`stopped ${name} (pid ${pid}${how})`)
    return { name, pid, clean: true }
  }

  #launch(s: Supervised): void {
    const { name, command, args } = s.spec
    s.tail = []
    s.partial = ''
    s.startedAt = Date.now()
    const child = spawn(command, [...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    s.child = child
    let resolveEnded: (e: Ending) => void = () => {}
    s.ended = new Promise<Ending>((resolve) => (resolveEnded = resolve))
    let done = false
    const ended = (code: number | null, signal: string | null, problem?: string): void => {
      if (done) return
      done = true
      s.child = undefined
      this.#writeRecord()
      resolveEnded({ code, signal })
      if (!this.#stopping) this.#scheduleRestart(s, code, signal, problem)
    }
    const sink = (chunk: Buffer): void => {
      s.log.write(chunk)
      const text = s.partial + chunk.toString('utf8')
      const lines = text.split('\n')
      s.partial = lines.pop() ?? ''
      s.tail.push(...lines.filter((l) => l.trim() !== ''))
      if (s.tail.length > TAIL_LINES) s.tail.splice(0, s.tail.length - TAIL_LINES)
    }
    child.stdout?.on('data', sink)
    child.stderr?.on('data', sink)
    // 'close' comes after the output is drained, so the report sees the last lines.
    child.on('close', (code, signal) => {
      if (s.partial.trim() !== '') s.tail.push(s.partial)
      ended(code, signal)
    })
    child.on('error', (err) => {
      // No pid: the process never started (and no 'close' may follow).
      if (child.pid === undefined) ended(null, null, `could not start: ${err.message}`)
      else this.#say(`${name} (pid ${child.pid}): ${err.message}`)
    })
    this.#writeRecord()
  }

  #scheduleRestart(s: Supervised, code: number | null, signal: string | null, problem?: string): void {
    const ran = Date.now() - s.startedAt
    const plan = planRestart(this.#policy, s.streak, ran)
    s.streak = plan.streak
    const why = problem ?? lastProblem(s.tail)
    const what = problem !== undefined ? problem : `${describeExit(code, signal)} after ${formatSeconds(ran)}`
    this.#say(
      `${s.spec.name} ${what}${why !== undefined && why !== problem ? ` (${why})` : ''}; ` +
        `restarting in ${formatSeconds(plan.delayMs)}; log: ${s.spec.logFile}`,
    )
    s.timer = setTimeout(() => {
      s.timer = undefined
      if (this.#stopping) return
      s.restarts++
      this.#launch(s)
      if (s.child?.pid !== undefined) this.#say(`${s.spec.name} restarted (pid ${s.child.pid}, restart ${s.restarts})`)
    }, plan.delayMs)
  }

  #writeRecord(): void {
    if (this.#recordFile === undefined) return
    const processes: RecordFile['processes'] = {}
    for (const s of this.#processes) {
      const pid = s.child?.pid
      if (pid !== undefined) processes[s.spec.name] = { pid, cmdline: [s.spec.command, ...s.spec.args].join(' ') }
    }
    try {
      writeFileSync(this.#recordFile, JSON.stringify({ owner: process.pid, processes } satisfies RecordFile))
    } catch (err) {
      this.#say(`cannot record the child processes in ${this.#recordFile}: ${(err as Error).message}`)
    }
  }
}
