// Parsing review bodies: the bounds checked before parsing, managedFields cut
// out of object and oldObject (and only there), and integers beyond 2^53
// kept exact.

import t from 'tap'
import {
  BodyError,
  elideManagedFields,
  hasLongDigitRun,
  hasMoreValuesThan,
  MAX_JSON_VALUES,
  parseJsonBody,
} from '../../src/webhook/json-body.ts'
import { admissionReview, renderedDeployment } from '../fixtures/webhook-synthetic.ts'
import { parseWatchLine } from '../../src/webhook/watch-line.ts'

const owner = { namespace: 'team-a', instance: 'web', uid: 'u-1' }

function problemOf(fn: () => unknown): string | undefined {
  try {
    fn()
    return undefined
  } catch (err) {
    return err instanceof BodyError ? err.problem : `not a BodyError: ${String(err)}`
  }
}

type Review = { request: { object: Record<string, any>; oldObject: Record<string, any> } }

t.test('managedFields of object and oldObject is never parsed, everything else is', async (t) => {
  const stored = renderedDeployment(owner)
  const changed = structuredClone(stored) as Record<string, any>
  changed.spec.replicas = 9
  const text = JSON.stringify(admissionReview({ operation: 'UPDATE', object: changed, oldObject: stored }))
  const parsed = parseJsonBody(text) as Review
  const plain = JSON.parse(text) as Review
  t.equal(parsed.request.object.metadata.managedFields, undefined)
  t.equal(parsed.request.oldObject.metadata.managedFields, undefined)
  t.ok('managedFields' in parsed.request.object.metadata, 'the key stays, so the object keeps its shape')
  for (const side of ['object', 'oldObject'] as const) {
    const { managedFields: _a, ...rest } = plain.request[side].metadata
    const { managedFields: _b, ...got } = parsed.request[side].metadata
    t.strictSame(got, rest, `${side}: the rest of metadata is as sent`)
    t.strictSame(parsed.request[side].spec, plain.request[side].spec, `${side}: spec as sent`)
  }
  const cut = elideManagedFields(text)
  t.ok(cut !== undefined && cut.text.length < text.length * 0.8, 'a real object loses a large share of its text')
})

t.test('a DELETE carries one managedFields; a body without any is parsed as is', async (t) => {
  const text = JSON.stringify(admissionReview({ operation: 'DELETE', oldObject: renderedDeployment(owner) }))
  const parsed = parseJsonBody(text) as Review
  t.equal(parsed.request.oldObject.metadata.managedFields, undefined)
  t.equal(elideManagedFields('{"a":1}'), undefined)
  t.strictSame(parseJsonBody('{"a":[1,{"b":"c"}]}'), { a: [1, { b: 'c' }] })
})

t.test('a managedFields key anywhere else is data, and is parsed and compared', async (t) => {
  const stored = renderedDeployment(owner) as Record<string, any>
  // A custom resource may hold any key; this one comes before the real managedFields in the text.
  const hiding = (v: number): Record<string, any> => {
    const o = structuredClone(stored)
    return { apiVersion: o.apiVersion, kind: o.kind, spec: { managedFields: [{ replicas: v }], ...o.spec }, metadata: o.metadata }
  }
  const text = JSON.stringify(admissionReview({ operation: 'UPDATE', object: hiding(5), oldObject: hiding(1) }))
  t.ok(text.indexOf('"managedFields":[{"replicas"') < text.indexOf('"managedFields":[{"manager"'), 'the decoy comes first')
  const parsed = parseJsonBody(text) as Review
  t.strictSame(parsed.request.object.spec.managedFields, [{ replicas: 5 }], 'the decoy in object is parsed')
  t.strictSame(parsed.request.oldObject.spec.managedFields, [{ replicas: 1 }], 'and in oldObject')
  t.strictSame(parsed, JSON.parse(text), 'the body was parsed exactly as it came')

  const inString = JSON.stringify({ request: { object: { metadata: { name: 'x', note: 'a "managedFields":[ b' } } } })
  t.strictSame(parseJsonBody(inString), JSON.parse(inString), 'the key text inside a string is a string')
  const escaped = '{"request":{"object":{"metadata":{"x: \\"managedFields":[1,2]}}}}'
  t.strictSame(parseJsonBody(escaped), JSON.parse(escaped), 'a key that only ends like it is not cut')
  const dup = '{"request":{"object":{"metadata":{"managedFields":[1],"managedFields":[2,3]}}}}'
  t.strictSame(parseJsonBody(dup), JSON.parse(dup), 'a repeated key: JSON.parse semantics (the last wins)')
})

t.test('malformed JSON is refused whether or not it holds managedFields', async (t) => {
  t.equal(
    problemOf(() => parseJsonBody('{"request":{"object":{"metadata":{"managedFields":[1,2}}}')),
    'InvalidJSON',
  )
  t.equal(
    problemOf(() => parseJsonBody('{"request":{"object":{"metadata":{"managedFields":[1]}}},')),
    'InvalidJSON',
  )
  t.equal(
    problemOf(() => parseJsonBody('{"managedFields":["x]}')),
    'InvalidJSON',
  )
  t.equal(
    problemOf(() => parseJsonBody('  ')),
    'EmptyBody',
  )
})

t.test('the content of a cut managedFields is not looked at beyond its brackets and strings', async (t) => {
  // The API server never sends this; the decision never reads managedFields, so nothing depends on it.
  const body = '{"request":{"object":{"metadata":{"name":"x","managedFields":[1 2 {"a"} "]"]}}}}'
  const parsed = parseJsonBody(body) as Review
  t.equal(parsed.request.object.metadata.name, 'x')
  t.equal(parsed.request.object.metadata.managedFields, undefined)
})

t.test('integers beyond 2^53 are kept exact; everything else stays a number', async (t) => {
  const body = (v: string): string => `{"request":{"object":{"spec":{"terminationGracePeriodSeconds":${v},"small":42,"f":1.5,"e":1e300}}}}`
  const spec = (v: string): Record<string, unknown> => (parseJsonBody(body(v)) as Review).request.object.spec
  t.equal(spec('9007199254740993').terminationGracePeriodSeconds, 9007199254740993n)
  t.equal(spec('9007199254740992').terminationGracePeriodSeconds, 9007199254740992n, '2^53 itself, so that its neighbours differ from it')
  t.equal(spec('-9223372036854775808').terminationGracePeriodSeconds, -9223372036854775808n)
  t.equal(spec('9007199254740991').terminationGracePeriodSeconds, 9007199254740991, 'the largest safe integer stays a number')
  const s = spec('9223372036854775807')
  t.equal(s.small, 42)
  t.equal(s.f, 1.5)
  t.equal(s.e, 1e300, 'an exponent is a float, not an integer literal')
  t.strictSame(parseJsonBody('{"a":"12345678901234567890"}'), { a: '12345678901234567890' }, 'digits in a string stay a string')
})

t.test('hasLongDigitRun finds exactly the runs of 16 or more digits', async (t) => {
  let seed = 7
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed % n
  }
  for (let i = 0; i < 3000; i++) {
    const len = rand(80)
    let s = ''
    for (let j = 0; j < len; j++) s += rand(4) === 0 ? 'x' : String(rand(10))
    t.equal(hasLongDigitRun(s), /\d{16}/.test(s), JSON.stringify(s))
  }
  t.equal(hasLongDigitRun('1234567890123456'), true, 'exactly sixteen')
  t.equal(hasLongDigitRun('123456789012345'), false, 'fifteen')
})

t.test('values beyond the bound are refused before parsing, at the bound accepted', async (t) => {
  const dense = (n: number): string => `[${Array.from({ length: n }, () => '0').join(',')}]`
  t.equal(
    problemOf(() => parseJsonBody(dense(100), 10_002, 101)),
    undefined,
    '101 values with a bound of 101',
  )
  t.equal(
    problemOf(() => parseJsonBody(dense(101), 10_002, 101)),
    'TooManyValues',
  )
  const objects = `[${Array.from({ length: 200 }, () => '{}').join(',')}]`
  t.equal(
    problemOf(() => parseJsonBody(objects, 10_002, 150)),
    'TooManyValues',
  )
  const strings = JSON.stringify({ a: ','.repeat(5000), b: '[{'.repeat(3000) })
  t.equal(
    problemOf(() => parseJsonBody(strings, 100, 10)),
    undefined,
    'commas and brackets inside strings are no values',
  )
  t.equal(hasMoreValuesThan(dense(10), 100), false, 'short text is within the bound without a scan')
  t.equal(hasMoreValuesThan(dense(1000), 100), true)
  t.ok(MAX_JSON_VALUES > 2 * 1024 * 1024, 'two 2 MiB objects of two-byte values fit')
  const empties = `[${Array.from({ length: 1000 }, () => '{}').join(',')}]`
  t.equal(hasMoreValuesThan(empties, 1001), false, 'the count is exact: the array and its 1000 objects')
  t.equal(hasMoreValuesThan(empties, 1000), true)
  const members = JSON.stringify({ a: Array.from({ length: 500 }, (_, i) => ({ k: i, l: [] })) })
  t.equal(hasMoreValuesThan(members, 1 + 1 + 500 * 3), false, 'keys are not values; an object, its members and the empty lists are')
  t.equal(hasMoreValuesThan(members, 500 * 3 + 1), true)
})

t.test('the synthetic Deployment carries managedFields shaped like an API server writes them', async (t) => {
  // Applied by template-sync, status by the deployment controller, a restart by kubectl.
  const dep = renderedDeployment(owner) as Record<string, any>
  const entries = dep.metadata.managedFields as { manager: string; operation: string; subresource?: string; fieldsV1: unknown }[]
  t.strictSame(
    entries.map((m) => [m.manager, m.operation, m.subresource ?? '']),
    [
      ['template-sync', 'Apply', ''],
      ['kube-controller-manager', 'Update', 'status'],
      ['kubectl-rollout', 'Update', ''],
    ],
  )
  const fields = JSON.stringify(entries[0]?.fieldsV1)
  t.match(fields, /"k:\{\\"name\\":\\"app\\"\}":\{"\.":\{\},/, 'list items keyed by name, as the API server does')
  t.match(fields, /"k:\{\\"containerPort\\":8080,\\"protocol\\":\\"TCP\\"\}"/, 'ports keyed by port and protocol')
  const size = JSON.stringify(dep.metadata.managedFields).length / JSON.stringify(dep).length
  t.ok(size > 0.4 && size < 0.7, `managedFields is about half of the object, as measured on the API server (${size.toFixed(2)})`)
})

t.test('a body whose parse would exceed the heap allowance is refused with 413 before parsing', async (t) => {
  const objects = `[${Array.from({ length: 10_000 }, () => '{}').join(',')}]`
  let err: unknown
  try {
    parseJsonBody(objects, 10_002, MAX_JSON_VALUES, 500_000)
  } catch (e) {
    err = e
  }
  t.ok(err instanceof BodyError && err.problem === 'TooCostly' && err.statusCode === 413, 'TooCostly, 413')
  t.match((err as Error).message, /more than the 0 MiB of heap|raise its memory limit/)
  t.ok(Array.isArray(parseJsonBody(objects, 10_002, MAX_JSON_VALUES, 2_000_000)), 'with room it parses: 10,000 empty objects cost ~0.8 MB')
  const real = JSON.stringify(
    admissionReview({ operation: 'UPDATE', object: renderedDeployment(owner), oldObject: renderedDeployment(owner) }),
  )
  t.ok(parseJsonBody(real, 10_002, MAX_JSON_VALUES, 1_000_000), 'a real review costs far less than a megabyte by the estimate')
})

t.test('watch lines of the metadata caches are parsed without managedFields, and only that', async (t) => {
  const dep = renderedDeployment(owner) as Record<string, any>
  const event = { type: 'MODIFIED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: dep.metadata } }
  const line = JSON.stringify(event)
  const parsed = parseWatchLine(line) as unknown as { type: string; object: { metadata: Record<string, unknown> } }
  t.equal(parsed.type, 'MODIFIED')
  t.equal(parsed.object.metadata.managedFields, undefined)
  const { managedFields: _, ...rest } = dep.metadata
  const { managedFields: __, ...got } = parsed.object.metadata
  t.strictSame(got, rest, 'the rest of metadata as sent')
  const twice = JSON.stringify({ type: 'ADDED', object: { metadata: { managedFields: [1] }, spec: { managedFields: [2] } } })
  const cutOnce = parseWatchLine(twice) as unknown as {
    object: { metadata: { managedFields?: unknown }; spec: { managedFields: unknown } }
  }
  t.equal(cutOnce.object.metadata.managedFields, undefined, 'the object metadata loses it')
  t.strictSame(cutOnce.object.spec.managedFields, [2], 'a second occurrence is data, not cut')
  const elsewhere = JSON.stringify({ type: 'ADDED', object: { spec: { managedFields: [2] }, metadata: { name: 'x' } } })
  t.strictSame(parseWatchLine(elsewhere), JSON.parse(elsewhere), 'a cut that is not at object.metadata is undone')
  t.throws(() => parseWatchLine('{"type":"ADDED","object":{"metadata":{"managedFields":[1]}}'), SyntaxError, 'a broken line still throws')
})
