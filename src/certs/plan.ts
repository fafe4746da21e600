// Decides what the self-managed certificate Secret should hold next: which CA
// signs, which CAs clients must trust, and whether the serving certificate is
// renewed now. No I/O; minting (random keys) is the only effect.
//
// Rotation order matters because several webhook replicas and the API
// server pick changes up at different times:
//  1. a new CA joins the trust bundle first, next to the old one;
//  2. a serving certificate from the new CA is only issued once the webhook
//     configuration already trusts that CA (unless the current one is
//     unusable anyway);
//  3. an old CA stays in the bundle until it expires; its key is dropped at
//     once, so nothing new is ever signed with it.

import { createHash, createPrivateKey, X509Certificate } from 'node:crypto'
import { CA_VALIDITY_DAYS, DAY_MS, loadSigningCA, mintCA, mintServingCert, SERVING_VALIDITY_DAYS, type CertPair } from './mint.ts'
import { splitCertificates } from '../encoding/pem.ts'

/** Secret data keys. `ca.crt` is the bundle clients trust; the signer pair is the CA in use. */
export const SecretKeys = {
  trustBundle: 'ca.crt',
  signerCert: 'ca-signer.crt',
  signerKey: 'ca-signer.key',
  servingCert: 'tls.crt',
  servingKey: 'tls.key',
} as const

export interface StoredCerts {
  readonly signer?: CertPair
  /** PEM certificates, signer first. */
  readonly bundle: readonly string[]
  readonly serving?: CertPair
}

export interface PlanSettings {
  readonly dnsNames: readonly string[]
  readonly now: Date
  /** Renew the serving certificate when less than this is left. */
  readonly renewBeforeMs: number
  /** Replace the signing CA when less than this is left. */
  readonly caRenewBeforeMs: number
  readonly caValidityDays?: number
  readonly servingValidityDays?: number
  /**
   * Fingerprints (SHA-256 of the DER, hex) of the CAs that every entry of the
   * webhook configuration trusts now; undefined when there is no
   * configuration to keep working.
   */
  readonly trusted?: ReadonlySet<string>
  /** Old CAs kept in the bundle besides the signer, newest first. */
  readonly maxRetiredCAs?: number
}

export type PlanStep = 'ca-created' | 'ca-rotated' | 'ca-retired' | 'serving-issued' | 'serving-renewal-deferred'

export interface Plan {
  readonly next: StoredCerts
  readonly steps: readonly PlanStep[]
  /** True when `next` differs from what is stored. */
  readonly changed: boolean
}

export const fingerprint = (certPem: string): string => createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex')

const pair = (c: CertPair): CertPair => ({ certPem: c.certPem, keyPem: c.keyPem })
const notAfter = (c: X509Certificate): number => new Date(c.validTo).getTime()

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem)
  } catch {
    return undefined
  }
}

function usableSigner(signer: CertPair | undefined, now: Date): CertPair | undefined {
  if (signer === undefined) return undefined
  try {
    loadSigningCA(signer, now)
    return signer
  } catch {
    return undefined
  }
}

/** DNS names in a certificate's subjectAltName. */
function dnsNamesOf(cert: X509Certificate): Set<string> {
  const names = new Set<string>()
  for (const part of (cert.subjectAltName ?? '').split(', ')) if (part.startsWith('DNS:')) names.add(part.slice(4).toLowerCase())
  return names
}

/** The bundle CA that issued the serving certificate, when the pair is usable: parses, matches, unexpired, names covered. */
function servingIssuer(
  pair: CertPair | undefined,
  bundle: readonly X509Certificate[],
  settings: PlanSettings,
): X509Certificate | undefined {
  if (pair === undefined) return undefined
  const cert = parse(pair.certPem)
  if (cert === undefined) return undefined
  try {
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return undefined
  } catch {
    return undefined
  }
  if (notAfter(cert) <= settings.now.getTime()) return undefined
  const names = dnsNamesOf(cert)
  if (!settings.dnsNames.every((n) => names.has(n.toLowerCase()))) return undefined
  return bundle.find((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey))
}

export function planCertificates(stored: StoredCerts, settings: PlanSettings): Plan {
  const now = settings.now.getTime()
  const steps: PlanStep[] = []
  const caDays = settings.caValidityDays ?? CA_VALIDITY_DAYS
  const servingDays = settings.servingValidityDays ?? SERVING_VALIDITY_DAYS
  const maxRetired = settings.maxRetiredCAs ?? 2

  // Trusted CAs as stored: valid CA certificates only. The PEM text is kept as
  // stored so that an unchanged bundle compares equal byte for byte.
  const pemOf = new Map<X509Certificate, string>()
  const storedBundle = stored.bundle
    .map((pem) => {
      const c = parse(pem)
      if (c) pemOf.set(c, pem)
      return c
    })
    .filter((c): c is X509Certificate => c?.ca === true && notAfter(c) > now)
  const oldSigner = usableSigner(stored.signer, settings.now)
  const oldSignerCert = oldSigner ? parse(oldSigner.certPem) : undefined
  if (oldSigner && oldSignerCert) pemOf.set(oldSignerCert, oldSigner.certPem)
  const servingCA = servingIssuer(stored.serving, oldSignerCert ? [oldSignerCert, ...storedBundle] : storedBundle, settings)

  let signer = oldSigner
  if (signer === undefined) {
    signer = pair(mintCA({ now: settings.now, validityDays: caDays }))
    steps.push('ca-created')
  } else if (
    oldSignerCert &&
    notAfter(oldSignerCert) - now < settings.caRenewBeforeMs &&
    (servingCA === undefined || servingCA.fingerprint256 === oldSignerCert.fingerprint256)
  ) {
    // One rotation at a time: a usable serving certificate must already come from the current signer.
    signer = pair(mintCA({ now: settings.now, validityDays: caDays }))
    steps.push('ca-rotated')
  }
  const signerCert = new X509Certificate(signer.certPem)

  // The signer first, then retired CAs (newest first) that have not expired.
  const retired = [...(oldSignerCert ? [oldSignerCert] : []), ...storedBundle]
    .filter((c) => c.fingerprint256 !== signerCert.fingerprint256)
    .filter((c, i, all) => all.findIndex((o) => o.fingerprint256 === c.fingerprint256) === i)
    .sort((a, b) => notAfter(b) - notAfter(a))
  // A CA that signed the serving certificate in use stays trusted whatever the cap.
  const kept = retired.filter((c, i) => i < maxRetired || c.fingerprint256 === servingCA?.fingerprint256)
  if (kept.length < retired.length) steps.push('ca-retired')
  const bundle = [signer.certPem, ...kept.map((c) => pemOf.get(c) ?? c.toString())]

  let serving = stored.serving
  // servingCA is always kept in the bundle above, so a usable certificate stays trusted until it is renewed.
  const servingCert = servingCA && stored.serving ? parse(stored.serving.certPem) : undefined
  const usable = servingCert !== undefined
  if (!usable || notAfter(servingCert) - now < settings.renewBeforeMs) {
    const signerTrusted = settings.trusted === undefined || settings.trusted.has(fingerprint(signer.certPem))
    if (usable && !signerTrusted) {
      steps.push('serving-renewal-deferred')
    } else {
      const minted = mintServingCert({ ca: signer, dnsNames: settings.dnsNames, now: settings.now, validityDays: servingDays })
      serving = pair(minted)
      steps.push('serving-issued')
    }
  }

  const next: StoredCerts = { signer, bundle, ...(serving ? { serving } : {}) }
  const changed =
    signer.certPem !== stored.signer?.certPem ||
    signer.keyPem !== stored.signer?.keyPem ||
    bundle.join('') !== stored.bundle.join('') ||
    serving?.certPem !== stored.serving?.certPem ||
    serving?.keyPem !== stored.serving?.keyPem
  return { next, steps, changed }
}

/** Reads the Secret's decoded data. Missing keys are simply absent. */
export function storedFromData(data: Readonly<Record<string, string>>): StoredCerts {
  const signerCert = data[SecretKeys.signerCert]
  const signerKey = data[SecretKeys.signerKey]
  const servingCert = data[SecretKeys.servingCert]
  const servingKey = data[SecretKeys.servingKey]
  return {
    bundle: splitCertificates(data[SecretKeys.trustBundle] ?? ''),
    ...(signerCert && signerKey ? { signer: { certPem: signerCert, keyPem: signerKey } } : {}),
    ...(servingCert && servingKey ? { serving: { certPem: servingCert, keyPem: servingKey } } : {}),
  }
}

export function dataFromStored(s: StoredCerts): Record<string, string> {
  return {
    [SecretKeys.trustBundle]: s.bundle.join(''),
    ...(s.signer ? { [SecretKeys.signerCert]: s.signer.certPem, [SecretKeys.signerKey]: s.signer.keyPem } : {}),
    ...(s.serving ? { [SecretKeys.servingCert]: s.serving.certPem, [SecretKeys.servingKey]: s.serving.keyPem } : {}),
  }
}

export const daysToMs = (days: number): number => days * DAY_MS
