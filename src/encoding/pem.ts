// PEM armour (RFC 7468) for DER bytes, as Go's encoding/pem writes and reads
// it, and splitting a bundle of certificates.

/** One PEM block; an empty body gives BEGIN and END lines only, like pem.Encode. */
export function toPem(label: string, der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.map((l) => `${l}\n`).join('')}-----END ${label}-----\n`
}

/** The first PEM block of text, as encoding/pem's Decode finds it. */
export function decodePem(text: string): { type: string; der: Uint8Array } | undefined {
  const m = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text)
  if (!m) return undefined
  const body = (m[2] ?? '').replace(/[\r\n \t]/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined
  return { type: m[1] ?? '', der: Uint8Array.from(Buffer.from(body, 'base64')) }
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g

/** Every certificate block in a PEM bundle, each ending with a newline; other blocks are dropped. */
export function splitCertificates(bundle: string): string[] {
  return (bundle.match(CERT_BLOCK) ?? []).map((b) => `${b}\n`)
}
