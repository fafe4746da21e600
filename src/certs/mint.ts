// Mints the certificate authority and the serving certificates of the
// self-managed webhook mode. Keys are ECDSA P-256 from node:crypto (OpenSSL),
// and node:crypto signs; this file only lays out the certificate fields.
// No I/O: the caller decides where the results are stored.

import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import * as der from '../encoding/der.ts'
import { toPem } from '../encoding/pem.ts'

export const CA_VALIDITY_DAYS = 365
export const SERVING_VALIDITY_DAYS = 90
/** notBefore is set this far back, so a node whose clock runs a little behind accepts a fresh certificate. */
export const CLOCK_SKEW_MS = 5 * 60_000
export const DAY_MS = 86_400_000

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const

/** KeyUsage bits, numbered from the most significant bit of the first byte (RFC 5280 4.2.1.3). */
const KeyUsage = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const

export interface CertPair {
  readonly certPem: string
  readonly keyPem: string
}

export interface MintedCert extends CertPair {
  readonly notBefore: Date
  readonly notAfter: Date
  /** Hex, as X509Certificate#serialNumber prints it. */
  readonly serialNumber: string
}

export interface MintCAOptions {
  /** Defaults to `template-sync-webhook-ca@<unix seconds>`: a distinct name per CA keeps chain building unambiguous while two CAs are trusted. */
  readonly commonName?: string
  readonly now?: Date
  readonly validityDays?: number
}

export interface MintServingOptions {
  /** The signing CA. */
  readonly ca: CertPair
  readonly dnsNames: readonly string[]
  readonly ipAddresses?: readonly string[]
  readonly now?: Date
  /** Capped by the CA's own expiry. */
  readonly validityDays?: number
}

export class CertificateError extends Error {
  override readonly name = 'CertificateError'
  readonly code = 'CERTIFICATE_INVALID'
}

/** The names a client may use for a Service: `svc`, `svc.ns`, `svc.ns.svc` and the fully qualified one. */
export function serviceDnsNames(service: string, namespace: string, clusterDomain = 'cluster.local'): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.${clusterDomain}`]
}

function newKey(): { privateKey: KeyObject; spki: Buffer; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return {
    privateKey,
    spki: publicKey.export({ type: 'spki', format: 'der' }),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  }
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 over the subjectPublicKey bits. An identifier, not a security function. */
function keyIdentifier(spki: Buffer): Buffer {
  const top = der.readElement(spki, 0)
  const bits = der.childrenOf(spki, top)[1]
  if (bits === undefined || bits.tag !== der.Tag.bitString) throw new CertificateError('public key info has no key bits')
  return createHash('sha1').update(der.contentOf(spki, bits).subarray(1)).digest()
}

function name(commonName: string): Buffer {
  return der.sequence(der.set(der.sequence(der.objectIdentifier(OID.commonName), der.utf8String(commonName))))
}

function keyUsage(bits: readonly number[]): Buffer {
  const bytes = Buffer.alloc(Math.floor(Math.max(...bits) / 8) + 1)
  for (const b of bits) bytes[Math.floor(b / 8)]! |= 0x80 >> (b % 8)
  // DER drops trailing zero bits of a named bit list: count them as unused.
  const last = bytes[bytes.length - 1] ?? 0
  let unused = 0
  while (unused < 7 && (last & (1 << unused)) === 0) unused++
  return der.bitString(bytes, unused)
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.objectIdentifier(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(value))
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number))
  if (!isIPv6(ip) || ip.includes('.')) throw new CertificateError(`unsupported IP address ${JSON.stringify(ip)}`)
  const [head = '', tail = ''] = ip.split('::')
  const h = head === '' ? [] : head.split(':')
  const t = ip.includes('::') && tail !== '' ? tail.split(':') : []
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h
  return Buffer.from(groups.map((g) => g.padStart(4, '0')).join(''), 'hex')
}

function serial(): Buffer {
  const b = randomBytes(16)
  // Positive and of full length; RFC 5280 allows up to 20 octets.
  b[0] = (b[0]! & 0x7f) | 0x40
  return b
}

interface Fields {
  readonly issuer: Buffer
  readonly subject: Buffer
  readonly notBefore: Date
  readonly notAfter: Date
  readonly spki: Buffer
  readonly extensions: readonly Buffer[]
  readonly signer: KeyObject
}

function build(f: Fields): { certPem: string; serialNumber: string } {
  for (const d of [f.notBefore, f.notAfter]) {
    // RFC 5280 has no encoding for a validity date before 1950.
    if (d.getUTCFullYear() < 1950) throw new CertificateError(`date out of range for a certificate: ${d.toISOString()}`)
  }
  const algorithm = der.sequence(der.objectIdentifier(OID.ecdsaWithSha256))
  const serialBytes = serial()
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serialBytes),
    algorithm,
    f.issuer,
    der.sequence(der.time(f.notBefore), der.time(f.notAfter)),
    f.subject,
    f.spki,
    der.explicit(3, der.sequence(...f.extensions)),
  )
  // ECDSA signatures from node:crypto are DER-encoded Ecdsa-Sig-Value, as X.509 wants them.
  const signature = sign('sha256', tbs, f.signer)
  return {
    certPem: toPem('CERTIFICATE', der.sequence(tbs, algorithm, der.bitString(signature))),
    serialNumber: serialBytes.toString('hex').toUpperCase(),
  }
}

/** Whole seconds: the encoded times carry no fractions, so the returned dates match what the certificate says. */
const seconds = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000)

function checkValidity(days: number): void {
  if (!(days > 0) || !Number.isFinite(days)) throw new CertificateError(`validity must be a positive number of days, got ${days}`)
}

/** A self-signed CA that may sign end-entity certificates only (path length 0). */
export function mintCA(opts: MintCAOptions = {}): MintedCert {
  const now = (opts.now ?? new Date()).getTime()
  const days = opts.validityDays ?? CA_VALIDITY_DAYS
  checkValidity(days)
  const key = newKey()
  const subject = name(opts.commonName ?? `template-sync-webhook-ca@${Math.floor(now / 1000)}`)
  const notBefore = seconds(now - CLOCK_SKEW_MS)
  const notAfter = seconds(now + days * DAY_MS)
  const id = keyIdentifier(key.spki)
  const { certPem, serialNumber } = build({
    issuer: subject,
    subject,
    notBefore,
    notAfter,
    spki: key.spki,
    signer: key.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, der.sequence(der.boolean(true), der.smallInteger(0))),
      extension(OID.keyUsage, true, keyUsage([KeyUsage.digitalSignature, KeyUsage.keyCertSign, KeyUsage.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, der.octetString(id)),
    ],
  })
  return { certPem, keyPem: key.keyPem, notBefore, notAfter, serialNumber }
}

/** A CA read back from PEM, ready to sign. */
export interface SigningCA {
  readonly cert: X509Certificate
  readonly key: KeyObject
  readonly subject: Buffer
  readonly keyId: Buffer
}

/** The subject Name of a certificate, byte for byte (an issuer field must repeat it exactly). */
function subjectOf(raw: Buffer): Buffer {
  const cert = der.readElement(raw, 0)
  const tbs = der.childrenOf(raw, cert)[0]
  if (tbs === undefined) throw new CertificateError('certificate has no body')
  const fields = der.childrenOf(raw, tbs)
  // Skip the optional [0] version; then serial, signature, issuer, validity, subject.
  const at = fields[0]?.tag === 0xa0 ? 1 : 0
  const subject = fields[at + 4]
  if (subject === undefined || subject.tag !== der.Tag.sequence) throw new CertificateError('certificate has no subject')
  return der.bytesOf(raw, subject)
}

export function loadSigningCA(pair: CertPair, now: Date = new Date()): SigningCA {
  let cert: X509Certificate
  let key: KeyObject
  try {
    cert = new X509Certificate(pair.certPem)
    key = createPrivateKey(pair.keyPem)
  } catch (err) {
    throw new CertificateError(`CA does not parse: ${(err as Error).message}`, { cause: err })
  }
  if (!cert.ca) throw new CertificateError('the CA certificate is not marked as a CA')
  if (!cert.checkPrivateKey(key)) throw new CertificateError('the CA key does not belong to the CA certificate')
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new CertificateError('the CA key is not ECDSA P-256')
  if (new Date(cert.validTo).getTime() <= now.getTime())
    throw new CertificateError(`the CA expired at ${new Date(cert.validTo).toISOString()}`)
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' })
  return { cert, key, subject: subjectOf(cert.raw), keyId: keyIdentifier(spki) }
}

/** A serving certificate for the given names, signed by the CA. */
export function mintServingCert(opts: MintServingOptions): MintedCert {
  const now = (opts.now ?? new Date()).getTime()
  const days = opts.validityDays ?? SERVING_VALIDITY_DAYS
  checkValidity(days)
  const dns = [...new Set(opts.dnsNames)]
  const ips = [...new Set(opts.ipAddresses ?? [])]
  if (dns.length === 0 && ips.length === 0) throw new CertificateError('a serving certificate needs at least one DNS name or IP address')
  for (const d of dns) {
    if (!/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(d) || d.length > 253)
      throw new CertificateError(`not a DNS name: ${JSON.stringify(d)}`)
  }
  const ca = loadSigningCA(opts.ca, new Date(now))
  const key = newKey()
  const notBefore = seconds(now - CLOCK_SKEW_MS)
  const notAfter = seconds(Math.min(now + days * DAY_MS, new Date(ca.cert.validTo).getTime()))
  const altNames = der.sequence(
    ...dns.map((d) => der.implicit(2, Buffer.from(d, 'ascii'))),
    ...ips.map((ip) => der.implicit(7, ipBytes(ip))),
  )
  const { certPem, serialNumber } = build({
    issuer: ca.subject,
    subject: name(dns[0] ?? ips[0] ?? 'template-sync-webhook'),
    notBefore,
    notAfter,
    spki: key.spki,
    signer: ca.key,
    extensions: [
      extension(OID.basicConstraints, true, der.sequence()),
      extension(OID.keyUsage, true, keyUsage([KeyUsage.digitalSignature])),
      extension(OID.extKeyUsage, false, der.sequence(der.objectIdentifier(OID.serverAuth))),
      extension(OID.subjectAltName, false, altNames),
      extension(OID.subjectKeyIdentifier, false, der.octetString(keyIdentifier(key.spki))),
      extension(OID.authorityKeyIdentifier, false, der.sequence(der.implicit(0, ca.keyId))),
    ],
  })
  return { certPem, keyPem: key.keyPem, notBefore, notAfter, serialNumber }
}
