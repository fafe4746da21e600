// Render threads run below the reconciler's own thread (thread-priority.ts):
// the real pool's workers are reniced, the calling thread is not.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { createRenderPool } from '../../src/reconciler/render-pool.ts'
import { currentThreadId, RENDER_THREAD_NICENESS } from '../../src/reconciler/thread-priority.ts'

/** Niceness of each thread of this process, by thread id (field 19 of /proc/<pid>/task/<tid>/stat). */
function niceness(): Map<number, number> {
  const out = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may hold spaces.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    out.set(Number(tid), Number(rest[16]))
  }
  return out
}

t.test('currentThreadId reads /proc/thread-self, and is undefined where it cannot', async (t) => {
  t.equal(
    currentThreadId(() => '4211/task/4215'),
    4215,
  )
  t.equal(
    currentThreadId(() => {
      throw new Error('ENOENT')
    }),
    undefined,
  )
  t.equal(
    currentThreadId(() => 'nonsense'),
    undefined,
  )
})

t.test(
  'the render pool`s workers run at a lower priority than this thread',
  { skip: !existsSync('/proc/thread-self') && 'no /proc/thread-self' },
  async (t) => {
    const pool = createRenderPool({ size: 2 })
    t.teardown(() => pool.close())
    const before = niceness()
    const job = { kind: 'parse', name: 'x', text: '{{ . }}', timeMs: 10_000 } as const
    await Promise.all([pool.runTemplate(job), pool.runTemplate(job)])
    t.equal(pool.workers(), 2)
    const after = niceness()
    const own = before.get(currentThreadId() ?? -1) ?? 0
    // Never raised: a process already below RENDER_THREAD_NICENESS keeps its own.
    const expected = Math.max(own, RENDER_THREAD_NICENESS)
    const fresh = [...after].filter(([tid]) => !before.has(tid))
    const lowered = fresh.filter(([, nice]) => nice === expected)
    t.equal(lowered.length, 2, `the two render threads run at niceness ${expected}: ${JSON.stringify(fresh)}`)
    t.equal(after.get(currentThreadId() ?? -1), own, 'this thread keeps its priority')
  },
)
