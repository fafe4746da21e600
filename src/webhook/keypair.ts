// Reading and checking the serving certificate and key. A pair is only used
// when the key belongs to the certificate, the certificate is within its
// validity window and OpenSSL accepts both: a half-written or mismatched pair
// (read in the middle of an update) is refused, and the caller keeps the old one.

import { createHash, createPrivateKey, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSecureContext } from 'node:tls'

export interface KeyPair {
  readonly cert: string
  readonly key: string
  readonly notBefore: Date
  readonly notAfter: Date
  /** SHA-256 of the certificate (DER), as colon-separated hex. */
  readonly fingerprint: string
  /** SHA-256 of both files' bytes: tells a real change from a touch. */
  readonly digest: string
}

export interface KeyPairFiles {
  readonly dir: string
  /** File names inside dir; Kubernetes TLS Secrets use tls.crt and tls.key. */
  readonly certFile: string
  readonly keyFile: string
}

export class KeyPairError extends Error {
  override readonly name = 'KeyPairError'
  readonly code = 'WEBHOOK_KEYPAIR_INVALID'
  readonly files: KeyPairFiles

  constructor(files: KeyPairFiles, detail: string, cause?: unknown) {
    super(
      `serving certificate ${join(files.dir, files.certFile)} / key ${join(files.dir, files.keyFile)}: ${detail}`,
      cause === undefined ? undefined : { cause },
    )
    this.files = files
  }
}

export interface RawKeyPair {
  readonly cert: Buffer
  readonly key: Buffer
  readonly digest: string
}

/** Reads both files; throws KeyPairError when either cannot be read. */
export function readKeyPairFiles(files: KeyPairFiles): RawKeyPair {
  try {
    const cert = readFileSync(join(files.dir, files.certFile))
    const key = readFileSync(join(files.dir, files.keyFile))
    return { cert, key, digest: createHash('sha256').update(cert).update('\0').update(key).digest('hex') }
  } catch (err) {
    throw new KeyPairError(files, `cannot read: ${(err as Error).message}`, err)
  }
}

/** Checks a pair already read; throws KeyPairError saying what is wrong. */
export function parseKeyPair(files: KeyPairFiles, raw: RawKeyPair, now: Date = new Date()): KeyPair {
  const { cert, key, digest } = raw
  let x509: X509Certificate
  try {
    x509 = new X509Certificate(cert)
  } catch (err) {
    throw new KeyPairError(files, `certificate does not parse: ${(err as Error).message}`, err)
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key))) throw new KeyPairError(files, 'the key does not belong to the certificate')
  } catch (err) {
    if (err instanceof KeyPairError) throw err
    throw new KeyPairError(files, `key does not parse: ${(err as Error).message}`, err)
  }
  const notBefore = new Date(x509.validFrom)
  const notAfter = new Date(x509.validTo)
  if (!(notAfter.getTime() > now.getTime())) throw new KeyPairError(files, `certificate expired at ${notAfter.toISOString()}`)
  try {
    // What the TLS server will do with the pair; catches what X509Certificate accepts but OpenSSL refuses.
    createSecureContext({ cert, key })
  } catch (err) {
    throw new KeyPairError(files, `rejected by TLS: ${(err as Error).message}`, err)
  }
  return { cert: cert.toString('utf8'), key: key.toString('utf8'), notBefore, notAfter, fingerprint: x509.fingerprint256, digest }
}

/** Reads and checks the pair. */
export function loadKeyPair(files: KeyPairFiles, now: Date = new Date()): KeyPair {
  return parseKeyPair(files, readKeyPairFiles(files), now)
}
