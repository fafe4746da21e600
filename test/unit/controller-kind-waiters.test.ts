// Instances waiting for kinds not served yet, by API group: a change of the
// group brings back exactly its waiters, a change while a pass looked is not
// missed, and a pass looks again soon while a change is recent.

import t from 'tap'
import { KindWaiters, RECENT_CHANGE_MS, RECHECK_CHANGED_MS, RECHECK_RECENT_MS, recheckAfterMs } from '../../src/controller/kind-waiters.ts'

t.test('a change of a group returns its waiters once, and no other', async (t) => {
  const w = new KindWaiters()
  w.wait('ns/a', ['a.example.com'], w.mark(), 0)
  w.wait('ns/b', ['a.example.com', 'b.example.com'], w.mark(), 0)
  w.wait('ns/c', ['c.example.com'], w.mark(), 0)
  t.same(w.changed('a.example.com', 1).sort(), ['ns/a', 'ns/b'])
  t.same(w.changed('a.example.com', 2), [], 'they wait no more')
  t.same(w.changed('b.example.com', 3), [], 'ns/b stopped waiting for its other group too')
  t.equal(w.size(), 1)
  w.release('ns/c')
  t.same(w.changed('c.example.com', 4), [])
  t.equal(w.size(), 0)
})

t.test('waiting again replaces the groups waited for', async (t) => {
  const w = new KindWaiters()
  w.wait('ns/a', ['old.example.com'], w.mark(), 0)
  w.wait('ns/a', ['new.example.com'], w.mark(), 0)
  t.same(w.changed('old.example.com', 1), [])
  t.same(w.changed('new.example.com', 1), ['ns/a'])
})

t.test('a change after the mark (while the pass looked) is seen by wait', async (t) => {
  const w = new KindWaiters()
  w.changed('a.example.com', 100)
  const mark = w.mark()
  t.same(w.wait('ns/a', ['a.example.com'], mark, 150), { changedWhileLooking: false, sinceChangeMs: 50 }, 'a change before the mark')
  const mark2 = w.mark()
  w.changed('a.example.com', 200)
  t.same(w.wait('ns/a', ['a.example.com'], mark2, 210), { changedWhileLooking: true, sinceChangeMs: 10 })
  t.same(w.wait('ns/x', ['never.example.com'], w.mark(), 300), { changedWhileLooking: false, sinceChangeMs: undefined })
})

t.test('when a pass that found kinds unserved looks again', async (t) => {
  const fallback = 30_000
  t.equal(recheckAfterMs({ changedWhileLooking: true, sinceChangeMs: 0 }, fallback), RECHECK_CHANGED_MS)
  t.equal(recheckAfterMs({ changedWhileLooking: false, sinceChangeMs: RECENT_CHANGE_MS - 1 }, fallback), RECHECK_RECENT_MS)
  t.equal(recheckAfterMs({ changedWhileLooking: false, sinceChangeMs: RECENT_CHANGE_MS }, fallback), fallback)
  t.equal(recheckAfterMs({ changedWhileLooking: false, sinceChangeMs: undefined }, fallback), fallback)
  t.equal(recheckAfterMs({ changedWhileLooking: false, sinceChangeMs: 0 }, 200), 200, 'never later than the fallback')
})
