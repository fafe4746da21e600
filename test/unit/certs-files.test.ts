// The certificate directory swap: whole sets of files change at once, and the
// webhook's own key-pair loader and watcher read the result.

import t from 'tap'
import { lstatSync, mkdtempSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { readCertDir, writeCertDir } from '../../src/certs/files.ts'
import { mintCA, mintServingCert } from '../../src/certs/mint.ts'
import { CertWatcher } from '../../src/webhook/cert-watcher.ts'
import { loadKeyPair } from '../../src/webhook/keypair.ts'

const files = (dir: string) => ({ dir, certFile: 'tls.crt', keyFile: 'tls.key' })
const pairFiles = () => {
  const ca = mintCA()
  const s = mintServingCert({ ca, dnsNames: ['localhost'] })
  return { 'tls.crt': s.certPem, 'tls.key': s.keyPem, 'ca.crt': ca.certPem }
}

t.test('writes through a ..data symlink and skips identical content', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-certdir-'))
  const a = pairFiles()
  t.equal(await writeCertDir(dir, a), true)
  t.ok(lstatSync(join(dir, '..data')).isSymbolicLink())
  t.equal(readlinkSync(join(dir, 'tls.crt')), join('..data', 'tls.crt'))
  t.strictSame(await readCertDir(dir, ['tls.crt', 'tls.key', 'ca.crt']), a)
  t.equal(await writeCertDir(dir, a), false, 'same content: nothing written')
  t.doesNotThrow(() => loadKeyPair(files(dir)), 'the webhook loader accepts the pair')
})

t.test('a second write swaps the whole set and removes the old generation', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-certdir-'))
  await writeCertDir(dir, pairFiles())
  const b = pairFiles()
  t.equal(await writeCertDir(dir, b), true)
  t.strictSame(await readCertDir(dir, Object.keys(b)), b)
  const generations = readdirSync(dir).filter((e) => /^\.\.\d/.test(e))
  t.equal(generations.length, 1, 'one timestamped directory left')
  t.strictSame(readdirSync(dir).sort(), ['..data', ...generations, 'ca.crt', 'tls.crt', 'tls.key'].sort())
})

t.test('replaces plain files left by something else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-certdir-'))
  writeFileSync(join(dir, 'tls.crt'), 'old')
  const a = pairFiles()
  await writeCertDir(dir, a)
  t.ok(lstatSync(join(dir, 'tls.crt')).isSymbolicLink())
  t.strictSame(await readCertDir(dir, ['tls.crt']), { 'tls.crt': a['tls.crt'] })
})

t.test("the webhook's watcher reloads after a swap", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-certdir-'))
  await writeCertDir(dir, pairFiles())
  const loaded: string[] = []
  const watcher = new CertWatcher(
    { files: files(dir), log: pino({ level: 'silent' }), onLoad: (p) => loaded.push(p.fingerprint), debounceMs: 20, pollMs: 60_000 },
    loadKeyPair(files(dir)),
  ).start()
  t.teardown(() => watcher.close())
  const next = pairFiles()
  await writeCertDir(dir, next)
  const deadline = Date.now() + 5_000
  while (loaded.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  t.equal(loaded.length, 1, 'reloaded once')
  t.equal(watcher.pair.cert, next['tls.crt'])
})
