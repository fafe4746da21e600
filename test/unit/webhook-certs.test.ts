// Serving certificate checks and hot reload: pairs are validated before use,
// a Secret-volume style symlink swap is noticed through the directory watch
// (and, failing that, the poll), a bad pair is refused once and the old one
// kept, and a real TLS listener hands out the new certificate without a restart.

import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect, type Server as TlsServer } from 'node:tls'
import pino from 'pino'
import { CertWatcher } from '../../src/webhook/cert-watcher.ts'
import { KeyPairError, loadKeyPair, type KeyPair, type KeyPairFiles } from '../../src/webhook/keypair.ts'
import { buildWebhookApp } from '../../src/webhook/app.ts'
import { createWebhookMetrics } from '../../src/webhook/metrics.ts'
import { syntheticCaches } from '../fixtures/webhook-synthetic.ts'

const work = mkdtempSync(join(tmpdir(), 'ts-wh-certs-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const openssl = (args: string[]): void => {
  execFileSync('openssl', args, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] })
}
openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'])
openssl(['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=test-ca', '-days', '2', '-out', 'ca.crt'])
const ca = readFileSync(join(work, 'ca.crt'), 'utf8')
writeFileSync(join(work, 'ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')

let serial = 0
function issue(): { cert: string; key: string } {
  const n = ++serial
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `k${n}.key`])
  openssl(['req', '-new', '-key', `k${n}.key`, '-subj', `/CN=webhook-${n}`, '-out', `c${n}.csr`])
  openssl([
    'x509',
    '-req',
    '-in',
    `c${n}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-set_serial',
    String(1000 + n),
    '-days',
    '2',
    '-extfile',
    'ext',
    '-out',
    `c${n}.crt`,
  ])
  return { cert: readFileSync(join(work, `c${n}.crt`), 'utf8'), key: readFileSync(join(work, `k${n}.key`), 'utf8') }
}

/** The kubelet's way: a new hidden directory, then an atomic rename of the ..data symlink. */
let stamp = 0
function swapIn(dir: string, pair: { cert: string; key: string }): void {
  const name = `..2026_${++stamp}`
  mkdirSync(join(dir, name))
  writeFileSync(join(dir, name, 'tls.crt'), pair.cert)
  writeFileSync(join(dir, name, 'tls.key'), pair.key)
  symlinkSync(name, join(dir, '..data_tmp'))
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'))
  for (const f of ['tls.crt', 'tls.key']) {
    try {
      symlinkSync(join('..data', f), join(dir, f))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
}

function volume(pair: { cert: string; key: string }): KeyPairFiles {
  const dir = mkdtempSync(join(work, 'vol-'))
  swapIn(dir, pair)
  return { dir, certFile: 'tls.crt', keyFile: 'tls.key' }
}

const until = async (what: string, fn: () => boolean, ms = 5_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const quiet = pino({ level: 'silent' })

t.test('loadKeyPair accepts a matching pair and explains every refusal', async (t) => {
  const a = issue()
  const b = issue()
  const good = loadKeyPair(volume(a))
  t.ok(good.fingerprint.includes(':'), 'fingerprint')
  t.ok(good.notAfter.getTime() > Date.now(), 'not after')
  const cases: [string, KeyPairFiles, RegExp][] = [
    ['key of another certificate', volume({ cert: a.cert, key: b.key }), /does not belong/],
    ['not a certificate', volume({ cert: 'garbage', key: a.key }), /certificate does not parse/],
    ['not a key', volume({ cert: a.cert, key: 'garbage' }), /key does not parse/],
    ['half a certificate', volume({ cert: a.cert.slice(0, 200), key: a.key }), /certificate does not parse/],
    ['missing files', { dir: join(work, 'nowhere'), certFile: 'tls.crt', keyFile: 'tls.key' }, /cannot read/],
  ]
  for (const [name, files, message] of cases) {
    t.throws(() => loadKeyPair(files), { name: 'KeyPairError', message }, name)
  }
  const later = new Date(Date.now() + 10 * 24 * 3600 * 1000)
  t.throws(() => loadKeyPair(volume(a), later), { message: /expired/ }, 'an expired certificate')
  try {
    loadKeyPair(volume({ cert: a.cert, key: b.key }))
  } catch (e) {
    t.ok(e instanceof KeyPairError && e.code === 'WEBHOOK_KEYPAIR_INVALID', 'stable code')
  }
})

t.test('a symlink swap is picked up by the directory watch', async (t) => {
  const files = volume(issue())
  const loaded: KeyPair[] = []
  // A poll far in the future: only the watch can notice the swap in time.
  const w = new CertWatcher(
    { files, log: quiet, onLoad: (p) => loaded.push(p), pollMs: 600_000, debounceMs: 50 },
    loadKeyPair(files),
  ).start()
  t.teardown(() => w.close())
  const next = issue()
  swapIn(files.dir, next)
  await until('reload', () => loaded.length === 1)
  t.equal(loaded[0]?.cert, next.cert, 'the new pair')
  t.equal(w.reloads, 1)
  t.equal(w.pair.cert, next.cert)
  swapIn(files.dir, next)
  await new Promise((r) => setTimeout(r, 200))
  t.equal(loaded.length, 1, 'the same bytes again are not a reload')
})

t.test('the poll catches a change the watch did not report', async (t) => {
  const files = volume(issue())
  const loaded: KeyPair[] = []
  // A debounce longer than the test: the watch path never fires.
  const w = new CertWatcher(
    { files, log: quiet, onLoad: (p) => loaded.push(p), pollMs: 100, debounceMs: 600_000 },
    loadKeyPair(files),
  ).start()
  t.teardown(() => w.close())
  swapIn(files.dir, issue())
  await until('reload by poll', () => loaded.length === 1)
  t.pass('reloaded')
})

t.test('a bad pair is refused once and the pair in use is kept', async (t) => {
  const first = issue()
  const files = volume(first)
  const loaded: KeyPair[] = []
  const rejected: unknown[] = []
  const w = new CertWatcher(
    { files, log: quiet, onLoad: (p) => loaded.push(p), onReject: (e) => rejected.push(e), pollMs: 100, debounceMs: 20 },
    loadKeyPair(files),
  ).start()
  t.teardown(() => w.close())
  const other = issue()
  swapIn(files.dir, { cert: other.cert, key: first.key })
  await until('rejection', () => rejected.length === 1)
  await new Promise((r) => setTimeout(r, 400))
  t.equal(rejected.length, 1, 'reported once although the poll keeps seeing it')
  t.equal(loaded.length, 0)
  t.equal(w.pair.cert, first.cert, 'still the first pair')
  t.match(String(rejected[0]), /does not belong/)
  swapIn(files.dir, other)
  await until('good pair after a bad one', () => loaded.length === 1)
  t.equal(w.pair.cert, other.cert)
  const throwing = new CertWatcher(
    {
      files,
      log: quiet,
      onLoad: () => {
        throw new Error('setSecureContext failed')
      },
      onReject: (e) => rejected.push(e),
      pollMs: 600_000,
      debounceMs: 20,
    },
    loadKeyPair(files),
  )
  swapIn(files.dir, issue())
  t.equal(throwing.check(), 'rejected', 'a failing onLoad counts as a rejection')
  t.equal(throwing.pair.cert, other.cert, 'and keeps the old pair')
})

t.test('a TLS listener serves the new certificate after a reload, TLS 1.2+ only', async (t) => {
  const first = issue()
  const files = volume(first)
  const initial = loadKeyPair(files)
  const metrics = createWebhookMetrics()
  const app = buildWebhookApp({
    lookups: syntheticCaches({ templates: 1, instances: 1 }).lookups,
    config: { operatorUsernames: [] },
    log: quiet,
    metrics,
    canServe: () => true,
    tls: { key: initial.key, cert: initial.cert },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const w = new CertWatcher(
    {
      files,
      log: quiet,
      onLoad: (pair) => (app.server as unknown as TlsServer).setSecureContext({ key: pair.key, cert: pair.cert, minVersion: 'TLSv1.2' }),
      pollMs: 600_000,
      debounceMs: 20,
    },
    initial,
  ).start()
  t.teardown(() => w.close())
  const handshake = (version?: 'TLSv1.1'): Promise<string> =>
    new Promise((resolve) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca, ...(version ? { minVersion: version, maxVersion: version } : {}) }, () => {
        resolve(s.getPeerCertificate().fingerprint256)
        s.end()
      })
      s.on('error', (e) => resolve(`error: ${e.message}`))
    })
  t.equal(await handshake(), initial.fingerprint)
  swapIn(files.dir, issue())
  await until('reload', () => w.reloads === 1)
  t.equal(await handshake(), w.pair.fingerprint, 'new handshakes get the new certificate')
  t.not(w.pair.fingerprint, initial.fingerprint)
  t.match(await handshake('TLSv1.1'), /^error/, 'TLS 1.1 is still refused after the reload')
})
