// Expected values were produced with sigs.k8s.io/yaml (go-yaml v2), which is
// what Go Kubernetes tooling decodes manifests with.

import t from 'tap'
import { parseYamlStream, YamlDocumentError } from '../../src/encoding/yaml.ts'

function one(text: string): unknown {
  const docs = parseYamlStream(text)
  if (docs.length !== 1) throw new Error(`expected one document, got ${docs.length}`)
  return docs[0]?.value
}

const scalars: Array<[text: string, want: unknown]> = [
  ['yes', true],
  ['on', true],
  ['y', true],
  ['TRUE', true],
  ['NO', false],
  ['Off', false],
  ['n', false],
  ['tRue', 'tRue'],
  ['Yes please', 'Yes please'],
  ['~', null],
  ['null', null],
  ['Null', null],
  ['', null],
  ["''", ''],
  ['0644', 420],
  ['0o644', 420],
  ['0O17', 15],
  ['0b101', 5],
  ['-0b101', -5],
  ['0x1F', 31],
  ['0x_1F', 31],
  ['-0x1', -1],
  ['1_000', 1000],
  ['1__0', 10],
  ['1_', 1],
  ['_1', '_1'],
  ['0_7', 7],
  ['08', 8],
  ['09.5', 9.5],
  ['+12', 12],
  ['1:20', '1:20'],
  ['1e3', 1000],
  ['1E3', 1000],
  ['1e+3', 1000],
  ['1e-3', 0.001],
  ['1.5e3', 1500],
  ['1e1_0', 1e10],
  ['1_0.5', 10.5],
  ['.5', 0.5],
  ['.1_0', 0.1],
  ['._5', '._5'],
  ['1.', 1],
  ['1.0', 1],
  ['+.5', 0.5],
  ['1e400', '1e400'],
  ['0x1p3', '0x1p3'],
  ['infinity', 'infinity'],
  ['nan', 'nan'],
  ['1.2.3', '1.2.3'],
  ['1,000', '1,000'],
  ['0x', '0x'],
  ['0b2', '0b2'],
  ['0xFFFFFFFFFFFFFFFF', 2 ** 64],
  ['0x10000000000000000', '0x10000000000000000'],
  ['9223372036854775807', 2 ** 63],
  ['-9223372036854775808', -(2 ** 63)],
  ['2024-01-02', '2024-01-02'],
  ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
  ['2001-12-14 21:59:43.10 -5', '2001-12-14 21:59:43.10 -5'],
  ['!!binary aGVsbG8=', 'hello'],
  ['!!str 0644', '0644'],
  ["!!int '12'", 12],
  ['!!float 1', 1],
  ["!!float '1.5'", 1.5],
  ['!!bool yes', true],
  ["!!null ''", null],
  ['!foo bar', 'bar'],
  ['!foo 12', '12'],
  ["'it''s'", "it's"],
  ['"\\u00e9"', 'é'],
  ['1 # comment', 1],
]

for (const [text, want] of scalars) {
  t.test(`a: ${text}`, async (t) => {
    t.strictSame(one(`a: ${text}`), { a: want })
  })
}

const keys: Array<[text: string, want: unknown]> = [
  ['on: 1', { true: 1 }],
  ['y: 2', { true: 2 }],
  ['0644: x', { 420: 'x' }],
  ['true: x', { true: 'x' }],
  ['.inf: x', { '.inf': 'x' }],
  ['1.5: x', { '1.5': 'x' }],
  ['"on": 1', { on: 1 }],
]

for (const [text, want] of keys) {
  t.test(`key ${text}`, async (t) => {
    t.strictSame(one(text), want)
  })
}

t.test('a repeated key: the last one wins', async (t) => {
  t.strictSame(one('a: 1\na: 2'), { a: 2 })
})

t.test('merge keys: explicit keys win, earlier merged maps win', async (t) => {
  t.strictSame(one('base: &b {x: 1, z: 1}\nm:\n  <<: *b\n  z: 2'), { base: { x: 1, z: 1 }, m: { x: 1, z: 2 } })
  t.strictSame(one('m:\n  <<: [{x: 1}, {x: 2, z: 3}]\n  w: 0'), { m: { w: 0, x: 1, z: 3 } })
})

t.test('a __proto__ key is data', async (t) => {
  const v = one('__proto__: {polluted: true}\nmetadata: {name: x}') as Record<string, unknown>
  t.ok(Object.hasOwn(v, '__proto__'))
  t.equal(Object.getPrototypeOf(v), Object.prototype)
  t.equal(({} as Record<string, unknown>)['polluted'], undefined)
})

t.test('aliases become independent copies', async (t) => {
  const v = one('a: &x {k: 1}\nb: *x') as { a: { k: number }; b: { k: number } }
  t.strictSame(v, { a: { k: 1 }, b: { k: 1 } })
  t.not(v.a, v.b)
})

t.test('block scalars and flow collections', async (t) => {
  t.strictSame(one('a: |\n  x\n  y\n'), { a: 'x\ny\n' })
  t.strictSame(one('a: >\n  x\n  y\n'), { a: 'x y\n' })
  t.strictSame(one('a: {b: [x, y, 1]}'), { a: { b: ['x', true, 1] } })
  t.strictSame(one('- a\n- b'), ['a', 'b'])
})

// go-yaml checks indentation in block context only: inside a flow collection
// or a quoted scalar a continuation line may sit at any column.
const continuations: Array<[name: string, text: string, want: unknown]> = [
  ['a flow sequence closed at its key column', 'data:\n  b: [\n      "x"\n  ]\n', { data: { b: ['x'] } }],
  ['entries at the column of the key', 'a:\n  b: [ 1,\n  2,\n  3 ]\n  c: d\n', { a: { b: [1, 2, 3], c: 'd' } }],
  ['entries at column 0 under a key at column 0', 'b: [\n"x",\n]\n', { b: ['x'] }],
  ['under a sequence entry', '- b: [\n  "x"\n  ]\n', [{ b: ['x'] }]],
  ['a flow mapping', 'a:\n  b: {\nc: 1}\n', { a: { b: { c: 1 } } }],
  ['nested flow collections', 'a:\n  b: [ {\nc: [\n1,\n2]}\n]\n', { a: { b: [{ c: [1, 2] }] } }],
  ['a tab before an entry', 'a:\n  b: [\n\t"x"]\n', { a: { b: ['x'] } }],
  ['comment lines in between', 'a:\n  b: [\n# c\n"x", # d\n]\n', { a: { b: ['x'] } }],
  ['a double-quoted scalar', 'b: "abc\ndef"\n', { b: 'abc def' }],
  ['a single-quoted scalar with a blank line', "b: 'abc\n\n  def'\n", { b: 'abc\ndef' }],
]

for (const [name, text, want] of continuations) {
  t.test(`continuation at any indentation: ${name}`, async (t) => {
    t.strictSame(one(text), want)
  })
}

t.test('what go-yaml rejects inside a flow collection stays an error', async (t) => {
  t.throws(() => parseYamlStream('x: [unclosed\n\n'), YamlDocumentError)
  t.throws(() => parseYamlStream('a:\n  b: [\nx\n...\n]\n'), YamlDocumentError, 'a document end marker')
  t.throws(() => parseYamlStream('a:\n  b: [\n- x\n]\n'), YamlDocumentError, 'a block entry')
  t.throws(() => parseYamlStream('a: |\n  [\nx\n'), YamlDocumentError, 'a block scalar is not a flow collection')
})

interface StreamCase {
  readonly name: string
  readonly text: string
  readonly want: Array<{ document: number; line: number; value: unknown }>
}

const streams: StreamCase[] = [
  { name: 'one document', text: 'a: 1\n', want: [{ document: 1, line: 1, value: { a: 1 } }] },
  {
    name: 'documents separated by ---',
    text: 'a: 1\n---\nb: 2\n',
    want: [
      { document: 1, line: 1, value: { a: 1 } },
      { document: 2, line: 3, value: { b: 2 } },
    ],
  },
  {
    name: 'a leading separator, empty and comment-only documents',
    text: '---\na: 1\n---\n---\n# nothing here\n---   \n\n---\nb: 2\n---\n',
    want: [
      { document: 1, line: 2, value: { a: 1 } },
      { document: 2, line: 9, value: { b: 2 } },
    ],
  },
  {
    name: 'a comment after the separator',
    text: 'a: 1\n--- # second\nb: 2',
    want: [
      { document: 1, line: 1, value: { a: 1 } },
      { document: 2, line: 3, value: { b: 2 } },
    ],
  },
  { name: 'a document end marker', text: 'a: 1\n...\n', want: [{ document: 1, line: 1, value: { a: 1 } }] },
  { name: 'nothing at all', text: '', want: [] },
  { name: 'only whitespace and comments', text: '\n  \n# c\n', want: [] },
  { name: 'a null document', text: '~\n---\na: 1', want: [{ document: 1, line: 3, value: { a: 1 } }] },
  {
    name: 'CRLF line ends',
    text: 'a: 1\r\n---\r\nb: 2\r\n',
    want: [
      { document: 1, line: 1, value: { a: 1 } },
      { document: 2, line: 3, value: { b: 2 } },
    ],
  },
]

for (const c of streams) {
  t.test(`stream: ${c.name}`, async (t) => {
    t.strictSame(parseYamlStream(c.text), c.want)
  })
}

interface ErrorCase {
  readonly name: string
  readonly text: string
  readonly message: RegExp
}

const errors: ErrorCase[] = [
  { name: 'a syntax error names the document and the stream line', text: 'a: 1\n---\nb: [\n', message: /^rendered document 2: line \d+: / },
  { name: 'bad indentation', text: 'a: 1\n---\nb:\n  c: 1\n d: 2\n', message: /^rendered document 2: line 5: / },
  {
    name: 'text after the separator',
    text: 'a: 1\n--- b: 2\n',
    message: /^rendered document 2: line 2: only a comment may follow "---", found "b: 2"/,
  },
  { name: 'two documents in one chunk', text: 'a: 1\n...\nb: 2\n', message: /holds more than one YAML document/ },
  { name: '.inf, which JSON cannot carry', text: 'a: .inf', message: /\+Inf \(\.inf or \.nan\) cannot be represented in JSON/ },
  { name: '.nan', text: 'a: [.nan]', message: /cannot be represented in JSON/ },
  { name: 'a null key', text: '~: x', message: /unsupported map key null/ },
  { name: 'a list as a key', text: '? [a]\n: 1', message: /unsupported map key of a list or map/ },
  { name: 'an unknown !! tag', text: 'a: !!something x', message: /^rendered document 1: / },
  { name: 'an alias bomb', text: aliasBomb(), message: /expands to more than 1000000 values/ },
]

function aliasBomb(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
  for (let i = 1; i <= 7; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    )
  return lines.join('\n')
}

for (const c of errors) {
  t.test(`error: ${c.name}`, async (t) => {
    t.throws(() => parseYamlStream(c.text), YamlDocumentError)
    t.throws(() => parseYamlStream(c.text), { message: c.message })
  })
}

t.test('the error carries the document number', async (t) => {
  try {
    parseYamlStream('a: 1\n---\n---\nb: 2\n---\nc: [\n')
    t.fail('should throw')
  } catch (err) {
    t.ok(err instanceof YamlDocumentError)
    if (err instanceof YamlDocumentError) t.equal(err.document, 3)
  }
})
