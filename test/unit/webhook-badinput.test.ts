// Hostile and malformed input against the webhook's real TLS listener: every
// request gets a well-formed 4xx (or, for bytes that are not TLS, a TLS-level
// rejection), nothing ever reads as an allow, and the server keeps answering
// valid reviews throughout.

import t from 'tap'
import { Agent, request as httpsRequest } from 'node:https'
import { connect as netConnect } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import pino from 'pino'
import { mintCA, mintServingCert } from '../../src/certs/mint.ts'
import { buildWebhookApp, DEFAULT_BODY_LIMIT } from '../../src/webhook/app.ts'
import { MAX_JSON_VALUES } from '../../src/webhook/json-body.ts'
import { MemoryBudget } from '../../src/webhook/memory-budget.ts'
import { createWebhookMetrics } from '../../src/webhook/metrics.ts'
import { admissionReview, renderedDeployment, syntheticCaches } from '../fixtures/webhook-synthetic.ts'

type TT = Parameters<Parameters<typeof t.test>[0]>[0]

// ---- a CA and a serving certificate for 127.0.0.1 ------------------------------

function makeCerts(): { ca: string; cert: string; key: string } {
  const ca = mintCA({ validityDays: 2 })
  const serving = mintServingCert({ ca, dnsNames: [], ipAddresses: ['127.0.0.1'], validityDays: 2 })
  return { ca: ca.certPem, cert: serving.certPem, key: serving.keyPem }
}

const certs = makeCerts()
const caches = syntheticCaches({ templates: 4, instances: 20 })
// Template 0 ignores spec.replicas, template 1 does not; both strict.
const owner = caches.owners[1]
if (!owner) throw new Error('no synthetic owner')
const metrics = createWebhookMetrics()
const app = buildWebhookApp({
  lookups: caches.lookups,
  config: { operatorUsernames: ['system:serviceaccount:template-sync:reconciler'] },
  log: pino({ level: 'silent' }),
  metrics,
  canServe: () => true,
  tls: { key: certs.key, cert: certs.cert },
  requestTimeoutMs: 1_500,
  handshakeTimeoutMs: 1_000,
  firstRequestTimeoutMs: 1_000,
})
await app.listen({ host: '127.0.0.1', port: 0 })
t.teardown(() => app.close())
const address = app.server.address()
if (address === null || typeof address === 'string') throw new Error('no address')
const port = address.port
const agent = new Agent({ keepAlive: true, ca: certs.ca, maxSockets: 4 })
t.teardown(() => agent.destroy())

interface Answer {
  status: number
  body: string
}

function post(
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
  path = '/validate',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, method, path, agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

interface RawAnswer {
  status: number | undefined
  text: string
  closed: boolean
}

/**
 * Writes raw bytes over TLS and reads until the server answers or closes.
 * `drip` keeps sending one byte per interval (a slow client); `stream` keeps
 * sending chunks until the server answers (a body that never ends).
 */
function rawTls(bytes: string | Buffer, opts: { drip?: number; stream?: Buffer; waitMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = ''
    let done = false
    let timer: NodeJS.Timeout | undefined
    const finish = (closed: boolean): void => {
      if (done) return
      done = true
      if (timer) clearInterval(timer)
      socket.destroy()
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text)
      resolve({ status: m ? Number(m[1]) : undefined, text, closed })
    }
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: certs.ca }, () => {
      socket.write(bytes)
      if (opts.drip !== undefined) timer = setInterval(() => !done && socket.write('a'), opts.drip)
      if (opts.stream !== undefined) {
        const chunk = opts.stream
        const pump = (): void => {
          while (!done && socket.write(chunk)) {
            if (text.length > 0) return
          }
          if (!done) socket.once('drain', pump)
        }
        pump()
      }
    })
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8')
      // A complete answer: headers plus a body of the announced length.
      const head = text.indexOf('\r\n\r\n')
      const len = /content-length: (\d+)/i.exec(text)
      if (head >= 0 && len && text.length >= head + 4 + Number(len[1])) finish(false)
    })
    socket.on('error', () => finish(true))
    socket.on('close', () => finish(true))
    setTimeout(() => finish(false), opts.waitMs ?? 10_000).unref()
  })
}

// ---- valid traffic, checked between the hostile cases ------------------------

const stored = renderedDeployment(owner)
const edited = structuredClone(stored) as Record<string, unknown> & { spec: { template: { spec: { containers: { image: string }[] } } } }
const container = edited.spec.template.spec.containers[0]
if (container) container.image = 'registry.example.com/other:9'
const denyReview = (): string => JSON.stringify(admissionReview({ operation: 'UPDATE', object: edited, oldObject: stored }))
const allowReview = (): string => JSON.stringify(admissionReview({ operation: 'UPDATE', object: stored, oldObject: stored }))

async function stillServing(tt: TT, when: string): Promise<void> {
  const d = await post(denyReview())
  const a = await post(allowReview())
  tt.equal(d.status, 200, `${when}: a valid review is still answered`)
  tt.equal((JSON.parse(d.body) as { response: { allowed: boolean } }).response.allowed, false, `${when}: and judged (deny)`)
  tt.equal((JSON.parse(a.body) as { response: { allowed: boolean } }).response.allowed, true, `${when}: and judged (allow)`)
}

/** A well-formed error answer: 4xx, JSON, never a review. */
function assertRejected(tt: TT, name: string, status: number | undefined, body: string, expected?: number): void {
  const ok = status !== undefined && status >= 400 && status < 500 && (expected === undefined || status === expected)
  tt.ok(ok, `${name}: 4xx${expected ? ` (${expected})` : ''}, got ${status}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    parsed = undefined
  }
  tt.ok(typeof parsed === 'object' && parsed !== null, `${name}: JSON error body`)
  tt.notOk(/"allowed"/.test(body), `${name}: no verdict in the body`)
}

let hostile = 0
const count = (): void => {
  hostile++
}

// ---- the cases ---------------------------------------------------------------

type Mutation = [string, (r: Record<string, unknown> & { request: Record<string, unknown> }) => void]

const envelopeCases: Mutation[] = [
  ['apiVersion missing', (r) => delete r.apiVersion],
  ['apiVersion v1beta1', (r) => (r.apiVersion = 'admission.k8s.io/v1beta1')],
  ['apiVersion a number', (r) => (r.apiVersion = 1)],
  ['apiVersion null', (r) => (r.apiVersion = null)],
  ['apiVersion an array', (r) => (r.apiVersion = ['admission.k8s.io/v1'])],
  ['kind missing', (r) => delete r.kind],
  ['kind AdmissionRequest', (r) => (r.kind = 'AdmissionRequest')],
  ['kind lower case', (r) => (r.kind = 'admissionreview')],
  ['kind an object', (r) => (r.kind = { kind: 'AdmissionReview' })],
  ['request missing', (r) => delete (r as Record<string, unknown>).request],
  ['request null', (r) => ((r as Record<string, unknown>).request = null)],
  ['request a string', (r) => ((r as Record<string, unknown>).request = 'x')],
  ['request an array', (r) => ((r as Record<string, unknown>).request = [])],
  ['request.uid missing', (r) => delete r.request.uid],
  ['request.uid empty', (r) => (r.request.uid = '')],
  ['request.uid a number', (r) => (r.request.uid = 42)],
  ['request.uid an object', (r) => (r.request.uid = { a: 1 })],
  ['request.uid null', (r) => (r.request.uid = null)],
  ['operation missing', (r) => delete r.request.operation],
  ['operation PATCH', (r) => (r.request.operation = 'PATCH')],
  ['operation lower case', (r) => (r.request.operation = 'update')],
  ['operation a number', (r) => (r.request.operation = 3)],
  ['operation empty', (r) => (r.request.operation = '')],
  ['operation WATCH', (r) => (r.request.operation = 'WATCH')],
  ['kind block missing', (r) => delete r.request.kind],
  ['kind block a string', (r) => (r.request.kind = 'Deployment')],
  ['kind.kind missing', (r) => (r.request.kind = { group: 'apps', version: 'v1' })],
  ['kind.version a number', (r) => (r.request.kind = { group: 'apps', version: 1, kind: 'Deployment' })],
  ['resource missing', (r) => delete r.request.resource],
  ['resource.resource empty', (r) => (r.request.resource = { group: 'apps', version: 'v1', resource: '' })],
  ['resource an array', (r) => (r.request.resource = ['deployments'])],
  ['userInfo missing', (r) => delete r.request.userInfo],
  ['userInfo a string', (r) => (r.request.userInfo = 'jane')],
  ['username a number', (r) => (r.request.userInfo = { username: 7 })],
  ['groups a string', (r) => (r.request.userInfo = { username: 'jane', groups: 'admins' })],
  ['groups with a number', (r) => (r.request.userInfo = { username: 'jane', groups: ['a', 1] })],
  ['extra not a map of lists', (r) => (r.request.userInfo = { username: 'jane', extra: { a: 'b' } })],
  ['object a string', (r) => (r.request.object = 'x')],
  ['object an array', (r) => (r.request.object = [])],
  ['object a number', (r) => (r.request.object = 5)],
  ['object.metadata a string', (r) => (r.request.object = { metadata: 'x' })],
  ['oldObject missing on UPDATE', (r) => delete r.request.oldObject],
  ['oldObject null on UPDATE', (r) => (r.request.oldObject = null)],
  ['oldObject an array', (r) => (r.request.oldObject = [1])],
  ['object null on UPDATE', (r) => (r.request.object = null)],
  [
    'DELETE without oldObject',
    (r) => {
      r.request.operation = 'DELETE'
      r.request.object = null
      r.request.oldObject = null
    },
  ],
  ['dryRun a string', (r) => (r.request.dryRun = 'true')],
  ['dryRun a number', (r) => (r.request.dryRun = 1)],
  ['subResource a number', (r) => (r.request.subResource = 1)],
  ['namespace an object', (r) => (r.request.namespace = {})],
  ['name an array', (r) => (r.request.name = ['a'])],
  ['options a string', (r) => (r.request.options = 'x')],
]

t.test('envelope: wrong types and missing fields get 400', async (t) => {
  for (const [name, mutate] of envelopeCases) {
    const review = JSON.parse(denyReview()) as Record<string, unknown> & { request: Record<string, unknown> }
    mutate(review)
    const res = await post(JSON.stringify(review))
    assertRejected(t, name, res.status, res.body, 400)
    count()
  }
  await stillServing(t, 'after envelope cases')
})

t.test('not an object, not JSON, truncated JSON: 400', async (t) => {
  const bodies: [string, string][] = [
    ['null', 'null'],
    ['a number', '1'],
    ['a string', '"AdmissionReview"'],
    ['an array', '[]'],
    ['true', 'true'],
    ['an empty object', '{}'],
    ['whitespace', '   \n\t '],
    ['an empty body', ''],
    ['a single brace', '{'],
    ['YAML', 'apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n'],
    ['trailing garbage', `${allowReview()}garbage`],
    ['two documents', `${allowReview()}${allowReview()}`],
    ['NaN', '{"apiVersion": NaN}'],
    ['single quotes', "{'apiVersion': 'admission.k8s.io/v1'}"],
    ['comments', '/* x */ {}'],
    ['a BOM and garbage', '\ufeff{x}'],
    ['unterminated string', '{"apiVersion": "admission.k8s.io/v1'],
    ['bad escape', '{"a": "\\x41"}'],
    ['control character in a string', '{"a": "\u0001"}'],
  ]
  for (const [name, body] of bodies) {
    const res = await post(body)
    assertRejected(t, name, res.status, res.body, 400)
    count()
  }
  const full = denyReview()
  // Truncated at eighty places spread over the whole document.
  for (let i = 1; i <= 80; i++) {
    const cut = Math.floor((full.length * i) / 81)
    const res = await post(full.slice(0, cut))
    assertRejected(t, `truncated at ${cut}/${full.length}`, res.status, res.body, 400)
    count()
  }
  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}'),
  ])
  const res = await post(invalidUtf8)
  assertRejected(t, 'invalid UTF-8', res.status, res.body, 400)
  count()
  await stillServing(t, 'after malformed JSON')
})

t.test('deep nesting: 400 before parsing', async (t) => {
  const deep = (n: number, open: string, close: string, inner = ''): string => open.repeat(n) + inner + close.repeat(n)
  const cases: [string, string][] = [
    ['arrays 20000 deep', deep(20_000, '[', ']')],
    ['objects 20000 deep', deep(20_000, '{"a":', '}', '1')],
    ['arrays 1,000,000 deep', deep(1_000_000, '[', ']')],
    ['unbalanced 50000 opens', '['.repeat(50_000)],
    ['deep inside a valid envelope', allowReview().replace('"spec":{', `"spec":{"deep":${deep(10_005, '[', ']')},`)],
  ]
  for (const [name, body] of cases) {
    const started = performance.now()
    const res = await post(body)
    assertRejected(t, name, res.status, res.body, 400)
    t.ok(performance.now() - started < 2_000, `${name}: answered quickly`)
    count()
  }
  const strings = `{"a":"${'['.repeat(30_000)}"}`
  const res = await post(strings)
  assertRejected(t, 'brackets inside strings do not count as nesting', res.status, res.body, 400)
  t.notMatch(res.body, /nests deeper/, 'rejected by the envelope check, not the depth check')
  count()
  await stillServing(t, 'after deep nesting')
})

t.test('wrong content types: 415', async (t) => {
  const types = [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/jsonx',
    'application/vnd.kubernetes.protobuf',
    'text/json',
    'application/xml',
    'image/png',
    'application/octet-stream',
  ]
  for (const ct of types) {
    const res = await post(allowReview(), { 'content-type': ct })
    assertRejected(t, `content type ${ct}`, res.status, res.body, 415)
    count()
  }
  const none = await post(allowReview(), {})
  assertRejected(t, 'no content type', none.status, none.body, 415)
  count()
  await stillServing(t, 'after wrong content types')
})

t.test('wrong method or path: 404', async (t) => {
  const cases: [string, string][] = [
    ['GET', '/validate'],
    ['PUT', '/validate'],
    ['DELETE', '/validate'],
    ['PATCH', '/validate'],
    ['POST', '/mutate'],
    ['POST', '/'],
    ['POST', '/validate/extra'],
    ['POST', '/VALIDATE'],
    ['POST', '/%2e%2e/validate'],
    ['GET', '/metrics'],
  ]
  for (const [method, path] of cases) {
    const res = await post(allowReview(), { 'content-type': 'application/json' }, method, path)
    assertRejected(t, `${method} ${path}`, res.status, res.body, 404)
    count()
  }
  await stillServing(t, 'after wrong routes')
})

t.test('bodies beyond the limit: 413', async (t) => {
  const header = (len: number): string =>
    `POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`
  const declared = await rawTls(header(DEFAULT_BODY_LIMIT * 4))
  assertRejected(t, 'declared length beyond the limit', declared.status, declared.text.slice(declared.text.indexOf('\r\n\r\n') + 4), 413)
  count()
  const chunked = await rawTls(
    'POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    {
      stream: Buffer.from(`10000\r\n${'a'.repeat(0x10000)}\r\n`),
    },
  )
  t.equal(chunked.status, 413, 'a chunked body that never ends is cut off at the limit')
  count()
  const real = await post(Buffer.alloc(DEFAULT_BODY_LIMIT + 1, 0x20))
  assertRejected(t, 'a real body one byte beyond the limit', real.status, real.body, 413)
  count()
  for (let i = 0; i < 3; i++) {
    const again = await rawTls(header(DEFAULT_BODY_LIMIT + 1 + i))
    t.equal(again.status, 413, `declared length limit+${1 + i}`)
    count()
  }
  await stillServing(t, 'after oversized bodies')
})

t.test('broken HTTP: 4xx from the HTTP layer', async (t) => {
  const cases: [string, string][] = [
    ['garbage request line', 'HELLO\r\n\r\n'],
    ['bad HTTP version', 'POST /validate HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['header without colon', 'POST /validate HTTP/1.1\r\nHost x\r\n\r\n'],
    ['header flood', `POST /validate HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`],
    ['invalid content length', 'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n'],
    [
      'two content lengths',
      'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'length and chunked',
      'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    [
      'bad chunk size',
      'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    ],
    ['NUL in the path', 'POST /valid\u0000ate HTTP/1.1\r\nHost: x\r\n\r\n'],
  ]
  for (const [name, bytes] of cases) {
    const res = await rawTls(bytes)
    t.ok(res.status !== undefined && res.status >= 400 && res.status < 500, `${name}: 4xx, got ${res.status}`)
    t.notMatch(res.text, /"allowed"/, `${name}: no verdict`)
    count()
  }
  await stillServing(t, 'after broken HTTP')
})

t.test('plain HTTP and old TLS on the TLS port are refused at the TLS layer', async (t) => {
  for (let i = 0; i < 5; i++) {
    const res = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      let text = ''
      const s = netConnect({ host: '127.0.0.1', port }, () =>
        s.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`),
      )
      s.on('data', (d: Buffer) => (text += d.toString('latin1')))
      s.on('close', () => resolve({ text, closed: true }))
      s.on('error', () => undefined)
      setTimeout(() => {
        s.destroy()
        resolve({ text, closed: false })
      }, 5_000).unref()
    })
    t.ok(res.closed, `plain HTTP ${i}: connection closed by the server`)
    t.notMatch(res.text, /HTTP\/1\.1 200|"allowed"/, `plain HTTP ${i}: no HTTP answer`)
    count()
  }
  for (const version of ['TLSv1', 'TLSv1.1'] as const) {
    const outcome = await new Promise<string>((resolve) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca: certs.ca, minVersion: version, maxVersion: version }, () => {
        resolve('connected')
        s.destroy()
      })
      s.on('error', (e) => resolve(`refused: ${e.message}`))
    })
    t.match(outcome, /^refused/, `${version} is refused`)
    count()
  }
  await stillServing(t, 'after non-TLS clients')
})

t.test('slow and abandoned connections are closed', async (t) => {
  const slowHeaders = rawTls('POST /validate HTTP/1.1\r\nHost: x\r\n', { drip: 300, waitMs: 8_000 })
  const slowBody = rawTls('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":', {
    drip: 300,
    waitMs: 8_000,
  })
  const stalledBody = rawTls('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{', {
    waitMs: 8_000,
  })
  const noHandshake = new Promise<boolean>((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port })
    s.on('close', () => resolve(true))
    s.on('error', () => undefined)
    setTimeout(() => {
      s.destroy()
      resolve(false)
    }, 8_000).unref()
  })
  // Valid traffic keeps flowing while those connections hang.
  await stillServing(t, 'while slow clients hang')
  for (const [name, p] of [
    ['headers dripping', slowHeaders],
    ['body dripping', slowBody],
    ['body stalled', stalledBody],
  ] as const) {
    const res = await p
    t.ok(
      res.closed || (res.status !== undefined && res.status >= 400 && res.status < 500),
      `${name}: cut off (status ${res.status}, closed ${res.closed})`,
    )
    t.notMatch(res.text, /"allowed"/)
    count()
  }
  t.ok(await noHandshake, 'a TCP connection that never starts TLS is closed after the handshake timeout')
  count()
  await stillServing(t, 'after slow clients')
})

t.test('prototype keys are data, not prototype changes', async (t) => {
  const review = denyReview().replace('"request":{', '"__proto__":{"polluted":true},"request":{"__proto__":{"allowed":true},')
  const res = await post(review)
  t.equal(res.status, 200, 'judged as a normal review')
  t.equal(
    (JSON.parse(res.body) as { response: { allowed: boolean } }).response.allowed,
    false,
    'a __proto__ key cannot turn a denial into an allow',
  )
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')
})

/** The Status body after the headers of a raw answer. */
function statusOf(text: string): { kind?: string; code?: number; message?: string } | undefined {
  try {
    return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { kind?: string; code?: number; message?: string }
  } catch {
    return undefined
  }
}

t.test('protocol-level refusals answer at once, with a Status that says what was wrong', async (t) => {
  const cases: [string, string, number, RegExp][] = [
    ['garbage request line', 'HELLO\r\n\r\n', 400, /HTTP method/],
    ['bad HTTP version', 'POST /validate HTTP/9.9\r\nHost: x\r\n\r\n', 400, /not HTTP\/1\.1/],
    ['header without colon', 'POST /validate HTTP/1.1\r\nHost x\r\n\r\n', 400, /header name/],
    ['one huge header', `POST /validate HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`, 431, /headers exceed/],
    [
      'a flood of small headers',
      `POST /validate HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 4000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
      431,
      /headers exceed/,
    ],
    ['invalid content length', 'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, /Content-Length/],
    [
      'length and chunked',
      'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      /Content-Length|Transfer-Encoding/,
    ],
    [
      'bad chunk size',
      'POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
      /chunk size/,
    ],
    [
      'an Expect the server cannot meet',
      'POST /validate HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      417,
      /Expect/,
    ],
  ]
  for (const [name, bytes, code, message] of cases) {
    const started = performance.now()
    const res = await rawTls(bytes, { waitMs: 5_000 })
    const ms = performance.now() - started
    t.equal(res.status, code, `${name}: ${code}`)
    const status = statusOf(res.text)
    t.equal(status?.kind, 'Status', `${name}: a Status body`)
    t.match(status?.message, message, `${name}: says what was wrong`)
    t.ok(ms < 1_000, `${name}: answered at once, not at a timeout (${Math.round(ms)} ms)`)
    count()
  }
  await stillServing(t, 'after protocol errors')
})

t.test('a connection that completes TLS and then says nothing is closed within a second', async (t) => {
  const started = performance.now()
  const closed = await new Promise<boolean>((resolve) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca: certs.ca })
    s.on('close', () => resolve(true))
    s.on('error', () => undefined)
    setTimeout(() => {
      s.destroy()
      resolve(false)
    }, 5_000).unref()
  })
  t.ok(closed, 'closed by the server')
  t.ok(
    performance.now() - started < 3_000,
    `after the first-request deadline, not the 100 s keep-alive (${Math.round(performance.now() - started)} ms)`,
  )
  count()
})

t.test('values beyond what the API server can send are refused before parsing', async (t) => {
  // The 31 MiB review of dense [{},{},...] scaled down to what the body limit lets through: far more values than two stored objects hold.
  const dense = `[${'{},'.repeat(MAX_JSON_VALUES)}{}]`
  const review = allowReview().replace('"spec":{', `"spec":{"dense":${dense},`)
  const started = performance.now()
  const res = await post(review)
  assertRejected(t, 'dense values', res.status, res.body, 400)
  t.match(res.body, /more than \d+ JSON values/)
  t.ok(performance.now() - started < 5_000, 'answered without parsing')
  count()
  await stillServing(t, 'after dense values')
})

t.test('two large arrays that differ everywhere are judged at the cost of the first differences', async (t) => {
  const n = 300_000
  const withValues = (offset: number): Record<string, unknown> => {
    const o = structuredClone(stored) as Record<string, unknown> & { spec: Record<string, unknown> }
    o.spec.values = Array.from({ length: n }, (_, i) => i + offset)
    return o
  }
  const res = await post(JSON.stringify(admissionReview({ operation: 'UPDATE', object: withValues(1), oldObject: withValues(0) })))
  t.equal(res.status, 200)
  const response = (
    JSON.parse(res.body) as { response: { allowed: boolean; status?: { message?: string }; auditAnnotations?: Record<string, string> } }
  ).response
  t.equal(response.allowed, false, 'denied')
  t.match(response.status?.message, /spec\.values\[0\], .* and at least 16 more/)
  t.equal((JSON.parse(response.auditAnnotations?.paths ?? '[]') as string[]).length, 20, 'twenty paths, not 300,000')
  await stillServing(t, 'after two arrays that differ everywhere')
})

t.test('an integer beyond 2^53 that changes by one is a change', async (t) => {
  const grace = (v: string): string =>
    JSON.stringify(admissionReview({ operation: 'UPDATE', object: stored, oldObject: stored })).replace(
      /"terminationGracePeriodSeconds":30/g,
      `"terminationGracePeriodSeconds":${v}`,
    )
  const body = grace('9007199254740993').replace(
    /("object":.*?)"terminationGracePeriodSeconds":9007199254740993/,
    '$1"terminationGracePeriodSeconds":9007199254740992',
  )
  t.not(body, grace('9007199254740993'), 'object and oldObject differ in the text')
  const res = await post(body)
  const response = (JSON.parse(res.body) as { response: { allowed: boolean; status?: { message?: string } } }).response
  t.equal(response.allowed, false, '9007199254740993 -> 9007199254740992 is denied')
  t.match(response.status?.message, /terminationGracePeriodSeconds/)
  const same = await post(grace('9223372036854775807'))
  t.equal((JSON.parse(same.body) as { response: { allowed: boolean } }).response.allowed, true, 'an unchanged huge integer is no change')
})

/** A webhook on its own port with `budget`, for the tests of bodies in flight. */
async function budgetApp(tt: TT, budget: MemoryBudget): Promise<number> {
  const app = buildWebhookApp({
    lookups: caches.lookups,
    config: { operatorUsernames: [] },
    log: pino({ level: 'silent' }),
    metrics: createWebhookMetrics(),
    canServe: () => true,
    tls: { key: certs.key, cert: certs.cert },
    budget,
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  tt.teardown(() => app.close())
  return (app.server.address() as { port: number }).port
}

/** A body of `length` that never finishes: its headers and one byte, then nothing, until the server answers or 2 s pass. */
function hold(port: number, length: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = ''
    const s = tlsConnect({ host: '127.0.0.1', port, ca: certs.ca }, () =>
      s.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`),
    )
    s.on('data', (d: Buffer) => (text += d.toString('utf8')))
    s.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined, text, closed: true }))
    s.on('error', () => undefined)
    setTimeout(() => s.destroy(), 2_000).unref()
  })
}

/** A valid review (a denial) over a connection of its own. */
function reviewOn(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const agent2 = new Agent({ ca: certs.ca })
    const body = denyReview()
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate',
        agent: agent2,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.on('data', (c: Buffer) => (text += c.toString('utf8')))
        res.on('end', () => {
          agent2.destroy()
          resolve({ status: res.statusCode ?? 0, body: text })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

t.test('bodies beyond the memory budget are refused with 503 while small reviews keep being judged', async (t) => {
  // A pace of zero: no body is ever behind it, so the budget refuses instead of making room (that is the next test).
  const bport = await budgetApp(
    t,
    new MemoryBudget({
      capacity: 3 * 1024 * 1024,
      smallBytes: 64 * 1024,
      reservedForSmall: 1024 * 1024,
      pace: { minBytesPerSecond: 0, graceBytes: 0 },
    }),
  )
  // Two 1.5 MiB bodies that never finish: the first fits the large share, the second does not.
  const first = hold(bport, 1.5 * 1024 * 1024)
  await new Promise((r) => setTimeout(r, 200))
  const second = await hold(bport, 1.5 * 1024 * 1024)
  t.equal(second.status, 503, 'the second large body does not fit')
  t.match(statusOf(second.text)?.message, /memory limit/)
  const small = await reviewOn(bport)
  t.equal(small.status, 200, 'a small review is judged meanwhile')
  t.equal((JSON.parse(small.body) as { response: { allowed: boolean } }).response.allowed, false)
  await first
  count()
})

t.test('bodies that stall give their share of the budget to a review that needs it, and are answered 408', async (t) => {
  // Small bodies may take the whole budget: three of 1 MiB that never finish fill it.
  const bport = await budgetApp(t, new MemoryBudget({ capacity: 3 * 1024 * 1024, smallBytes: 1024 * 1024, reservedForSmall: 1024 * 1024 }))
  const stalled = [hold(bport, 1024 * 1024), hold(bport, 1024 * 1024), hold(bport, 1024 * 1024)]
  await new Promise((r) => setTimeout(r, 300))
  const review = await reviewOn(bport)
  t.equal(review.status, 200, 'the review is judged')
  t.equal((JSON.parse(review.body) as { response: { allowed: boolean } }).response.allowed, false)
  const answers = await Promise.all(stalled)
  const cut = answers.filter((a) => a.status === 408)
  t.equal(cut.length, 1, 'one stalled body made room')
  t.match(statusOf(cut[0]?.text ?? '')?.message, /too slowly/)
  count()
})

t.test('at least 200 hostile requests were refused and the server is still up', async (t) => {
  t.ok(hostile >= 200, `${hostile} hostile requests`)
  await stillServing(t, 'at the end')
  const text = await metrics.registry.render()
  t.match(text, /template_sync_webhook_rejected_requests_total\{code="400",cause="InvalidEnvelope"\} \d+/)
  t.match(text, /template_sync_webhook_rejected_requests_total\{code="413",cause="BodyTooLarge"\} \d+/)
  t.match(text, /template_sync_webhook_rejected_requests_total\{code="415",cause="UnsupportedMediaType"\} \d+/)
})
