// installLastWords, in a child process each time (it hooks process events):
// an unhandled rejection and an uncaught exception are reported with their
// causes and handed to onFatal; an event loop that runs empty is reported; an
// exit that was not planned says so and still runs onExit; a planned one is quiet.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const dir = mkdtempSync(join(tmpdir(), 'ts-last-words-'))
const module = new URL('../../src/cli/last-words.ts', import.meta.url).href
let seq = 0

function run(body: string): { code: number | null; stdout: string; stderr: string } {
  const file = join(dir, `case${++seq}.mts`)
  writeFileSync(
    file,
    `import { installLastWords } from ${JSON.stringify(module)}
const words = installLastWords({
  who: 'template-sync local',
  onFatal: (what) => {
    console.log('onFatal: ' + what)
    setTimeout(() => { words.planned(); process.exit(1) }, 10)
  },
  onExit: () => console.log('onExit'),
})
${body}
`,
  )
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

t.test('an unhandled rejection is reported with its cause and stops the run', async (t) => {
  const r = run(`Promise.reject(new Error('watch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:6443') }))
setInterval(() => {}, 1000)`)
  t.equal(r.code, 1)
  t.match(
    r.stderr,
    /^template-sync local: unhandled promise rejection: Error: watch failed\n {2}caused by Error: connect ECONNREFUSED 127\.0\.0\.1:6443\n {2}at /,
  )
  t.match(r.stdout, /onFatal: unhandled promise rejection\nonExit\n/)
})

t.test('an uncaught exception is reported and stops the run', async (t) => {
  const r = run(`setTimeout(() => { throw new TypeError('x is not a function') }, 5)
setInterval(() => {}, 1000)`)
  t.equal(r.code, 1)
  t.match(r.stderr, /template-sync local: uncaught exception: TypeError: x is not a function/)
  t.match(r.stdout, /onFatal: uncaught exception/)
})

t.test('an event loop that runs empty before the run is over is reported', async (t) => {
  const r = run(`await new Promise(() => {}) // waits for nothing that can happen`)
  t.equal(r.code, 1)
  t.match(r.stderr, /template-sync local: internal error: Error: nothing is left to wait for, yet the run was not over; stopping/)
  t.match(r.stdout, /onFatal: internal error/)
})

t.test('an exit that was not planned says so and still runs onExit', async (t) => {
  const r = run(`setTimeout(() => process.exit(3), 5)
setInterval(() => {}, 1000)`)
  t.equal(r.code, 3)
  t.match(r.stderr, /^template-sync local: exiting with code 3 before stopping in order; killing the processes it started\n$/)
  t.equal(r.stdout, 'onExit\n')
})

t.test('a planned exit is quiet', async (t) => {
  const r = run(`words.planned()
process.exitCode = 0`)
  t.equal(r.code, 0)
  t.equal(r.stderr, '')
  t.equal(r.stdout, 'onExit\n', 'onExit still runs: killing what is already stopped is harmless')
})
