// PEM armour for DER bytes, and splitting a bundle of certificates.

export function toPem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64')
  const lines = b64.match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g

/** Every certificate block in a PEM bundle, each ending with a newline; other blocks are dropped. */
export function splitCertificates(bundle: string): string[] {
  return (bundle.match(CERT_BLOCK) ?? []).map((b) => `${b}\n`)
}
