// Certificates minted for the self-managed webhook mode, checked with
// node:crypto's X509Certificate (OpenSSL's parser) and with openssl itself.

import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSecureContext } from 'node:tls'
import * as der from '../../src/encoding/der.ts'
import {
  CA_VALIDITY_DAYS,
  CLOCK_SKEW_MS,
  DAY_MS,
  loadSigningCA,
  mintCA,
  mintServingCert,
  serviceDnsNames,
  SERVING_VALIDITY_DAYS,
  CertificateError,
} from '../../src/certs/mint.ts'
import { splitCertificates, toPem } from '../../src/encoding/pem.ts'

const now = new Date('2026-03-01T12:00:00.000Z')
const names = serviceDnsNames('template-sync-webhook', 'template-sync')

t.test('the four Service names', async (t) => {
  t.strictSame(names, [
    'template-sync-webhook',
    'template-sync-webhook.template-sync',
    'template-sync-webhook.template-sync.svc',
    'template-sync-webhook.template-sync.svc.cluster.local',
  ])
  t.equal(serviceDnsNames('a', 'b', 'corp.example')[3], 'a.b.svc.corp.example')
})

t.test('a CA: self-signed, CA:TRUE, one year, key matches', async (t) => {
  const ca = mintCA({ now })
  const x = new X509Certificate(ca.certPem)
  t.ok(x.ca, 'marked as a CA')
  t.ok(x.checkIssued(x), 'issuer equals subject')
  t.ok(x.verify(x.publicKey), 'self-signature verifies')
  t.ok(x.checkPrivateKey(createPrivateKey(ca.keyPem)))
  t.equal(new Date(x.validFrom).getTime(), now.getTime() - CLOCK_SKEW_MS, 'backdated for clock skew')
  t.equal(new Date(x.validTo).getTime(), now.getTime() + CA_VALIDITY_DAYS * DAY_MS)
  t.equal(ca.notAfter.getTime(), new Date(x.validTo).getTime())
  t.equal(ca.serialNumber, x.serialNumber)
  t.match(x.subject, /^CN=template-sync-webhook-ca@\d+$/)
  t.equal(createPrivateKey(ca.keyPem).asymmetricKeyDetails?.namedCurve, 'prime256v1')
  t.not(mintCA({ now }).serialNumber, ca.serialNumber, 'random serial numbers')
})

t.test('a serving certificate: SANs, 90 days, server auth, chains to the CA', async (t) => {
  const ca = mintCA({ now })
  const s = mintServingCert({ ca, dnsNames: names, ipAddresses: ['127.0.0.1', '::1'], now })
  const x = new X509Certificate(s.certPem)
  const caX = new X509Certificate(ca.certPem)
  t.equal(x.subjectAltName, [...names.map((n) => `DNS:${n}`), 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1'].join(', '))
  t.notOk(x.ca, 'not a CA')
  t.ok(x.checkIssued(caX), 'issuer name matches the CA subject')
  t.ok(x.verify(caX.publicKey), 'signed by the CA key')
  t.notOk(x.verify(new X509Certificate(mintCA({ now }).certPem).publicKey), 'not by another CA')
  t.ok(x.checkPrivateKey(createPrivateKey(s.keyPem)))
  t.equal(new Date(x.validTo).getTime(), now.getTime() + SERVING_VALIDITY_DAYS * DAY_MS)
  t.equal(x.checkHost('template-sync-webhook.template-sync.svc'), 'template-sync-webhook.template-sync.svc')
  t.equal(x.checkHost('other.template-sync.svc'), undefined)
  t.equal(x.checkIP('127.0.0.1'), '127.0.0.1')
  t.same(x.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'extended key usage: server auth only')
  t.doesNotThrow(() => createSecureContext({ cert: s.certPem, key: s.keyPem }), 'TLS accepts the pair')
})

t.test('openssl agrees: chain, purpose, key usage bits, strict X.509 checks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-mint-'))
  const ca = mintCA()
  const s = mintServingCert({ ca, dnsNames: names })
  writeFileSync(join(dir, 'ca.crt'), ca.certPem)
  writeFileSync(join(dir, 'tls.crt'), s.certPem)
  const verify = execFileSync(
    'openssl',
    ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt')],
    { encoding: 'utf8' },
  )
  t.match(verify, /tls\.crt: OK/)
  const leaf = execFileSync('openssl', ['x509', '-in', join(dir, 'tls.crt'), '-noout', '-text'], { encoding: 'utf8' })
  t.match(leaf, /Basic Constraints: critical\s+CA:FALSE/)
  t.match(leaf, /Key Usage: critical\s+Digital Signature\n/)
  t.match(leaf, /Extended Key Usage:\s*\n\s*TLS Web Server Authentication/)
  t.match(leaf, /Authority Key Identifier/)
  t.match(leaf, /Signature Algorithm: ecdsa-with-SHA256/)
  const root = execFileSync('openssl', ['x509', '-in', join(dir, 'ca.crt'), '-noout', '-text'], { encoding: 'utf8' })
  t.match(root, /CA:TRUE, pathlen:0/)
  t.match(root, /Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/)
})

t.test('validity is capped by the CA and never starts after now', async (t) => {
  const ca = mintCA({ now, validityDays: 10 })
  const s = mintServingCert({ ca, dnsNames: names, now })
  t.equal(s.notAfter.getTime(), ca.notAfter.getTime(), 'no serving certificate outlives its CA')
  t.ok(s.notBefore.getTime() < now.getTime())
  const later = mintServingCert({ ca, dnsNames: names, now, validityDays: 1 })
  t.equal(later.notAfter.getTime(), now.getTime() + DAY_MS)
})

t.test('refuses what it cannot sign correctly', async (t) => {
  const ca = mintCA({ now })
  const leaf = mintServingCert({ ca, dnsNames: names, now })
  t.throws(() => mintServingCert({ ca: leaf, dnsNames: names, now }), CertificateError, 'a leaf is not a CA')
  t.throws(() => mintServingCert({ ca: { certPem: ca.certPem, keyPem: mintCA().keyPem }, dnsNames: names, now }), /does not belong/)
  t.throws(() => mintServingCert({ ca, dnsNames: names, now: new Date(now.getTime() + 400 * DAY_MS) }), /expired/)
  t.throws(() => mintServingCert({ ca, dnsNames: [], now }), /at least one/)
  t.throws(() => mintServingCert({ ca, dnsNames: ['bad name'], now }), /not a DNS name/)
  t.throws(() => mintCA({ validityDays: 0 }), /positive/)
})

t.test('loadSigningCA reads the subject bytes back for the issuer field', async (t) => {
  const ca = mintCA({ now, commonName: 'unit-ca' })
  const loaded = loadSigningCA(ca, now)
  t.equal(loaded.cert.subject, 'CN=unit-ca')
  t.equal(loaded.keyId.length, 20)
  t.ok(Buffer.from(loaded.cert.raw).includes(loaded.subject))
})

t.test('dates after 2049 use GeneralizedTime', async (t) => {
  const ca = mintCA({ now: new Date('2049-06-01T00:00:00Z'), validityDays: 365 })
  const x = new X509Certificate(ca.certPem)
  t.equal(new Date(x.validTo).toISOString(), '2050-06-01T00:00:00.000Z')
  t.equal(der.time(new Date('2050-01-01T00:00:00Z'))[0], der.Tag.generalizedTime)
  t.equal(der.time(new Date('2049-12-31T23:59:59Z'))[0], der.Tag.utcTime)
})

t.test('DER helpers', async (t) => {
  t.equal(der.smallInteger(0).toString('hex'), '020100')
  t.equal(der.smallInteger(128).toString('hex'), '02020080', 'a high bit gets a leading zero')
  t.equal(der.unsignedInteger(Buffer.from([0, 0, 5])).toString('hex'), '020105', 'leading zeros stripped')
  t.equal(der.objectIdentifier('1.2.840.10045.4.3.2').toString('hex'), '06082a8648ce3d040302')
  t.equal(der.tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex'), '0481c8', 'long-form length')
  const seq = der.sequence(der.smallInteger(1), der.utf8String('x'))
  const top = der.readElement(seq, 0)
  t.strictSame(
    der.childrenOf(seq, top).map((e) => e.tag),
    [der.Tag.integer, der.Tag.utf8String],
  )
  t.throws(() => der.readElement(Buffer.from([0x30, 0x05, 0x01]), 0), /past the end/)
})

t.test('PEM bundles split into certificates', async (t) => {
  const a = mintCA().certPem
  const b = mintCA().certPem
  t.strictSame(splitCertificates(`${a}junk\n${b}`), [a, b])
  t.strictSame(splitCertificates(''), [])
  t.match(toPem('X', Buffer.alloc(100)), /^-----BEGIN X-----\n(.{64}\n){2}.{8}\n-----END X-----\n$/)
})
