// Declared indexes of the cache store: an update that changes an object's
// indexed value moves it, a delete removes it, emptied values are dropped, and
// after any sequence of puts and deletes every index equals a scan of the store.

import t from 'tap'
import { storeKey, ObjectStore } from '../../src/kube/store.ts'

interface Obj {
  readonly metadata: { namespace?: string; name: string; labels?: Record<string, string> }
  readonly refs?: readonly string[]
}

const obj = (namespace: string | undefined, name: string, owner?: string, refs?: string[]): Obj => ({
  metadata: { ...(namespace === undefined ? {} : { namespace }), name, ...(owner === undefined ? {} : { labels: { owner } }) },
  ...(refs ? { refs } : {}),
})

const names = (objs: readonly Obj[]): string[] => objs.map((o) => storeKey(o)).sort()

const indexers = {
  owner: (o: Obj) => [o.metadata.labels?.owner],
  refs: (o: Obj) => o.refs ?? [],
}

t.test('an update moves an object between index values; a delete removes it', async (t) => {
  const s = new ObjectStore<Obj>(indexers)
  s.put(obj('a', 'x', 'u1'))
  s.put(obj('b', 'y', 'u1'))
  s.put(obj('a', 'z', 'u2'))
  t.same(names(s.byIndex('owner', 'u1')), ['a/x', 'b/y'])
  t.same(names(s.byIndex('owner', 'u2')), ['a/z'])

  s.put(obj('a', 'x', 'u2'))
  t.same(names(s.byIndex('owner', 'u1')), ['b/y'], 'the moved object left its old value')
  t.same(names(s.byIndex('owner', 'u2')), ['a/x', 'a/z'], 'and is found under its new one')
  t.equal(s.byIndex('owner', 'u2').find((o) => o.metadata.name === 'x')?.metadata.labels?.owner, 'u2', 'the index holds the new version')

  s.put(obj('a', 'x'))
  t.same(names(s.byIndex('owner', 'u2')), ['a/z'], 'an object that lost the label is in no value')
  t.same(s.indexValues('owner').sort(), ['u1', 'u2'])

  t.ok(s.delete('b/y'))
  t.same(s.byIndex('owner', 'u1'), [])
  t.same(s.indexValues('owner'), ['u2'], 'an emptied value is dropped')
  s.delete('a/z')
  t.same(s.indexValues('owner'), [])
  t.same(s.byIndex('owner', 'never'), [], 'an unknown value is an empty answer')
})

t.test('an object may be filed under several values of one index', async (t) => {
  const s = new ObjectStore<Obj>(indexers)
  s.put(obj('a', 'x', undefined, ['t1', 't2', 't2']))
  t.same(names(s.byIndex('refs', 't1')), ['a/x'])
  t.same(names(s.byIndex('refs', 't2')), ['a/x'], 'a value repeated by the index function files the object once')
  s.put(obj('a', 'x', undefined, ['t2', 't3']))
  t.same(s.indexValues('refs').sort(), ['t2', 't3'])
  s.delete('a/x')
  t.same(s.indexValues('refs'), [])
})

t.test('objects by namespace', async (t) => {
  const s = new ObjectStore<Obj>()
  s.put(obj('a', 'x'))
  s.put(obj('a', 'y'))
  s.put(obj('b', 'x'))
  s.put(obj(undefined, 'c'))
  t.same(names(s.inNamespace('a')), ['a/x', 'a/y'])
  t.same(names(s.inNamespace(undefined)), ['c'])
  t.same(names(s.inNamespace('')), ['c'])
  s.delete('a/x')
  s.delete('a/y')
  t.same(s.inNamespace('a'), [])
})

t.test('asking for an index that was not declared names the declared ones', async (t) => {
  const s = new ObjectStore<Obj>(indexers)
  t.throws(() => s.byIndex('template', 'x'), /no index named "template" \(declared: owner, refs\)/)
  t.throws(() => new ObjectStore<Obj>().indexValues('owner'), /no index named "owner" \(declared: none\)/)
})

t.test('random puts and deletes keep every index equal to a scan of the store', async (t) => {
  let seed = 11
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    // The high bits: the low bits of this generator repeat with a short period.
    return Math.floor(seed / 65536) % n
  }
  const s = new ObjectStore<Obj>(indexers)
  const reference = new Map<string, Obj>()
  const owners = [undefined, 'u0', 'u1', 'u2', 'u3']
  let mismatches = 0
  for (let step = 0; step < 4000; step++) {
    const o = obj(
      ['a', 'b', undefined][rand(3)],
      `n${rand(15)}`,
      owners[rand(owners.length)],
      Array.from({ length: rand(3) }, () => `t${rand(4)}`),
    )
    const key = storeKey(o)
    if (rand(4) === 0) {
      s.delete(key)
      reference.delete(key)
    } else {
      s.put(o)
      reference.set(key, o)
    }
    for (const [name, values] of Object.entries(indexers)) {
      const expected = new Map<string, string[]>()
      for (const [k, r] of reference)
        for (const v of new Set(values(r))) if (v !== undefined) expected.set(v, [...(expected.get(v) ?? []), k])
      if (JSON.stringify([...expected.keys()].sort()) !== JSON.stringify(s.indexValues(name).sort())) mismatches++
      for (const [v, keys] of expected) if (JSON.stringify(keys.sort()) !== JSON.stringify(names(s.byIndex(name, v)))) mismatches++
    }
  }
  t.equal(mismatches, 0)
  t.ok(reference.size > 0, 'the run ends with objects in the store')
})
