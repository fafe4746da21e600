// The one rule for what a Template leaves out of enforcement, shared by the
// webhook, the reconciler and `template-sync diff`, and the one reading of its
// sync mode.

import t from 'tap'
import { syncModeOf, type Template } from '../../src/api/template.ts'
import { compare } from '../../src/drift/compare.ts'
import { enforcedIgnore, IgnoreCache } from '../../src/drift/ignore-cache.ts'
import { FieldPathError } from '../../src/fieldpath/errors.ts'

const template = (uid: string, generation: number, ignoreFields: unknown, mode?: unknown): Template =>
  ({
    metadata: { name: 't', namespace: 'p', uid, generation },
    spec: { sync: { ...(mode !== undefined ? { mode } : {}), ignoreFields } },
  }) as Template

t.test('a valid list is compiled once per generation and leaves its paths out', async (t) => {
  const cache = new IgnoreCache()
  const tpl = template('u1', 1, ['data.color'])
  const a = cache.enforced(tpl)
  t.equal(a.invalid, undefined)
  t.equal(cache.enforced(tpl).ignore, a.ignore, 'the same compiled list for the same generation')
  t.equal(cache.get(tpl), a.ignore, 'get and enforced agree')
  t.same(
    compare({ data: { color: 'red', size: '1' } }, { data: { color: 'blue', size: '2' } }, a.ignore).map((c) => c.path),
    ['data.size'],
  )
  t.not(cache.enforced(template('u1', 2, ['data.color'])).ignore, a.ignore, 'a new generation compiles again')
  t.equal(cache.size, 1, 'one entry per Template')
  cache.forget('u1')
  t.equal(cache.size, 0)
})

t.test('an invalid list enforces everything and says why, once compiled', async (t) => {
  const errors: unknown[] = []
  const cache = new IgnoreCache({ onCompileError: (_t, e) => errors.push(e) })
  const bad = template('u2', 1, ['data.color', 'spec..x'])
  const r = cache.enforced(bad)
  t.type(r.invalid, FieldPathError)
  t.match(r.invalid?.message, /spec\.\.x/)
  t.same(r.ignore.entries, [], 'nothing is left out')
  t.same(
    compare({ data: { color: 'red' } }, { data: { color: 'blue' } }, r.ignore).map((c) => c.path),
    ['data.color'],
    'a path the list meant to ignore is enforced',
  )
  cache.enforced(bad)
  t.throws(() => cache.get(bad), FieldPathError, 'get rethrows the kept error')
  t.equal(errors.length, 1, 'compiled (and reported) once')
})

t.test('a list that is not a list of strings is invalid too', async (t) => {
  const r = new IgnoreCache().enforced(template('u3', 1, 'spec.replicas'))
  t.ok(r.invalid, 'an error is given')
  t.same(r.ignore.entries, [])
})

t.test('a failure that is not about the list is not taken for an invalid list', async (t) => {
  t.throws(
    () =>
      enforcedIgnore(() => {
        throw new Error('cache corrupted')
      }),
    /cache corrupted/,
  )
})

t.test('syncModeOf reads the enum, and anything else as off', async (t) => {
  t.equal(syncModeOf(template('u', 1, [], 'revert')), 'revert')
  t.equal(syncModeOf(template('u', 1, [], 'strict')), 'strict')
  t.equal(syncModeOf(template('u', 1, [], 'off')), 'off')
  t.equal(syncModeOf(template('u', 1, [])), 'off', 'absent')
  t.equal(syncModeOf(template('u', 1, [], false)), 'off', 'YAML 1.1 false')
  t.equal(syncModeOf(template('u', 1, [], 'Strict')), 'off', 'not a mode')
  t.equal(syncModeOf({ spec: undefined } as unknown as Template), 'off', 'no spec')
})
