// The hostile cases of bench:webhook, each run against a fresh webhook
// process as the image runs it (bench/webhook-memory-child.mjs: dist/, the
// chart's Node flags and memory limit, 10,000 TemplateInstances cached). For
// each case: the answers the attacker got, the process's peak RSS while it
// ran, and the worst latency of the valid reviews a load thread kept sending
// meanwhile.
// Goals: no case takes the RSS past 200 MiB or a valid review past 1 s.
//
// The flood cases (`floodCases`, also run alone by `bench:webhook -- --flood`)
// hold connections for seconds, reopening each one the server closes, while
// the valid load opens a new connection for one review in ten, as an API
// server does when its idle connections are busy: a flood that keeps new
// connections out shows up there. The first of them attacks nothing: it is
// the baseline the others are read against, on a process started the same way.

import { readFileSync, writeFileSync } from 'node:fs'
import { connect as tlsConnect, type TLSSocket } from 'node:tls'
import { DEFAULT_BODY_LIMIT } from '../src/webhook/app.ts'
import { policyFor } from '../src/webhook/connection-policy.ts'
import { MAX_JSON_VALUES } from '../src/webhook/json-body.ts'
import { sizeFor } from '../src/webhook/sizing.ts'
import { chartMemoryLimit } from './lib/image.ts'
import { loopbackPeers, startFloodProcess, type FloodOptions } from '../test/fixtures/webhook-flood.ts'

export const RSS_GOAL_MIB = 200
export const LATENCY_GOAL_MS = 1_000

export interface HostileResult {
  readonly name: string
  /**
   * Status codes the hostile requests got, e.g. {"413": 1}; "closed" when the
   * server closed without an answer. Flood cases add what the flood did:
   * connections opened, closed by the server, and most held at once.
   */
  readonly answers: Readonly<Record<string, number>>
  readonly peakRssMib: number
  readonly rssBeforeMib: number
  /** Worst latency of the valid reviews answered while the case ran. */
  readonly worstValidMs: number
  /** When the worst valid review was sent, in ms from the start of the attack. */
  readonly worstValidAtMs: number
  readonly p99ValidMs: number
  readonly validAnswered: number
  readonly validErrors: number
  /** How the valid reviews were answered: status codes, and "error" for a connection that failed. */
  readonly validStatuses: Readonly<Record<string, number>>
  /** CPU time the webhook process used while the case ran, in ms (from /proc; steadier than latency on a shared machine). */
  readonly cpuMs: number
  /** What the webhook refused or closed, by "<code> <cause>", from its metrics. */
  readonly serverRejected: Readonly<Record<string, number>>
  /** How late the webhook's event loop ran while the case ran: a stall of its own, as opposed to waiting for a core. */
  readonly loopDelay: { readonly maxMs: number; readonly p99Ms: number }
  readonly ms: number
}

export interface ValidLoadOptions {
  /** Send every n-th review over a new connection (default: none, keep-alive only). */
  readonly freshEvery?: number
}

/** Sends valid reviews at a fixed rate for durationMs; resolves with their latencies and error counts. */
export type ValidLoad = (
  durationMs: number,
  opts?: ValidLoadOptions,
) => Promise<{
  latencies: Float64Array
  /** When each answered review was due, in ms from the start of the load (parallel to latencies). */
  dues?: Float64Array
  errors: number
  mismatches: number
  statuses: Readonly<Record<string, number>>
}>

interface Answer {
  readonly status: string
}

const MiB = 1024 * 1024

function statusOf(text: string): string {
  return /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'closed'
}

/** One raw request over TLS: `head`, then `body` in chunks of `chunk` bytes every `everyMs` (0: as fast as the socket takes). */
function send(
  port: number,
  ca: string,
  head: string,
  body: Buffer | undefined,
  opts: { chunk?: number; everyMs?: number; waitMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    let text = ''
    let done = false
    let timer: NodeJS.Timeout | undefined
    const finish = (): void => {
      if (done) return
      done = true
      if (timer) clearTimeout(timer)
      socket.destroy()
      resolve({ status: statusOf(text) })
    }
    const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
      socket.write(head)
      if (body === undefined) return
      // A server that refuses on the headers alone answers at once; give it the chance before sending the body.
      setTimeout(() => start(body), 50)
    })
    const start = (body: Buffer): void => {
      const chunk = opts.chunk ?? 64 * 1024
      let at = 0
      const pump = (): void => {
        while (!done && at < body.length) {
          const ok = socket.write(body.subarray(at, at + chunk))
          at += chunk
          if (opts.everyMs) {
            timer = setTimeout(pump, opts.everyMs)
            return
          }
          if (!ok) {
            socket.once('drain', pump)
            return
          }
        }
      }
      pump()
    }
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
      const head = text.indexOf('\r\n\r\n')
      const len = /content-length: (\d+)/i.exec(text)
      if (head >= 0 && len && text.length >= head + 4 + Number(len[1])) finish()
    })
    socket.on('error', finish)
    socket.on('close', finish)
    setTimeout(finish, opts.waitMs ?? 30_000).unref()
  })
}

const header = (length: number): string =>
  `POST /validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

/** A syntactically valid AdmissionReview of a custom resource whose spec holds `spec` (JSON text) in both objects. */
function review(specOld: string, specNew: string): Buffer {
  const obj = (spec: string): string =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"team-0","uid":"w-1"},"spec":${spec}}`
  return Buffer.from(
    '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"hostile","kind":{"group":"example.com","version":"v1","kind":"Widget"},' +
      '"resource":{"group":"example.com","version":"v1","resource":"widgets"},"name":"w","namespace":"team-0","operation":"UPDATE",' +
      `"userInfo":{"username":"mallory"},"object":${obj(specNew)},"oldObject":${obj(specOld)}}}`,
  )
}

const denseObjects = (n: number): string => `[${'{},'.repeat(n - 1)}{}]`
// Built with repeat: the bench process runs with the chart's heap limit too, and millions of small strings would not fit.
const alternating = (n: number, first: number): string => {
  const pair = first === 0 ? '0,1,' : '1,0,'
  return `[${pair.repeat(Math.floor(n / 2))}${first}]`
}

function tally(answers: readonly Answer[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

export interface Case {
  readonly name: string
  /** How long the valid load runs around the case. */
  readonly loadMs: number
  /** Every n-th valid review goes over a new connection. */
  readonly freshEvery?: number
  run(port: number, ca: string): Promise<Answer[] | Record<string, number>>
}

/** How long a flood case holds its connections; the valid load runs LOAD_LEAD_MS before and after it. */
const FLOOD_MS = 8_000
const LOAD_LEAD_MS = 300

/**
 * Runs a flood for FLOOD_MS from eight addresses other than the valid load's
 * 127.0.0.1 (pods other than the API server), and tallies what it got. The
 * flood runs in a process of its own at the lowest CPU priority: an attacker
 * pays for its TLS work on its own node, and on this machine that work would
 * otherwise be counted against the webhook and the API server it stands for.
 * BENCH_FLOOD_NICE=0 runs it at normal priority.
 */
async function flood(port: number, ca: string, opts: Omit<FloodOptions, 'port' | 'ca' | 'peers'>): Promise<Record<string, number>> {
  const f = await startFloodProcess({ port, ca, peers: loopbackPeers(8), ...opts }, Number(process.env.BENCH_FLOOD_NICE ?? 19))
  await new Promise((r) => setTimeout(r, FLOOD_MS))
  const tally = await f.stop()
  return { ...tally.answers, opened: tally.opened, 'closed-by-server': tally.closedByServer, 'held-at-peak': tally.peakHeld }
}

/** Slow senders: 200 half-sent headers and eight 20 MiB bodies, at one byte a second. */
const SLOW_SENDERS = { halfHeaders: 200, slowBodies: [{ count: 8, bytes: 20 * MiB }] }
/**
 * Bodies of at most 1 MiB may use the whole body budget, the slice kept for
 * small bodies included: as many connections as fit below the point where
 * the cap makes room (less 40 for the valid load's), each declaring an equal
 * part of the budget the chart's memory limit gives.
 */
const SMALL_SLOW_BODIES = ((): { count: number; bytes: number }[] => {
  const sizing = sizeFor(chartMemoryLimit() ?? 0, DEFAULT_BODY_LIMIT)
  const count = policyFor(sizing.maxConnections).reclaimAbove - 40
  return [{ count, bytes: Math.floor(sizing.budgetBytes / count) }]
})()

export const floodCases: readonly Case[] = [
  {
    name: 'no attack (baseline for the flood cases)',
    loadMs: FLOOD_MS + 600,
    freshEvery: 10,
    run: async () => {
      await new Promise((r) => setTimeout(r, FLOOD_MS))
      return {}
    },
  },
  {
    name: 'idle keep-alive TLS connections, twice the cap, each after a 404',
    loadMs: FLOOD_MS + 600,
    freshEvery: 10,
    run: (port, ca) => flood(port, ca, { idle: 720, halfHeaders: 0, slowBodies: [] }),
  },
  {
    name: 'slow senders: 200 half-sent headers and eight 20 MiB bodies at 1 byte/s',
    loadMs: FLOOD_MS + 600,
    freshEvery: 10,
    run: (port, ca) => flood(port, ca, { idle: 0, ...SLOW_SENDERS }),
  },
  {
    name: 'slow small bodies that fill the body budget, at 1 byte/s',
    loadMs: FLOOD_MS + 600,
    freshEvery: 10,
    run: (port, ca) => flood(port, ca, { idle: 0, halfHeaders: 0, slowBodies: SMALL_SLOW_BODIES }),
  },
  {
    name: 'all of them at once',
    loadMs: FLOOD_MS + 600,
    freshEvery: 10,
    run: (port, ca) => flood(port, ca, { idle: 720, halfHeaders: 200, slowBodies: [...SLOW_SENDERS.slowBodies, ...SMALL_SLOW_BODIES] }),
  },
]

/** Every hostile case; the flood cases without their baseline among them. */
export const hostileCases: readonly Case[] = [
  {
    name: 'valid review of 31 MiB of dense [{},{},...]',
    loadMs: 3_000,
    run: async (port, ca) => {
      const body = review('{}', `{"dense":${denseObjects(Math.floor((31 * MiB) / 3))}}`)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'dense [{},{},...] just under the body limit (29 MiB)',
    loadMs: 4_000,
    run: async (port, ca) => {
      const body = review('{}', `{"dense":${denseObjects(Math.floor((29 * MiB) / 3))}}`)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'two 7.5 MiB arrays that differ everywhere',
    loadMs: 3_000,
    run: async (port, ca) => {
      const n = Math.floor((7.5 * MiB) / 2)
      const body = review(`{"values":${alternating(n, 0)}}`, `{"values":${alternating(n, 1)}}`)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'two objects of 250,000 empty objects each, equal (a full walk): within the parse-cost bound',
    loadMs: 4_000,
    run: async (port, ca) => {
      const spec = `{"dense":${denseObjects(250_000)}}`
      const body = review(spec, spec)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    // The most a custom resource can hold (measured: 520,127 empty objects at etcd's default 1.5 MiB), twice.
    name: 'two of the densest objects the API server stores (520,000 empty objects each), equal',
    loadMs: 4_000,
    run: async (port, ca) => {
      const spec = `{"dense":${denseObjects(520_000)}}`
      const body = review(spec, spec)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'the densest review the value bound lets through (2.1 M empty objects)',
    loadMs: 4_000,
    run: async (port, ca) => {
      // Each object gets half the bound, less what the envelope and the metadata hold.
      const half = `{"dense":${denseObjects(Math.floor(MAX_JSON_VALUES / 2) - 64)}}`
      const body = review(half, half)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'two arrays of a million values within the bound that differ everywhere',
    loadMs: 3_000,
    run: async (port, ca) => {
      const n = 1_000_000
      const body = review(`{"values":${alternating(n, 0)}}`, `{"values":${alternating(n, 1)}}`)
      return [await send(port, ca, header(body.length), body)]
    },
  },
  {
    name: 'eight 20 MiB bodies sent at 1 MiB/s each',
    loadMs: 6_000,
    run: async (port, ca) => {
      const body = Buffer.alloc(20 * MiB, 0x20)
      return Promise.all(
        Array.from({ length: 8 }, () => send(port, ca, header(body.length), body, { chunk: 64 * 1024, everyMs: 62, waitMs: 5_000 })),
      )
    },
  },
  {
    name: '2,600 idle TLS connections',
    loadMs: 9_000,
    run: async (port, ca) => {
      const answers: Answer[] = []
      await Promise.all(
        Array.from(
          { length: 2_600 },
          () =>
            new Promise<void>((resolve) => {
              const s = tlsConnect({ host: '127.0.0.1', port, ca })
              const started = Date.now()
              let settled = false
              const settle = (status: string): void => {
                if (settled) return
                settled = true
                answers.push({ status })
                resolve()
              }
              s.on('error', () => undefined)
              // Closed by the server: dropped or made room from at the cap (at once), or cut at the first-request deadline.
              s.on('close', () => settle(Date.now() - started < 1_000 ? 'closed-at-once' : 'closed-idle'))
              setTimeout(() => {
                settle('still-open')
                s.destroy()
              }, 8_000).unref()
            }),
        ),
      )
      return answers
    },
  },
  ...floodCases.slice(1),
  {
    name: 'header floods and bad framing from 200 connections',
    loadMs: 3_000,
    run: async (port, ca) =>
      Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          send(
            port,
            ca,
            i % 2 === 0
              ? `POST /validate HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3_000 }, (_, k) => `X-H${k}: v`).join('\r\n')}\r\n\r\n`
              : 'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
            undefined,
            { waitMs: 5_000 },
          ),
        ),
      ),
  },
]

/** User and system CPU time of a process so far, in ms (/proc/<pid>/stat counts in ticks of 1/100 s on Linux). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

function rssMib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : Number.NaN
}

/** A webhook process to attack: where it listens, valid load against it, and how to stop it. */
export interface HostileTarget {
  readonly pid: number
  readonly port: number
  readonly valid: ValidLoad
  mark(): Promise<void>
  rejected(): Promise<{ rejected: Record<string, number>; loopDelay: { maxMs: number; p99Ms: number } }>
  stop(): Promise<void>
}

/** Runs every case (by default all of them) against a fresh webhook process from `start`. */
export async function runHostileCases(
  start: () => Promise<HostileTarget>,
  ca: string,
  only: readonly Case[] = hostileCases,
): Promise<HostileResult[]> {
  const results: HostileResult[] = []
  for (const c of only) {
    const target = await start()
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS.
    writeFileSync(`/proc/${target.pid}/clear_refs`, '5')
    const rssBefore = rssMib(target.pid, 'VmRSS')
    const cpuBefore = cpuMsOf(target.pid)
    await target.mark()
    const started = performance.now()
    const valid = target.valid(c.loadMs, c.freshEvery === undefined ? {} : { freshEvery: c.freshEvery })
    // Let the valid load get going before the attack starts.
    await new Promise((r) => setTimeout(r, LOAD_LEAD_MS))
    const got = await c.run(target.port, ca)
    const v = await valid
    // BENCH_SLOW=1: which valid reviews took more than 50 ms, as <ms into the load>:<latency ms>.
    if (process.env.BENCH_SLOW === '1') {
      const slow = Array.from(v.latencies, (l, i) => [Math.round(v.dues?.[i] ?? 0), Math.round(l)]).filter(([, l]) => (l ?? 0) > 50)
      console.log(`${c.name}: slow valid reviews ${slow.map((p) => p.join(':')).join(' ') || 'none'}`)
    }
    const sorted = Float64Array.from(v.latencies).sort()
    const worst = sorted.at(-1) ?? 0
    const seen = await target.rejected()
    const worstAt = (v.dues?.[v.latencies.indexOf(worst)] ?? Number.NaN) - LOAD_LEAD_MS
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0
    results.push({
      name: c.name,
      answers: Array.isArray(got) ? tally(got) : got,
      peakRssMib: rssMib(target.pid, 'VmHWM'),
      rssBeforeMib: rssBefore,
      worstValidMs: Math.round(worst * 10) / 10,
      worstValidAtMs: Math.round(worstAt),
      p99ValidMs: Math.round(p99 * 10) / 10,
      validAnswered: v.latencies.length,
      validErrors: v.errors + v.mismatches,
      validStatuses: v.statuses,
      cpuMs: cpuMsOf(target.pid) - cpuBefore,
      serverRejected: seen.rejected,
      loopDelay: seen.loopDelay,
      ms: Math.round(performance.now() - started),
    })
    await target.stop()
  }
  return results
}
