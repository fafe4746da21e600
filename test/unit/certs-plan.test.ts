// The rotation plan of the self-managed certificates, over a simulated year
// and a half, without a cluster. The same plan runs against the API server in
// test/integration/certs.test.ts.

import t from 'tap'
import { X509Certificate } from 'node:crypto'
import { DAY_MS, mintCA, mintServingCert, serviceDnsNames } from '../../src/certs/mint.ts'
import { dataFromStored, fingerprint, planCertificates, storedFromData, type PlanSettings, type StoredCerts } from '../../src/certs/plan.ts'

const dnsNames = serviceDnsNames('wh', 'ns')
const start = new Date('2026-01-01T00:00:00Z')
const settings = (now: Date, extra: Partial<PlanSettings> = {}): PlanSettings => ({
  dnsNames,
  now,
  renewBeforeMs: 30 * DAY_MS,
  caRenewBeforeMs: 120 * DAY_MS,
  ...extra,
})
const empty: StoredCerts = { bundle: [] }
const chainsTo = (s: StoredCerts): string | undefined => {
  const leaf = new X509Certificate(s.serving!.certPem)
  return s.bundle.map((p) => new X509Certificate(p)).find((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))?.fingerprint256
}

t.test('an empty Secret gets a CA, a bundle and a serving certificate', async (t) => {
  const p = planCertificates(empty, settings(start))
  t.strictSame(p.steps, ['ca-created', 'serving-issued'])
  t.ok(p.changed)
  t.equal(p.next.bundle.length, 1)
  t.equal(p.next.bundle[0], p.next.signer?.certPem)
  t.ok(chainsTo(p.next))
})

t.test('a settled state plans nothing and changes nothing', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  const again = planCertificates(first, settings(new Date(start.getTime() + 10 * DAY_MS)))
  t.strictSame(again.steps, [])
  t.notOk(again.changed)
  t.equal(again.next, again.next)
  t.strictSame(dataFromStored(again.next), dataFromStored(first))
})

t.test('the serving certificate is renewed inside the renewal window, from the same CA', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  const p = planCertificates(first, settings(new Date(start.getTime() + 61 * DAY_MS)))
  t.strictSame(p.steps, ['serving-issued'])
  t.equal(p.next.signer?.certPem, first.signer?.certPem)
  t.not(p.next.serving?.certPem, first.serving?.certPem)
})

t.test('a serving certificate for other names, with a foreign key or from an unknown CA is replaced at once', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  const wrongNames = mintServingCert({ ca: first.signer!, dnsNames: ['other'], now: start })
  t.strictSame(planCertificates({ ...first, serving: wrongNames }, settings(start)).steps, ['serving-issued'])
  const foreign = mintServingCert({ ca: mintCA({ now: start }), dnsNames, now: start })
  t.strictSame(planCertificates({ ...first, serving: foreign }, settings(start)).steps, ['serving-issued'])
  const swappedKey = { certPem: first.serving!.certPem, keyPem: foreign.keyPem }
  t.strictSame(planCertificates({ ...first, serving: swappedKey }, settings(start)).steps, ['serving-issued'])
})

t.test('a year and a half of daily passes: the CA rotates, trust always overlaps', async (t) => {
  let state = planCertificates(empty, settings(start)).next
  let trusted = new Set(state.bundle.map(fingerprint))
  const signers = new Set<string>()
  const seen: string[] = []
  for (let day = 1; day <= 550; day++) {
    const now = new Date(start.getTime() + day * DAY_MS)
    const p = planCertificates(state, settings(now, { trusted }))
    state = p.next
    seen.push(...p.steps.map((s) => `${day}:${s}`))
    signers.add(fingerprint(state.signer!.certPem))
    // What the API server trusts during the next day: the bundle as injected at the end of this pass.
    const servingIssuer = chainsTo(state)
    t.ok(servingIssuer !== undefined, `day ${day}: the serving certificate chains to the stored bundle`)
    const issuerFp = state.bundle.map((b) => new X509Certificate(b)).find((c) => c.fingerprint256 === servingIssuer)
    t.ok(
      (issuerFp && trusted.has(fingerprint(issuerFp.toString()))) || p.steps.includes('ca-created'),
      `day ${day}: the API server already trusted the issuer when the certificate was served`,
    )
    t.ok(
      new X509Certificate(state.serving!.certPem).validTo &&
        new Date(new X509Certificate(state.serving!.certPem).validTo).getTime() > now.getTime() + 29 * DAY_MS,
      `day ${day}: never closer than the renewal window to expiry`,
    )
    t.ok(state.bundle.length <= 3, 'the bundle stays small')
    trusted = new Set(state.bundle.map(fingerprint))
  }
  t.ok(signers.size >= 2, 'the CA was replaced at least once')
  const rotated = seen.filter((s) => s.endsWith('ca-rotated'))
  t.ok(rotated.length >= 1)
  const firstRotation = Number(rotated[0]!.split(':')[0])
  t.ok(firstRotation >= 240 && firstRotation <= 250, `first CA rotation ~120 days before the CA expires (day ${firstRotation})`)
})

t.test('a serving renewal from a CA the configuration does not trust yet waits one pass', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  // Windows wider than the lifetimes force a CA rotation and a serving renewal at once.
  const now = new Date(start.getTime() + DAY_MS)
  const force = { renewBeforeMs: 100 * DAY_MS, caRenewBeforeMs: 400 * DAY_MS }
  const trustedBefore = new Set(first.bundle.map(fingerprint))
  const p1 = planCertificates(first, settings(now, { ...force, trusted: trustedBefore }))
  t.strictSame(p1.steps, ['ca-rotated', 'serving-renewal-deferred'])
  t.equal(p1.next.serving?.certPem, first.serving?.certPem, 'still the old serving certificate')
  t.equal(p1.next.bundle.length, 2, 'both CAs trusted')
  t.equal(p1.next.bundle[1], first.signer?.certPem, 'the old CA stays in the bundle')
  t.equal(p1.next.signer?.keyPem === first.signer?.keyPem, false, 'the old CA key is dropped')
  const p2 = planCertificates(p1.next, settings(now, { ...force, trusted: new Set(p1.next.bundle.map(fingerprint)) }))
  t.strictSame(p2.steps, ['serving-issued'])
  const settled = planCertificates(p2.next, settings(now, { trusted: new Set(p2.next.bundle.map(fingerprint)) }))
  t.notOk(settled.changed, 'with two CAs in the bundle, a settled state is left alone')
  t.equal(settled.next.bundle.join(''), p2.next.bundle.join(''))
  t.equal(chainsTo(p2.next), new X509Certificate(p1.next.signer!.certPem).fingerprint256, 'issued by the new CA')
})

t.test('without a webhook configuration nothing is deferred', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  const p = planCertificates(
    first,
    settings(new Date(start.getTime() + DAY_MS), { renewBeforeMs: 100 * DAY_MS, caRenewBeforeMs: 400 * DAY_MS }),
  )
  t.strictSame(p.steps, ['ca-rotated', 'serving-issued'])
})

t.test('a CA near its end is replaced right away when no serving certificate is usable', async (t) => {
  const first = planCertificates(empty, settings(start)).next
  const p = planCertificates(first, settings(new Date(start.getTime() + 300 * DAY_MS), { trusted: new Set(first.bundle.map(fingerprint)) }))
  t.strictSame(p.steps, ['ca-rotated', 'serving-issued'], 'the old serving certificate has expired: nothing to keep trusted')
  t.equal(chainsTo(p.next), new X509Certificate(p.next.signer!.certPem).fingerprint256)
})

t.test('an unusable serving certificate is replaced even from an untrusted CA', async (t) => {
  const p = planCertificates(empty, settings(start, { trusted: new Set() }))
  t.strictSame(p.steps, ['ca-created', 'serving-issued'])
})

t.test('expired CAs leave the bundle; the cap keeps the serving issuer', async (t) => {
  const old = mintCA({ now: new Date(start.getTime() - 400 * DAY_MS) })
  const first = planCertificates(empty, settings(start)).next
  const p = planCertificates({ ...first, bundle: [...first.bundle, old.certPem] }, settings(start))
  t.strictSame(p.next.bundle, first.bundle, 'expired CA dropped')
  t.ok(p.changed)
  const extra = [mintCA({ now: start }), mintCA({ now: start }), mintCA({ now: start })].map((c) => c.certPem)
  const capped = planCertificates({ ...first, bundle: [...first.bundle, ...extra] }, settings(start, { maxRetiredCAs: 1 }))
  t.ok(capped.steps.includes('ca-retired'))
  t.equal(capped.next.bundle.length, 2)
})

t.test('Secret data round trip', async (t) => {
  const s = planCertificates(empty, settings(start)).next
  const data = dataFromStored(s)
  t.strictSame(Object.keys(data).sort(), ['ca-signer.crt', 'ca-signer.key', 'ca.crt', 'tls.crt', 'tls.key'])
  t.strictSame(storedFromData(data), s)
  t.strictSame(storedFromData({}), { bundle: [] })
})
