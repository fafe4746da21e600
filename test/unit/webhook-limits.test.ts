// The pieces that bound what one request may cost: the memory budget for
// bodies in flight, the body reader, the body limit's arithmetic, the
// answers to protocol errors, and the client-certificate name check.

import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { mintCA, mintServingCert } from '../../src/certs/mint.ts'
import { BodyRefused, EXACT_BUFFER_AFTER, readBody } from '../../src/webhook/body-reader.ts'
import { certificateNames, nameAllowed, readClientCa } from '../../src/webhook/client-auth.ts'
import { DEFAULT_BODY_LIMIT, defaultBudget, JSON_ESCAPE_FACTOR, MAX_STORED_OBJECT_BYTES } from '../../src/webhook/app.ts'
import { bodiesToCut, DEFAULT_PACE, lagOf, MemoryBudget, type BodyInFlight } from '../../src/webhook/memory-budget.ts'
import { expectationRefusal, protocolRefusal, rawResponse } from '../../src/webhook/protocol-errors.ts'
import { parseAllowance, parseMemoryQuantity, sizeFor } from '../../src/webhook/sizing.ts'

const MiB = 1024 * 1024

t.test('the body limit is two escaped stored objects plus the envelope', async (t) => {
  t.equal(MAX_STORED_OBJECT_BYTES, 2 * MiB, "kube-apiserver's etcd client sends at most 2 MiB per request")
  t.equal(JSON_ESCAPE_FACTOR, 6, 'Go writes "<" as \\u003c')
  t.equal(DEFAULT_BODY_LIMIT, 2 * 6 * 2 * MiB + 6 * MiB + 64 * 1024)
  t.ok(DEFAULT_BODY_LIMIT < 31 * MiB, 'the 31 MiB review of the issue is refused by the limit alone')
  t.ok(DEFAULT_BODY_LIMIT > 18 * MiB, 'the 17.4 MiB review measured on the API server fits')
  const budget = defaultBudget(DEFAULT_BODY_LIMIT)
  t.ok(budget.tryReserve(DEFAULT_BODY_LIMIT, DEFAULT_BODY_LIMIT), 'a body at the limit always fits an idle budget')
})

t.test('the memory budget keeps a slice for small bodies', async (t) => {
  const b = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 20 })
  t.ok(b.tryReserve(50, 50), 'large: 50 of 80')
  t.ok(b.tryReserve(30, 30), 'large: 80 of 80')
  t.notOk(b.tryReserve(1, 1000), 'large bodies cannot take the small reserve')
  t.notOk(b.tryReserve(1, undefined), 'a body of unknown length counts as large')
  t.ok(b.tryReserve(10, 10), 'small: into the reserve')
  t.ok(b.tryReserve(10, 10), 'small: the reserve is full')
  t.notOk(b.tryReserve(1, 1), 'nothing is left')
  t.equal(b.used, 100)
  b.release(50)
  t.ok(b.tryReserve(30, 30))
  b.release(1000)
  t.equal(b.used, 0, 'never below zero')
  t.throws(() => new MemoryBudget({ capacity: 10, smallBytes: 1, reservedForSmall: 11 }), RangeError)
})

function stream(chunks: (string | Buffer)[], end = true): PassThrough {
  const s = new PassThrough()
  setImmediate(() => {
    for (const c of chunks) s.write(c)
    if (end) s.end()
  })
  return s
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'resolved'
  } catch (err) {
    return err instanceof BodyRefused ? `${err.statusCode} ${err.problem}` : String(err)
  }
}

t.test('readBody reads a declared body exactly and gives its reservation back', async (t) => {
  const budget = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 10 })
  const body = await readBody(stream(['{"a":', '1}']), { declared: 7, limit: 50, budget })
  t.equal(body.bytes.toString(), '{"a":1}')
  t.equal(budget.used, 7, 'reserved until released')
  body.release()
  body.release()
  t.equal(budget.used, 0, 'released once')
})

t.test('readBody assembles a declared body across the point where its exact buffer is made', async (t) => {
  const budget = new MemoryBudget({ capacity: 1024 * 1024, smallBytes: 10, reservedForSmall: 0 })
  const text = JSON.stringify('x'.repeat(EXACT_BUFFER_AFTER * 2))
  const parts = [text.slice(0, 1000), text.slice(1000, EXACT_BUFFER_AFTER + 7), text.slice(EXACT_BUFFER_AFTER + 7)]
  const body = await readBody(stream(parts), { declared: text.length, limit: 1024 * 1024, budget })
  t.equal(body.bytes.toString(), text)
  body.release()
  const short = await readBody(stream(['[1', ',2]']), { declared: 5, limit: 50, budget })
  t.equal(short.bytes.toString(), '[1,2]', 'a body shorter than 64 KiB gets its buffer when it is complete')
  short.release()
  t.equal(budget.used, 0)
})

t.test('readBody refuses before reading when the declared length is too large or does not fit', async (t) => {
  const budget = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 10 })
  t.equal(await refusal(readBody(stream([], false), { declared: 51, limit: 50, budget })), '413 BodyTooLarge')
  t.ok(budget.tryReserve(60, 60))
  t.equal(await refusal(readBody(stream([], false), { declared: 40, limit: 50, budget })), '503 Busy')
  t.equal(budget.used, 60, 'a refused body reserves nothing')
})

t.test('readBody cuts a chunked body off at the limit and at the budget', async (t) => {
  const budget = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 10 })
  t.equal(
    await refusal(readBody(stream(['x'.repeat(30), 'x'.repeat(30)], false), { declared: undefined, limit: 50, budget })),
    '413 BodyTooLarge',
  )
  t.equal(budget.used, 0, 'given back')
  const small = new MemoryBudget({ capacity: 40, smallBytes: 10, reservedForSmall: 10 })
  t.equal(
    await refusal(readBody(stream(['x'.repeat(20), 'x'.repeat(20)], false), { declared: undefined, limit: 50, budget: small })),
    '503 Busy',
  )
  t.equal(small.used, 0)
  const ok = await readBody(stream(['[1', ',2]']), { declared: undefined, limit: 50, budget })
  t.equal(ok.bytes.toString(), '[1,2]')
  ok.release()
})

t.test('readBody refuses bytes that are not UTF-8 instead of replacing them', async (t) => {
  const budget = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 10 })
  const bad = Buffer.from([0x22, 0xff, 0xfe, 0x22])
  t.equal(await refusal(readBody(stream([bad]), { declared: 4, limit: 50, budget })), '400 InvalidEncoding')
  t.equal(budget.used, 0)
  const text = await readBody(stream([Buffer.from('"é✓"')]), { declared: Buffer.byteLength('"é✓"'), limit: 50, budget })
  t.equal(text.bytes.toString(), '"é✓"')
})

t.test('a body is behind once it has fallen more than the grace behind the pace', async (t) => {
  const pace = { minBytesPerSecond: 1_000, graceBytes: 100 }
  const body = (received: number, complete = false) => ({ since: 0, received, reserved: 500, complete })
  t.equal(lagOf(body(0), 100, pace), 0, 'nothing in 100 ms: exactly the grace')
  t.equal(lagOf(body(0), 1_000, pace), 900, 'nothing in a second')
  t.equal(lagOf(body(1_000), 1_000, pace), -100, 'at the pace: on time')
  t.equal(lagOf(body(0, true), 60_000, pace), 0, 'a complete body waiting to be parsed is never behind')
  t.strictSame(DEFAULT_PACE, { minBytesPerSecond: 1024 * 1024, graceBytes: 64 * 1024 })
})

t.test('the bodies to stop are those behind the pace, the furthest first, as few as will do', async (t) => {
  const pace = { minBytesPerSecond: 1_000, graceBytes: 0 }
  const cuts: string[] = []
  const body = (name: string, received: number, reserved: number): BodyInFlight & { name: string } => ({
    name,
    since: 0,
    received,
    reserved,
    complete: false,
    cut: () => cuts.push(name),
  })
  const bodies = [body('on time', 2_000, 300), body('a little late', 1_500, 300), body('stalled', 0, 300), body('late', 1_000, 300)]
  t.strictSame(
    bodiesToCut(bodies, 500, 2_000, pace)?.map((b) => b.name),
    ['stalled', 'late'],
  )
  t.strictSame(
    bodiesToCut(bodies, 900, 2_000, pace)?.map((b) => b.name),
    ['stalled', 'late', 'a little late'],
  )
  t.equal(bodiesToCut(bodies, 901, 2_000, pace), undefined, 'nothing is stopped when stopping all late ones would not make room')
  t.strictSame(cuts, [], 'choosing stops nothing')
})

t.test('a body that does not fit takes the room of bodies behind the pace, never its own', async (t) => {
  const b = new MemoryBudget({ capacity: 100, smallBytes: 10, reservedForSmall: 0, pace: { minBytesPerSecond: 1_000, graceBytes: 0 } })
  const stopped: string[] = []
  const holder = (name: string, bytes: number, received: number): BodyInFlight => {
    t.ok(b.tryReserve(bytes, bytes))
    const body = {
      since: 0,
      received,
      reserved: bytes,
      complete: false,
      cut: () => {
        stopped.push(name)
        b.release(bytes)
        untrack()
      },
    }
    const untrack = b.track(body)
    return body
  }
  holder('slow', 40, 0)
  const fast = holder('fast', 50, 50_000)
  t.notOk(b.tryReserve(20, 20), 'without a time, nothing is stopped')
  t.notOk(b.tryReserve(20, 20, 0), 'at once, the slow body is within the pace')
  t.ok(b.tryReserve(20, 20, 1_000, fast), 'a second later it is behind: stopped, and the new body fits')
  t.strictSame(stopped, ['slow'])
  t.equal(b.used, 70)
  t.notOk(b.tryReserve(40, 40, 2_000), 'the fast body is on time: a body that does not fit is refused')
  t.strictSame(stopped, ['slow'])
})

t.test('readBody: a body that stalls gives its share to a review that needs it, and is answered 408', async (t) => {
  let clock = 0
  const now = (): number => clock
  const budget = new MemoryBudget({
    capacity: 100,
    smallBytes: 50,
    reservedForSmall: 0,
    pace: { minBytesPerSecond: 1_000, graceBytes: 10 },
  })
  const stalled = readBody(stream(['{'], false), { declared: 80, limit: 100, budget, now })
  await new Promise((r) => setImmediate(r))
  t.equal(budget.used, 80)
  t.equal(await refusal(readBody(stream([], false), { declared: 30, limit: 100, budget, now })), '503 Busy', 'on time: kept')
  clock = 5_000
  const text = JSON.stringify('x'.repeat(28))
  const review = readBody(stream([text]), { declared: 30, limit: 100, budget, now })
  t.equal(await refusal(stalled), '408 TooSlow', 'five seconds for one byte: stopped')
  const got = await review
  t.equal(got.bytes.toString(), text, 'and the review is read')
  got.release()
  t.equal(budget.used, 0, 'every reservation given back')
})

t.test('protocol errors get a status and a message that says what was wrong', async (t) => {
  const rows: [string | undefined, number, RegExp][] = [
    ['HPE_HEADER_OVERFLOW', 431, /headers exceed/],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, /did not arrive/],
    ['HPE_INVALID_CONTENT_LENGTH', 400, /Content-Length/],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, /both Content-Length and Transfer-Encoding/],
    ['HPE_INVALID_CHUNK_SIZE', 400, /chunk size/],
    ['HPE_INVALID_METHOD', 400, /HTTP method/],
    ['HPE_INVALID_VERSION', 400, /not HTTP\/1\.1/],
    ['HPE_INVALID_HEADER_TOKEN', 400, /header name/],
    ['HPE_SOMETHING_NEW', 400, /not valid HTTP\/1\.1 \(HPE_SOMETHING_NEW\)/],
    [undefined, 400, /not valid HTTP\/1\.1$/],
  ]
  for (const [code, status, message] of rows) {
    const r = protocolRefusal(code)
    t.equal(r.code, status, String(code))
    t.match(r.message, message, String(code))
  }
  t.match(protocolRefusal('HPE_X"<script>').message, /\(HPE_X\)/, 'nothing but the code characters is echoed')
  t.equal(expectationRefusal().code, 417)
  const raw = rawResponse(431, '{"a":1}')
  t.match(raw, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
  t.match(raw, /\r\nConnection: close\r\n/)
  t.match(raw, /\r\nContent-Length: 7\r\n/)
  t.ok(raw.endsWith(`\r\n\r\n{"a":1}`), 'the body after the headers')
})

t.test('client certificates are matched by subject CN or DNS name', async (t) => {
  const cert = { subject: { CN: 'kube-apiserver' }, subjectaltname: 'DNS:apiserver.example, IP Address:10.0.0.1, DNS:api.internal' }
  t.strictSame(certificateNames(cert as never), ['kube-apiserver', 'apiserver.example', 'api.internal'])
  t.ok(nameAllowed(cert as never, []), 'no names configured: any certificate from the CA')
  t.ok(nameAllowed(cert as never, ['kube-apiserver']))
  t.ok(nameAllowed(cert as never, ['api.internal']))
  t.notOk(nameAllowed(cert as never, ['10.0.0.1']), 'IP addresses are not names')
  t.notOk(nameAllowed(cert as never, ['kube-apiserver-x']))
  t.notOk(nameAllowed(undefined, ['kube-apiserver']), 'no certificate: no name')
  t.strictSame(certificateNames({ subject: { CN: ['a', 'b'] } } as never), ['a', 'b'])
})

t.test('the budget and the connection cap follow the memory limit', async (t) => {
  const limit = DEFAULT_BODY_LIMIT
  const chart = sizeFor(256 * MiB, limit)
  t.equal(chart.budgetBytes, Math.max(Math.floor(256 * MiB * 0.15), limit + 8 * MiB), '15% of 256 Mi, or one body at the limit')
  t.equal(chart.maxConnections, Math.floor((256 * MiB * 0.1) / (80 * 1024)))
  t.equal(parseAllowance(128 * MiB), Math.floor(128 * MiB * 0.4), 'a review may take 40% of the heap limit once parsed')
  const heap = 0.5
  t.ok(heap + 0.15 + 0.1 + (24 * MiB) / (256 * MiB) < 1, 'the shares and the young generation fit the limit together')
  const tiny = sizeFor(32 * MiB, limit)
  t.equal(tiny.budgetBytes, limit + 8 * MiB, 'never less than one body at the limit and the small reserve')
  t.equal(tiny.maxConnections, 128)
  t.equal(sizeFor(64 * 1024 * MiB, limit).maxConnections, 4096)
  t.equal(parseMemoryQuantity('256Mi'), 256 * MiB)
  t.equal(parseMemoryQuantity('1.5Gi'), 1536 * MiB)
  t.equal(parseMemoryQuantity('512M'), 512e6)
  t.equal(parseMemoryQuantity('268435456'), 268435456)
  t.equal(parseMemoryQuantity('0'), undefined)
  t.equal(parseMemoryQuantity('256MiB'), undefined)
})

t.test('the client CA bundle must hold CA certificates', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-client-ca-'))
  const ca = mintCA({ validityDays: 1 })
  const leaf = mintServingCert({ ca, dnsNames: ['x'], ipAddresses: [], validityDays: 1 })
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  t.equal(readClientCa(write('ok.crt', ca.certPem)), ca.certPem)
  t.throws(() => readClientCa(write('empty.crt', 'nothing')), /no PEM certificate/)
  t.throws(() => readClientCa(write('leaf.crt', leaf.certPem)), /is not a CA certificate/)
  t.throws(() => readClientCa(join(dir, 'missing.crt')), /ENOENT/)
})
