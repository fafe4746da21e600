import t from 'tap'
import { formatPath, formatSegments, quoteKey } from '../../src/fieldpath/format.ts'
import { parseFieldPath } from '../../src/fieldpath/parse.ts'
import { escapeToken, pointerTokens, toPointer } from '../../src/fieldpath/pointer.ts'
import type { PathStep, Segment } from '../../src/fieldpath/types.ts'

interface Case {
  readonly steps: PathStep[]
  readonly path: string
  readonly pointer: string
}

const cases: Case[] = [
  { steps: [], path: '', pointer: '' },
  { steps: ['spec', 'replicas'], path: 'spec.replicas', pointer: '/spec/replicas' },
  {
    steps: ['spec', 'template', 'spec', 'containers', 0, 'env'],
    path: 'spec.template.spec.containers[0].env',
    pointer: '/spec/template/spec/containers/0/env',
  },
  {
    steps: ['metadata', 'annotations', 'example.com/owner'],
    path: "metadata.annotations['example.com/owner']",
    pointer: '/metadata/annotations/example.com~1owner',
  },
  { steps: ['a', 'x~y'], path: "a['x~y']", pointer: '/a/x~0y' },
  { steps: ['a', '~1'], path: "a['~1']", pointer: '/a/~01' },
  { steps: ['a', '/~'], path: "a['/~']", pointer: '/a/~1~0' },
  { steps: ['a', "it's"], path: "a['it\\'s']", pointer: "/a/it's" },
  { steps: ['a', 'back\\slash'], path: "a['back\\\\slash']", pointer: '/a/back\\slash' },
  { steps: ['a', ''], path: "a['']", pointer: '/a/' },
  { steps: ['a', '0'], path: 'a.0', pointer: '/a/0' },
  { steps: ['m', 1, 0], path: 'm[1][0]', pointer: '/m/1/0' },
  { steps: [0, 'name'], path: '[0].name', pointer: '/0/name' },
  { steps: ['x.y', 'z'], path: "['x.y'].z", pointer: '/x.y/z' },
  { steps: ['with space'], path: "['with space']", pointer: '/with space' },
]

for (const c of cases) {
  t.test(`pointer of ${JSON.stringify(c.steps)} decodes back to its steps`, async (t) => {
    t.strictSame(pointerTokens(c.pointer), c.steps.map(String))
  })
  t.test(`formats ${JSON.stringify(c.steps)}`, async (t) => {
    t.equal(formatPath(c.steps), c.path, 'display path')
    t.equal(toPointer(c.steps), c.pointer, 'pointer')
    if (c.steps.length > 0) {
      const back = parseFieldPath(c.path)
      t.strictSame(back, c.steps.map(toSegment), 'display path parses back to the same steps')
    }
  })
}

t.test('escapeToken escapes "~" before "/"', async (t) => {
  t.equal(escapeToken('plain'), 'plain')
  t.equal(escapeToken('~/'), '~0~1')
  t.equal(escapeToken('a~1b'), 'a~01b')
})

t.test('quoteKey uses single quotes and backslash escapes', async (t) => {
  t.equal(quoteKey('example.com/owner'), "['example.com/owner']")
  t.equal(quoteKey(`a'b\\c"d`), `['a\\'b\\\\c"d']`)
})

t.test('formatSegments gives the canonical spelling of an entry', async (t) => {
  const entries: [string, string][] = [
    ['spec.template.spec.containers[*].env', 'spec.template.spec.containers[*].env'],
    ['metadata.annotations["example.com/owner"]', "metadata.annotations['example.com/owner']"],
    ["['metadata'].labels", 'metadata.labels'],
    ['a["it\'s"]', "a['it\\'s']"],
    ["a['*']", "a['*']"],
    ['m[0][*]', 'm[0][*]'],
  ]
  for (const [entry, canonical] of entries) t.equal(formatSegments(parseFieldPath(entry)), canonical, entry)
})

// Seeded so a failure reproduces; mulberry32.
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), a | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

t.test('format then parse gives back the segments, for random keys', async (t) => {
  const rand = rng(0x5eed)
  const alphabet = ['a', 'Z', '0', '9', '-', '_', '.', '/', '~', "'", '"', '\\', '[', ']', '*', ' ', 'é', '$', '\n']
  const randomKey = (): string => {
    let s = ''
    const n = Math.floor(rand() * 5)
    for (let j = 0; j < n; j++) s += alphabet[Math.floor(rand() * alphabet.length)]
    return s
  }
  let failures = 0
  for (let n = 0; n < 2000; n++) {
    const segs: Segment[] = []
    const len = 1 + Math.floor(rand() * 5)
    for (let j = 0; j < len; j++) {
      const r = rand()
      if (r < 0.6) segs.push({ kind: 'key', key: randomKey() })
      else if (r < 0.8) segs.push({ kind: 'index', index: Math.floor(rand() * 20) })
      else segs.push({ kind: 'wildcard' })
    }
    const text = formatSegments(segs)
    let back: Segment[] | undefined
    try {
      back = parseFieldPath(text)
    } catch {
      back = undefined
    }
    if (JSON.stringify(back) !== JSON.stringify(segs)) {
      failures++
      if (failures === 1) t.strictSame(back, segs, `round trip of ${text}`)
    }
  }
  t.equal(failures, 0, 'every random path survives a round trip')
})

function toSegment(step: PathStep): Segment {
  return typeof step === 'number' ? { kind: 'index', index: step } : { kind: 'key', key: step }
}
