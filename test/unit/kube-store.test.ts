// The cache store: both indexes agree after any sequence of puts and deletes.

import t from 'tap'
import type { KubeObject } from '../../src/api/meta.ts'
import { storeKey, ObjectStore } from '../../src/kube/store.ts'

interface Obj extends KubeObject {
  readonly metadata: { namespace?: string; name: string }
  readonly v: number
}

const obj = (namespace: string | undefined, name: string, v = 0): Obj => ({
  metadata: namespace === undefined ? { name } : { namespace, name },
  v,
})

t.test('namespaced and cluster-scoped objects', async (t) => {
  const s = new ObjectStore<Obj>()
  t.equal(s.put(obj('a', 'x', 1)), undefined, 'a new key replaces nothing')
  t.equal(s.put(obj(undefined, 'x', 2)), undefined, 'the same name without a namespace is another object')
  t.equal(s.get('a', 'x')?.v, 1)
  t.equal(s.get(undefined, 'x')?.v, 2)
  t.equal(s.get('', 'x')?.v, 2, 'an empty namespace means cluster-scoped')
  t.equal(s.getByKey('a/x')?.v, 1)
  t.equal(s.getByKey('x')?.v, 2)
  t.equal(s.get('b', 'x'), undefined)
  t.equal(s.put(obj('a', 'x', 3))?.v, 1, 'a put returns what it replaced')
  t.equal(s.get('a', 'x')?.v, 3)
  t.equal(s.size, 2)
  t.equal(s.delete('a/x')?.v, 3)
  t.equal(s.delete('a/x'), undefined, 'deleting twice finds nothing')
  t.equal(s.get('a', 'x'), undefined)
  t.same([...s.keys()], ['x'])
})

t.test('random puts and deletes keep both indexes equal to a plain map', async (t) => {
  let seed = 7
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed % n
  }
  const s = new ObjectStore<Obj>()
  const reference = new Map<string, Obj>()
  const namespaces = [undefined, 'a', 'b', 'c']
  let mismatches = 0
  for (let step = 0; step < 5000; step++) {
    const o = obj(namespaces[rand(4)], `n${rand(20)}`, step)
    const key = storeKey(o)
    if (rand(3) === 0) {
      if (s.delete(key) !== reference.get(key)) mismatches++
      reference.delete(key)
    } else {
      if (s.put(o) !== reference.get(key)) mismatches++
      reference.set(key, o)
    }
    for (const ns of namespaces) {
      for (let n = 0; n < 20; n++) {
        const k = ns === undefined ? `n${n}` : `${ns}/n${n}`
        if (s.get(ns, `n${n}`) !== reference.get(k) || s.getByKey(k) !== reference.get(k)) mismatches++
      }
    }
  }
  t.equal(mismatches, 0)
  t.equal(s.size, reference.size)
  t.same(new Set(s.keys()), new Set(reference.keys()))
})
