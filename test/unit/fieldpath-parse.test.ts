import t from 'tap'
import { FieldPathError } from '../../src/fieldpath/errors.ts'
import { parseFieldPath } from '../../src/fieldpath/parse.ts'
import type { Segment } from '../../src/fieldpath/types.ts'

const k = (key: string): Segment => ({ kind: 'key', key })
const i = (index: number): Segment => ({ kind: 'index', index })
const W: Segment = { kind: 'wildcard' }

interface Valid {
  readonly entry: string
  readonly want: Segment[]
}

const valid: Valid[] = [
  { entry: 'spec', want: [k('spec')] },
  { entry: 'spec.replicas', want: [k('spec'), k('replicas')] },
  { entry: 'metadata.annotations', want: [k('metadata'), k('annotations')] },
  { entry: 'spec.template.spec.containers[*].env', want: [k('spec'), k('template'), k('spec'), k('containers'), W, k('env')] },
  { entry: 'spec.containers[0]', want: [k('spec'), k('containers'), i(0)] },
  { entry: 'spec.containers[1].image', want: [k('spec'), k('containers'), i(1), k('image')] },
  { entry: 'a[10]', want: [k('a'), i(10)] },
  { entry: 'a[4294967294]', want: [k('a'), i(4294967294)] },
  { entry: "metadata.annotations['example.com/owner']", want: [k('metadata'), k('annotations'), k('example.com/owner')] },
  { entry: 'metadata.annotations["example.com/owner"]', want: [k('metadata'), k('annotations'), k('example.com/owner')] },
  { entry: "metadata.labels['app.kubernetes.io/name'].x", want: [k('metadata'), k('labels'), k('app.kubernetes.io/name'), k('x')] },
  { entry: "a['it\\'s']", want: [k('a'), k("it's")] },
  { entry: 'a["say \\"hi\\""]', want: [k('a'), k('say "hi"')] },
  { entry: "a['back\\\\slash']", want: [k('a'), k('back\\slash')] },
  { entry: "a['\"']", want: [k('a'), k('"')] },
  { entry: 'a["\'"]', want: [k('a'), k("'")] },
  { entry: "a['\\\"']", want: [k('a'), k('"')] },
  { entry: "a['with space']", want: [k('a'), k('with space')] },
  { entry: "a['']", want: [k('a'), k('')] },
  { entry: "a['~0/~1']", want: [k('a'), k('~0/~1')] },
  { entry: "a['a.b]c[d']", want: [k('a'), k('a.b]c[d')] },
  { entry: 'a["ünï"]', want: [k('a'), k('ünï')] },
  { entry: "a['*']", want: [k('a'), k('*')] },
  { entry: "['metadata'].labels", want: [k('metadata'), k('labels')] },
  { entry: '[0]', want: [i(0)] },
  { entry: '[*].name', want: [W, k('name')] },
  { entry: 'm[*][*]', want: [k('m'), W, W] },
  { entry: 'm[0][1].b', want: [k('m'), i(0), i(1), k('b')] },
  { entry: "a['x'][*]['y']", want: [k('a'), k('x'), W, k('y')] },
  { entry: 'a.b-c_d.9', want: [k('a'), k('b-c_d'), k('9')] },
  { entry: 'a.0', want: [k('a'), k('0')] },
  { entry: 'constructor.__proto__', want: [k('constructor'), k('__proto__')] },
  {
    entry: "metadata.labels['templates.v2.stakater.com/instance']",
    want: [k('metadata'), k('labels'), k('templates.v2.stakater.com/instance')],
  },
]

for (const c of valid) {
  t.test(`parses ${c.entry}`, async (t) => {
    t.strictSame(parseFieldPath(c.entry), c.want)
  })
}

interface Invalid {
  readonly name: string
  readonly entry: string
  readonly position: number
  readonly detail: RegExp
}

const invalid: Invalid[] = [
  { name: 'empty entry', entry: '', position: 0, detail: /empty/ },
  { name: 'leading whitespace', entry: ' spec', position: 0, detail: /whitespace/ },
  { name: 'trailing whitespace', entry: 'spec ', position: 4, detail: /whitespace/ },
  { name: 'whitespace after a dot', entry: 'spec. replicas', position: 5, detail: /whitespace/ },
  { name: 'whitespace inside a key', entry: 'spec.rep licas', position: 8, detail: /whitespace/ },
  { name: 'tab', entry: 'a\tb', position: 1, detail: /whitespace/ },
  { name: 'trailing newline', entry: 'a.b\n', position: 3, detail: /whitespace/ },
  { name: 'leading dot', entry: '.spec', position: 0, detail: /starts with "\."/ },
  { name: 'lone dot', entry: '.', position: 0, detail: /starts with "\."/ },
  { name: 'trailing dot', entry: 'spec.', position: 5, detail: /ends with "\."/ },
  { name: 'empty segment', entry: 'spec..replicas', position: 5, detail: /empty segment/ },
  { name: 'two trailing dots', entry: 'a..', position: 2, detail: /empty segment/ },
  { name: 'dot before a bracket', entry: 'a.[0]', position: 2, detail: /between "\." and "\["/ },
  { name: 'dot before a quoted key', entry: "a.['b']", position: 2, detail: /between "\." and "\["/ },
  { name: 'quote after a dot', entry: "a.'b'", position: 2, detail: /unexpected character "'"/ },
  { name: 'unclosed bracket at the end', entry: 'a[', position: 2, detail: /"\[" at position 1 is not closed/ },
  { name: 'lone bracket', entry: '[', position: 1, detail: /"\[" at position 0 is not closed/ },
  { name: 'unclosed index', entry: 'a[0', position: 3, detail: /"\[" at position 1 is not closed/ },
  { name: 'unclosed wildcard', entry: 'a[*', position: 3, detail: /"\[" at position 1 is not closed/ },
  { name: 'unclosed second bracket', entry: 'a[0][', position: 5, detail: /"\[" at position 4 is not closed/ },
  { name: 'unmatched closing bracket', entry: 'a]', position: 1, detail: /"\]" has no matching "\["/ },
  { name: 'lone closing bracket', entry: ']', position: 0, detail: /"\]" has no matching "\["/ },
  { name: 'doubled closing bracket', entry: 'a[0]]', position: 4, detail: /"\]" has no matching "\["/ },
  { name: 'key glued to a bracket', entry: 'a[0]b', position: 4, detail: /expected "\." or "\[" after "\]"/ },
  { name: 'empty brackets', entry: 'a[]', position: 2, detail: /empty brackets/ },
  { name: 'negative index', entry: 'a[-1]', position: 2, detail: /negative/ },
  { name: 'non-numeric index', entry: 'a[x]', position: 2, detail: /expected an index/ },
  { name: 'fractional index', entry: 'a[1.5]', position: 3, detail: /whole number/ },
  { name: 'index with letters', entry: 'a[1a]', position: 3, detail: /whole number/ },
  { name: 'exponent index', entry: 'a[1e3]', position: 3, detail: /whole number/ },
  { name: 'leading zero', entry: 'a[01]', position: 2, detail: /leading zeros/ },
  { name: 'index too large', entry: 'a[4294967295]', position: 2, detail: /at most/ },
  { name: 'space inside brackets', entry: 'a[ 0]', position: 2, detail: /whitespace/ },
  { name: 'space before the closing bracket', entry: 'a[0 ]', position: 3, detail: /whitespace/ },
  { name: 'stray character after a wildcard', entry: 'a[*x]', position: 3, detail: /expected "\]" to close "\[" at position 1/ },
  { name: 'unclosed single quote', entry: "a['b", position: 4, detail: /quoted key opened at position 2 is not closed/ },
  { name: 'unclosed double quote', entry: 'a["b\'', position: 5, detail: /quoted key opened at position 2 is not closed/ },
  { name: 'quoted key without a closing bracket', entry: "a['b'", position: 5, detail: /"\[" at position 1 is not closed/ },
  { name: 'stray character after a quoted key', entry: "a['b'x]", position: 5, detail: /expected "\]"/ },
  { name: 'unknown escape', entry: "a['b\\q']", position: 4, detail: /unknown escape "\\q"/ },
  { name: 'backslash at the end', entry: "a['b\\", position: 4, detail: /ends with a backslash/ },
  { name: 'unquoted key with dots and a slash', entry: 'metadata.annotations.example.com/owner', position: 32, detail: /must be quoted/ },
  { name: 'unquoted slash', entry: 'metadata.labels.app/name', position: 19, detail: /must be quoted/ },
  { name: 'dollar sign', entry: 'a$b', position: 1, detail: /unexpected character "\$"/ },
  { name: 'bare star', entry: 'a.*', position: 2, detail: /unexpected character "\*"/ },
  { name: 'non-ASCII unquoted key', entry: 'a.ü', position: 2, detail: /must be quoted/ },
  { name: 'JSONPath root', entry: '$.spec', position: 0, detail: /unexpected character "\$"/ },
  { name: 'JSONPath recursive descent', entry: 'spec..*', position: 5, detail: /empty segment/ },
  { name: 'JSONPath filter', entry: 'a[?(@.x==1)]', position: 2, detail: /expected an index/ },
  { name: 'script-looking index', entry: 'a[(function(){throw 1})()]', position: 2, detail: /expected an index/ },
  { name: 'template-looking entry', entry: '${process.exit()}', position: 0, detail: /unexpected character "\$"/ },
]

for (const c of invalid) {
  t.test(`rejects ${c.name}: ${JSON.stringify(c.entry)}`, async (t) => {
    const err = t.throws(() => parseFieldPath(c.entry)) as unknown
    if (!(err instanceof FieldPathError)) return t.fail(`expected a FieldPathError, got ${String(err)}`)
    t.equal(err.entry, c.entry)
    t.equal(err.position, c.position, 'position')
    t.match(err.detail, c.detail)
    t.equal(err.code, 'FIELD_PATH_INVALID')
    t.equal(err.index, undefined)
    t.ok(err.message.includes(JSON.stringify(c.entry)), 'message names the entry')
    t.ok(err.message.includes(`position ${c.position}`), 'message names the position')
  })
}

t.test('rejects an entry that is not a string', async (t) => {
  t.throws(() => parseFieldPath(42 as unknown as string), FieldPathError)
  t.throws(() => parseFieldPath(undefined as unknown as string), FieldPathError)
})

t.test('the error message reads well', async (t) => {
  t.throws(() => parseFieldPath('spec..replicas'), {
    message: 'ignoreFields entry "spec..replicas": empty segment between two dots (at position 5)',
  })
})

t.test('returns a new array each time', async (t) => {
  const a = parseFieldPath('spec.replicas')
  const b = parseFieldPath('spec.replicas')
  t.not(a, b)
  t.strictSame(a, b)
})
