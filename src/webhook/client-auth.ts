// Client-certificate authentication of the API server. The API server can
// present a client certificate to webhooks (its admission configuration
// points at a kubeconfig with one); with a CA configured here, the TLS
// listener requests a certificate, and a connection without one signed by
// that CA fails the handshake. Names narrow it further: a certificate from
// the CA whose subject CN and DNS names are all outside the list is cut off
// as soon as the handshake completes, before any byte of HTTP is read.

import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { PeerCertificate, TLSSocket } from 'node:tls'

export interface ClientAuth {
  /** PEM bundle of the CA(s) that sign the API server's client certificate. */
  readonly ca: string | Buffer
  /** Accepted subject CNs or DNS SANs; empty accepts any certificate from the CA. */
  readonly names: readonly string[]
}

/** The names a certificate claims: its subject CN and its DNS subject alternative names. */
export function certificateNames(cert: Pick<PeerCertificate, 'subject' | 'subjectaltname'> | undefined): string[] {
  if (cert === undefined) return []
  const names: string[] = []
  const cn = (cert.subject as unknown as Record<string, string | string[] | undefined> | undefined)?.CN
  for (const n of Array.isArray(cn) ? cn : cn === undefined ? [] : [cn]) names.push(n)
  for (const part of (cert.subjectaltname ?? '').split(',')) {
    const m = /^\s*DNS:(.+?)\s*$/.exec(part)
    if (m?.[1] !== undefined) names.push(m[1])
  }
  return names
}

/** True when no names are configured, or the certificate claims one of them. */
export function nameAllowed(cert: Pick<PeerCertificate, 'subject' | 'subjectaltname'> | undefined, names: readonly string[]): boolean {
  if (names.length === 0) return true
  return certificateNames(cert).some((n) => names.includes(n))
}

/** The TLS server options that make the handshake require a certificate from the CA. */
export function clientAuthTlsOptions(auth: ClientAuth | undefined): {
  requestCert?: boolean
  rejectUnauthorized?: boolean
  ca?: string | Buffer
} {
  return auth === undefined ? {} : { requestCert: true, rejectUnauthorized: true, ca: auth.ca }
}

/** Checks an established connection's certificate against the names; false means it was destroyed. */
export function admitConnection(socket: TLSSocket, auth: ClientAuth | undefined): boolean {
  if (auth === undefined || auth.names.length === 0) return true
  if (nameAllowed(socket.getPeerCertificate(), auth.names)) return true
  socket.destroy()
  return false
}

/** Reads a CA bundle and checks that it holds at least one CA certificate; throws saying what is wrong. */
export function readClientCa(file: string): string {
  const pem = readFileSync(file, 'utf8')
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  if (blocks.length === 0) throw new Error(`${file}: no PEM certificate in the client CA bundle`)
  for (const block of blocks) {
    const cert = new X509Certificate(block)
    if (!cert.ca) throw new Error(`${file}: ${cert.subject.replaceAll('\n', ', ')} is not a CA certificate`)
  }
  return pem
}
