// Sprig's key and certificate helpers (genPrivateKey, genCA, genSelfSignedCert,
// genSignedCert, their *WithKey variants, buildCustomCert), built the way
// crypto/x509.CreateCertificate lays certificates out: v3, 128-bit random
// serial, CN-only subject, key usage and extended key usage, basic
// constraints, a subject key id for CAs and the CA's key id as authority key
// id, SANs. Keys come from the platform's crypto; RSA keys are PKCS#1 PEM,
// EC keys SEC 1, Ed25519 keys PKCS#8, DSA keys Go's own DER layout.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, X509Certificate } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import { GoObject } from '../value.ts'
import type { FuncMap, GoFuncSpec, GoValue } from '../value.ts'
import {
  bitString,
  boolean,
  children,
  DerError,
  explicit,
  implicit,
  integer,
  nullValue,
  objectIdentifier as oid,
  octetString as octets,
  only,
  printableOrUtf8String,
  sequence as seq,
  set,
  time as derTime,
  toBigInt,
} from '../../encoding/der.ts'
import { decodePem, toPem as pem } from '../../encoding/pem.ts'

type Bytes = Uint8Array
import { base64Decode, CorruptInputError } from './encoding.ts'
import { randomBuffer } from './random.ts'
import { fail, fn, int, str } from './spec.ts'
import { formatV } from './gofmt.ts'

class CertError extends Error {}

interface PrivKey {
  readonly kind: 'rsa' | 'ec' | 'ed25519' | 'dsa' | 'other'
  readonly key: KeyObject
  readonly dsa?: { p: bigint; q: bigint; g: bigint; y: bigint; x: bigint }
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n
  b %= m
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m
    b = (b * b) % m
    e >>= 1n
  }
  return r
}

function kindOf(key: KeyObject): PrivKey['kind'] {
  const t = key.asymmetricKeyType
  return t === 'rsa' || t === 'ec' || t === 'ed25519' || t === 'dsa' ? t : 'other'
}

function dsaFromPkcs8(key: KeyObject): PrivKey {
  const der = key.export({ type: 'pkcs8', format: 'der' })
  const [, alg, priv] = children(only(der).body)
  const params = children(children(alg?.body ?? new Uint8Array())[1]?.body ?? new Uint8Array())
  const [p, q, g] = params.map((e) => toBigInt(e.body))
  const x = toBigInt(only(priv?.body ?? new Uint8Array()).body)
  if (p === undefined || q === undefined || g === undefined) throw new CertError('bad DSA key')
  return { kind: 'dsa', key, dsa: { p, q, g, x, y: modPow(g, x, p) } }
}

function dsaPkcs8(p: bigint, q: bigint, g: bigint, x: bigint): Bytes {
  return seq(integer(0n), seq(oid('1.2.840.10040.4.1'), seq(integer(p), integer(q), integer(g))), octets(integer(x)))
}

function keyPem(k: PrivKey): string {
  switch (k.kind) {
    case 'rsa':
      return k.key.export({ type: 'pkcs1', format: 'pem' }).toString()
    case 'ec':
      return k.key.export({ type: 'sec1', format: 'pem' }).toString()
    case 'dsa': {
      const d = k.dsa
      if (d === undefined) throw new CertError('bad DSA key')
      return pem('DSA PRIVATE KEY', seq(integer(0n), integer(d.p), integer(d.q), integer(d.g), integer(d.y), integer(d.x)))
    }
    default:
      return k.key.export({ type: 'pkcs8', format: 'pem' }).toString()
  }
}

function generateKey(typ: string): PrivKey {
  switch (typ) {
    case 'rsa':
      return { kind: 'rsa', key: generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey }
    case 'rsa2048':
      return { kind: 'rsa', key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }
    case 'ecdsa':
      return { kind: 'ec', key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey }
    case 'ed25519':
      return { kind: 'ed25519', key: generateKeyPairSync('ed25519').privateKey }
    default:
      return dsaFromPkcs8(generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }).privateKey)
  }
}

function genPrivateKey(typ: string): string {
  if (!['', 'rsa', 'dsa', 'ecdsa', 'ed25519'].includes(typ)) return 'Unknown type ' + typ
  return keyPem(generateKey(typ === '' ? 'rsa' : typ))
}

/** Sprig's parsePrivateKeyPEM. */
function parsePrivateKeyPEM(text: string): PrivKey {
  const block = decodePem(text)
  if (block === undefined) throw new CertError('no PEM data in input')
  const load = (type: 'pkcs8' | 'pkcs1' | 'sec1', what: string): PrivKey => {
    try {
      const key = createPrivateKey({ key: Buffer.from(block.der), format: 'der', type })
      return key.asymmetricKeyType === 'dsa' ? dsaFromPkcs8(key) : { kind: kindOf(key), key }
    } catch (e) {
      if (e instanceof CertError) throw e
      throw new CertError(`${what}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  if (block.type === 'PRIVATE KEY') return load('pkcs8', 'decoding PEM as PKCS#8')
  if (!block.type.endsWith(' PRIVATE KEY')) throw new CertError(`no private key data in PEM block of type ${block.type}`)
  switch (block.type.slice(0, -12)) {
    case 'RSA':
      return load('pkcs1', 'parsing RSA private key from PEM')
    case 'EC':
      return load('sec1', 'parsing EC private key from PEM')
    case 'DSA': {
      try {
        const [, p, q, g, , x] = children(only(block.der).body).map((e) => toBigInt(e.body))
        if (p === undefined || q === undefined || g === undefined || x === undefined) throw new DerError('short DSA key')
        const key = createPrivateKey({ key: Buffer.from(dsaPkcs8(p, q, g, x)), format: 'der', type: 'pkcs8' })
        return dsaFromPkcs8(key)
      } catch (e) {
        throw new CertError(`parsing DSA private key from PEM: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    default:
      throw new CertError(`invalid private key type ${block.type}`)
  }
}

const spki = (k: PrivKey): Bytes => createPublicKey(k.key).export({ type: 'spki', format: 'der' })

function subjectPublicKeyBits(spkiDer: Bytes): Bytes {
  const bits = children(only(spkiDer).body)[1]
  if (bits === undefined) throw new CertError('bad public key')
  return bits.body.subarray(1)
}

function name(cn: string): Bytes {
  return cn === '' ? seq() : seq(set(seq(oid('2.5.4.3'), printableOrUtf8String(cn))))
}

function ipBytes(ip: string): Bytes | undefined {
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number))
  if (!isIPv6(ip)) return undefined
  let [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, '']
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1]
  const words = (s: string): number[] => {
    if (s === '') return []
    return s.split(':').flatMap((w) => (w.includes('.') ? [] : [parseInt(w, 16)]))
  }
  if (v4 !== undefined) {
    if (tail.endsWith(v4)) tail = tail.slice(0, -v4.length).replace(/:$/, '')
    else head = head.slice(0, -v4.length).replace(/:$/, '')
  }
  const h = words(head)
  const t = words(tail)
  const v4w =
    v4 === undefined
      ? []
      : ((b: number[]) => [((b[0] ?? 0) << 8) | (b[1] ?? 0), ((b[2] ?? 0) << 8) | (b[3] ?? 0)])(v4.split('.').map(Number))
  const fill = 8 - h.length - t.length - v4w.length
  const all = [...h, ...Array.from({ length: ip.includes('::') ? fill : 0 }, () => 0), ...t, ...v4w]
  const out = new Uint8Array(16)
  all.forEach((w, i) => {
    out[2 * i] = w >> 8
    out[2 * i + 1] = w & 0xff
  })
  // net.IP.To4: an IPv4-mapped address is written in its four-byte form.
  if (out.subarray(0, 10).every((b) => b === 0) && out[10] === 0xff && out[11] === 0xff) return out.subarray(12)
  return out
}

interface Template {
  readonly cn: string
  readonly ips: readonly Bytes[]
  readonly dns: readonly string[]
  readonly days: number
  readonly isCA: boolean
}

function baseTemplate(cn: string, ips: GoValue, dns: GoValue, days: number): Template {
  const ipList = ips === null || ips === undefined ? [] : (ips as readonly GoValue[])
  const dnsList = dns === null || dns === undefined ? [] : (dns as readonly GoValue[])
  const ipOut = ipList.map((ip) => {
    if (typeof ip !== 'string') throw new CertError(`error parsing ip: ${formatV(ip ?? null)} is not a string`)
    const b = ipBytes(ip)
    if (b === undefined) throw new CertError(`error parsing ip: ${ip}`)
    return b
  })
  const dnsOut = dnsList.map((d) => {
    if (typeof d !== 'string') throw new CertError(`error processing alternate dns name: ${formatV(d ?? null)} is not a string`)
    return d
  })
  return { cn, ips: ipOut, dns: dnsOut, days, isCA: false }
}

function extension(id: string, critical: boolean, value: Bytes): Bytes {
  return critical ? seq(oid(id), boolean(true), octets(value)) : seq(oid(id), octets(value))
}

function signingAlgorithm(k: PrivKey): { alg: Bytes; hash: string | null } {
  switch (k.kind) {
    case 'rsa':
      return { alg: seq(oid('1.2.840.113549.1.1.11'), nullValue()), hash: 'sha256' }
    case 'ec':
      return { alg: seq(oid('1.2.840.10045.4.3.2')), hash: 'sha256' }
    case 'ed25519':
      return { alg: seq(oid('1.3.101.112')), hash: null }
    default:
      throw new CertError('error creating certificate: x509: certificate private key does not implement crypto.Signer')
  }
}

interface Parent {
  readonly subject: Bytes
  readonly spki: Bytes
  readonly subjectKeyId: Bytes | undefined
}

function parseParent(der: Bytes): Parent {
  const tbs = children(only(der).body)[0]
  if (tbs === undefined) throw new CertError('bad certificate')
  let fields = children(tbs.body)
  if (fields[0]?.tag === 0xa0) fields = fields.slice(1)
  const [, , , , subject, key, ...rest] = fields
  if (subject === undefined || key === undefined) throw new CertError('bad certificate')
  let subjectKeyId: Bytes | undefined
  const exts = rest.find((e) => e.tag === 0xa3)
  if (exts !== undefined) {
    for (const ext of children(only(exts.body).body)) {
      const parts = children(ext.body)
      if (parts[0] !== undefined && Buffer.from(parts[0].raw).equals(Buffer.from(oid('2.5.29.14')))) {
        const value = parts[parts.length - 1]
        if (value !== undefined) subjectKeyId = only(value.body).body
      }
    }
  }
  return { subject: subject.raw, spki: key.raw, subjectKeyId }
}

function createCertificate(t: Template, signee: PrivKey, parent: Parent | 'self', signer: PrivKey): Bytes {
  const { alg, hash } = signingAlgorithm(signer)
  const pub = spki(signee)
  const subject = name(t.cn)
  const issuer = parent === 'self' ? subject : parent.subject
  if (parent !== 'self' && !Buffer.from(spki(signer)).equals(Buffer.from(parent.spki))) {
    throw new CertError("error creating certificate: x509: provided PrivateKey doesn't match parent's PublicKey")
  }
  const serial = BigInt('0x' + Buffer.from(randomBuffer(16)).toString('hex'))
  const now = Date.now()
  const exts: Bytes[] = []
  // KeyUsage bits, lowest first: digitalSignature, ..., keyEncipherment (2), ..., keyCertSign (5).
  exts.push(extension('2.5.29.15', true, t.isCA ? bitString(Uint8Array.of(0xa4), 2) : bitString(Uint8Array.of(0xa0), 5)))
  exts.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))))
  exts.push(extension('2.5.29.19', true, t.isCA ? seq(boolean(true)) : seq()))
  if (t.isCA)
    exts.push(extension('2.5.29.14', false, octets(createHash('sha256').update(subjectPublicKeyBits(pub)).digest().subarray(0, 20))))
  if (
    parent !== 'self' &&
    !Buffer.from(issuer).equals(Buffer.from(subject)) &&
    parent.subjectKeyId !== undefined &&
    parent.subjectKeyId.length > 0
  ) {
    exts.push(extension('2.5.29.35', false, seq(implicit(0, parent.subjectKeyId))))
  }
  if (t.dns.length > 0 || t.ips.length > 0) {
    for (const d of t.dns)
      if (!/^[\x00-\x7f]*$/.test(d)) throw new CertError(`error creating certificate: x509: "${d}" cannot be encoded as an IA5String`)
    const names = [...t.dns.map((d) => implicit(2, Buffer.from(d, 'utf8'))), ...t.ips.map((ip) => implicit(7, ip))]
    exts.push(extension('2.5.29.17', t.cn === '', seq(...names)))
  }
  const tbs = seq(
    explicit(0, integer(2n)),
    integer(serial),
    alg,
    issuer,
    seq(derTime(new Date(now)), derTime(new Date(now + t.days * 86_400_000))),
    subject,
    pub,
    explicit(3, seq(...exts)),
  )
  const sig = sign(hash, tbs, signer.key)
  return seq(tbs, alg, bitString(sig))
}

/** Sprig's certificate struct {Cert, Key string}; it has no methods. */
export class Certificate extends GoObject {
  readonly goType = 'sprig.certificate'
  readonly goKind = 'struct'
  readonly cert: string
  readonly key: string
  constructor(cert: string, key: string) {
    super()
    this.cert = cert
    this.key = key
  }
  method(_name: string): GoFuncSpec | undefined {
    return undefined
  }
  override field(name: string): GoValue | undefined {
    return name === 'Cert' ? this.cert : name === 'Key' ? this.key : undefined
  }
  override structFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [
      ['Cert', this.cert],
      ['Key', this.key],
    ]
  }
}

function certificate(certPem: string, keyPemText: string): Certificate {
  return new Certificate(certPem, keyPemText)
}

function issue(t: Template, signee: PrivKey, parent: Parent | 'self', signer: PrivKey): Certificate {
  return certificate(pem('CERTIFICATE', createCertificate(t, signee, parent, signer)), keyPem(signee))
}

function caArg(v: GoValue): { cert: string; key: string } {
  const c = v as Certificate
  return { cert: c.cert, key: c.key }
}

function signerOf(ca: { cert: string; key: string }): { parent: Parent; key: PrivKey } {
  const block = decodePem(ca.cert)
  if (block === undefined) throw new CertError('unable to decode certificate')
  let parent: Parent
  try {
    new X509Certificate(Buffer.from(block.der))
    parent = parseParent(block.der)
  } catch (e) {
    throw new CertError(`error parsing certificate: decodedSignerCert.Bytes: ${e instanceof Error ? e.message : String(e)}`)
  }
  let key: PrivKey
  try {
    key = parsePrivateKeyPEM(ca.key)
  } catch (e) {
    throw new CertError(`error parsing private key: ${e instanceof Error ? e.message : String(e)}`)
  }
  return { parent, key }
}

function withKey(privPEM: string): PrivKey {
  try {
    return parsePrivateKeyPEM(privPEM)
  } catch (e) {
    throw new CertError(`parsing private key: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function buildCustomCert(b64cert: string, b64key: string): Certificate {
  const decode = (s: string, what: string): string => {
    try {
      return Buffer.from(base64Decode(s)).toString('latin1')
    } catch (e) {
      if (e instanceof CorruptInputError) throw new CertError(`unable to decode base64 ${what}`)
      throw e
    }
  }
  const certText = decode(b64cert, 'certificate')
  const keyText = decode(b64key, 'private key')
  const block = decodePem(certText)
  if (block === undefined) throw new CertError('unable to decode certificate')
  try {
    new X509Certificate(Buffer.from(block.der))
  } catch (e) {
    throw new CertError(`error parsing certificate: decodedCert.Bytes: ${e instanceof Error ? e.message : String(e)}`)
  }
  try {
    parsePrivateKeyPEM(keyText)
  } catch (e) {
    throw new CertError(`error parsing private key: ${e instanceof Error ? e.message : String(e)}`)
  }
  return certificate(Buffer.from(certText, 'latin1').toString('utf8'), Buffer.from(keyText, 'latin1').toString('utf8'))
}

function guard<T>(f: () => T): T {
  try {
    return f()
  } catch (e) {
    if (e instanceof CertError || e instanceof DerError) fail(e.message)
    throw e
  }
}

const list = (v: GoValue): GoValue => v

export const certFuncs: FuncMap = {
  genPrivateKey: fn(['string'], (t) => guard(() => genPrivateKey(str(t)))),
  buildCustomCert: fn(['string', 'string'], (c, k) => guard(() => buildCustomCert(str(c), str(k)))),
  genCA: fn(['string', 'int'], (cn, days) =>
    guard(() => {
      const key = generateKey('rsa2048')
      return issue({ ...baseTemplate(str(cn), null, null, int(days)), isCA: true }, key, 'self', key)
    }),
  ),
  genCAWithKey: fn(['string', 'int', 'string'], (cn, days, k) =>
    guard(() => {
      const key = withKey(str(k))
      return issue({ ...baseTemplate(str(cn), null, null, int(days)), isCA: true }, key, 'self', key)
    }),
  ),
  genSelfSignedCert: fn(['string', 'list', 'list', 'int'], (cn, ips, dns, days) =>
    guard(() => {
      const t = baseTemplate(str(cn), list(ips), list(dns), int(days))
      const key = generateKey('rsa2048')
      return issue(t, key, 'self', key)
    }),
  ),
  genSelfSignedCertWithKey: fn(['string', 'list', 'list', 'int', 'string'], (cn, ips, dns, days, k) =>
    guard(() => {
      const t = baseTemplate(str(cn), list(ips), list(dns), int(days))
      const key = withKey(str(k))
      return issue(t, key, 'self', key)
    }),
  ),
  genSignedCert: fn(['string', 'list', 'list', 'int', 'type:sprig.certificate'], (cn, ips, dns, days, ca) =>
    guard(() => {
      const t = baseTemplate(str(cn), list(ips), list(dns), int(days))
      const signer = signerOf(caArg(ca))
      return issue(t, generateKey('rsa2048'), signer.parent, signer.key)
    }),
  ),
  genSignedCertWithKey: fn(['string', 'list', 'list', 'int', 'type:sprig.certificate', 'string'], (cn, ips, dns, days, ca, k) =>
    guard(() => {
      const t = baseTemplate(str(cn), list(ips), list(dns), int(days))
      const signer = signerOf(caArg(ca))
      return issue(t, withKey(str(k)), signer.parent, signer.key)
    }),
  ),
}
