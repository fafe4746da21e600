import t from 'tap'
import { ANNOTATION_INSTANCE_REF, LABEL_INSTANCE, LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { compileIgnoreFields, validateIgnoreFields } from '../../src/fieldpath/compile.ts'
import { FieldPathError } from '../../src/fieldpath/errors.ts'
import { isIgnoredPath } from '../../src/fieldpath/match.ts'
import type { PathStep } from '../../src/fieldpath/types.ts'

t.test('compiles valid entries into a frozen, reusable matcher', async (t) => {
  const entries = ['spec.replicas', 'metadata.annotations']
  const compiled = compileIgnoreFields(entries)
  t.strictSame(compiled.entries, entries)
  t.not(compiled.entries, entries, 'keeps its own copy of the list')
  t.ok(Object.isFrozen(compiled))
  t.ok(Object.isFrozen(compiled.entries))
  t.ok(Object.isFrozen(compiled.rules))
  t.ok(Object.isFrozen(compiled.root))
  entries.push('spec')
  t.notOk(isIgnoredPath(compiled, ['spec', 'selector']), 'later edits to the input list change nothing')
  t.ok(isIgnoredPath(compiled, ['spec', 'replicas']))
  t.ok(isIgnoredPath(compiled, ['spec', 'replicas']), 'matching twice gives the same answer')
})

t.test('an empty list compiles and ignores nothing', async (t) => {
  const compiled = compileIgnoreFields([])
  t.notOk(isIgnoredPath(compiled, ['spec']))
  t.notOk(isIgnoredPath(compiled, []))
})

t.test('compile throws the first invalid entry with its list index', async (t) => {
  const err = t.throws(() => compileIgnoreFields(['spec.replicas', 'spec..x', 'a[']), FieldPathError) as unknown
  if (!(err instanceof FieldPathError)) return
  t.equal(err.entry, 'spec..x')
  t.equal(err.index, 1)
  t.equal(err.position, 5)
  t.equal(err.message, 'ignoreFields[1] "spec..x": empty segment between two dots (at position 5)')
})

t.test('validate reports every invalid entry, in order', async (t) => {
  const errors = validateIgnoreFields(['ok', '', 'spec.replicas', 'a[-1]', "b['x", 'c d'])
  t.strictSame(
    errors.map((e) => [e.index, e.entry, e.position]),
    [
      [1, '', 0],
      [3, 'a[-1]', 2],
      [4, "b['x", 4],
      [5, 'c d', 1],
    ],
  )
  t.ok(errors.every((e) => e instanceof FieldPathError))
  t.strictSame(validateIgnoreFields(['spec.replicas', "metadata.annotations['example.com/owner']"]), [])
  t.strictSame(validateIgnoreFields([]), [])
})

t.test('a list that is not an array is a type error', async (t) => {
  t.throws(() => compileIgnoreFields('spec.replicas' as unknown as string[]), TypeError)
  t.throws(() => validateIgnoreFields(null as unknown as string[]), TypeError)
})

interface MatchCase {
  readonly name: string
  readonly ignore: string[]
  readonly path: PathStep[]
  readonly want: boolean
}

const matchCases: MatchCase[] = [
  { name: 'an entry covers its own path', ignore: ['spec.replicas'], path: ['spec', 'replicas'], want: true },
  {
    name: 'an entry covers its subtree',
    ignore: ['spec.template'],
    path: ['spec', 'template', 'spec', 'containers', 3, 'env', 0],
    want: true,
  },
  { name: 'a child entry does not cover its parent', ignore: ['spec.template.spec'], path: ['spec', 'template'], want: false },
  { name: 'a child entry does not cover a sibling', ignore: ['spec.replicas'], path: ['spec', 'selector'], want: false },
  { name: 'a key entry needs the exact key', ignore: ['spec.replica'], path: ['spec', 'replicas'], want: false },
  { name: '[*] covers every element', ignore: ['c[*].env'], path: ['c', 7, 'env', 'x'], want: true },
  { name: '[*] does not cover the array itself', ignore: ['c[*]'], path: ['c'], want: false },
  { name: '[*] does not match map keys', ignore: ['labels[*]'], path: ['labels', 'app'], want: false },
  { name: '[0] covers index 0', ignore: ['c[0]'], path: ['c', 0, 'image'], want: true },
  { name: '[0] does not cover index 1', ignore: ['c[0]'], path: ['c', 1, 'image'], want: false },
  { name: 'a key "0" is not an index', ignore: ['c.0'], path: ['c', 0], want: false },
  { name: 'an index is not a key "0"', ignore: ['c[0]'], path: ['c', '0'], want: false },
  { name: 'index and [*] rules are combined (index side)', ignore: ['c[0].a', 'c[*].b'], path: ['c', 0, 'b'], want: true },
  { name: 'index and [*] rules are combined (wildcard side)', ignore: ['c[0].a', 'c[*].b'], path: ['c', 0, 'a'], want: true },
  { name: 'an index rule stays with its index', ignore: ['c[0].a', 'c[*].b'], path: ['c', 1, 'a'], want: false },
  { name: 'nested wildcards', ignore: ['m[*][1]'], path: ['m', 4, 1], want: true },
  { name: 'nested wildcards keep the inner index', ignore: ['m[*][1]'], path: ['m', 4, 0], want: false },
  {
    name: 'a quoted key with dots and a slash',
    ignore: ["metadata.annotations['example.com/owner']"],
    path: ['metadata', 'annotations', 'example.com/owner'],
    want: true,
  },
  {
    name: 'a quoted key is not split at its dots',
    ignore: ["metadata.annotations['example.com/owner']"],
    path: ['metadata', 'annotations', 'example'],
    want: false,
  },
  { name: 'a key with "~"', ignore: ["a['x~1']"], path: ['a', 'x~1'], want: true },
  {
    name: 'a protected label is never covered by its map',
    ignore: ['metadata.labels'],
    path: ['metadata', 'labels', LABEL_INSTANCE],
    want: false,
  },
  {
    name: 'a protected label is never covered by metadata',
    ignore: ['metadata'],
    path: ['metadata', 'labels', LABEL_INSTANCE_UID],
    want: false,
  },
  {
    name: 'a protected label is never covered by itself',
    ignore: [`metadata.labels['${LABEL_INSTANCE}']`],
    path: ['metadata', 'labels', LABEL_INSTANCE],
    want: false,
  },
  {
    name: 'below a protected key nothing is covered',
    ignore: ['metadata'],
    path: ['metadata', 'labels', LABEL_INSTANCE, 'x'],
    want: false,
  },
  {
    name: 'a protected annotation is never covered',
    ignore: ['metadata.annotations'],
    path: ['metadata', 'annotations', ANNOTATION_INSTANCE_REF],
    want: false,
  },
  { name: 'other labels stay covered', ignore: ['metadata.labels'], path: ['metadata', 'labels', 'team'], want: true },
  { name: 'the labels map itself stays covered', ignore: ['metadata.labels'], path: ['metadata', 'labels'], want: true },
  {
    name: 'protection is only at the top-level metadata',
    ignore: ['spec'],
    path: ['spec', 'template', 'metadata', 'labels', LABEL_INSTANCE],
    want: true,
  },
  { name: 'server-managed fields are not the matcher’s business', ignore: [], path: ['metadata', 'resourceVersion'], want: false },
]

for (const c of matchCases) {
  t.test(c.name, async (t) => {
    t.equal(isIgnoredPath(compileIgnoreFields(c.ignore), c.path), c.want)
  })
}
