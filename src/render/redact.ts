// Values read from Secrets go into the objects a Template renders and
// nowhere else: not into conditions, Events, logs or status.outputs. They can
// reach a message without anyone meaning it: the API server quotes an invalid
// value in a dry-run error, a template's `fail` prints what it was given. So
// every text a pass sends out goes through a redactor built from the values
// it read (docs/security.md).

/** What stands in for a redacted value. */
export const REDACTED = '[redacted]'

/**
 * Shorter values are left alone: they would turn ordinary words and numbers
 * of every message into the marker, and a secret that short is no secret.
 */
export const MIN_REDACTED_LENGTH = 4

export type Redact = (text: string) => string

export const NO_REDACTION: Redact = (text) => text

/** Every string inside a value: the value itself, or the leaves of a list or map. */
function strings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) for (const v of value) strings(v, out)
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) strings(v, out)
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * The forms in which a secret value may appear: as read, base64-encoded (a
 * Template that writes it into a Secret's data), and decoded when it is base64
 * of printable text (Secret data read with objectFieldRef, then b64dec).
 */
export function secretForms(values: readonly unknown[]): string[] {
  const leaves: string[] = []
  for (const v of values) strings(v, leaves)
  const forms = new Set<string>()
  for (const s of leaves) {
    if (s.length < MIN_REDACTED_LENGTH) continue
    forms.add(s)
    forms.add(Buffer.from(s, 'utf8').toString('base64'))
    if (BASE64.test(s)) {
      const decoded = Buffer.from(s, 'base64').toString('utf8')
      if (!/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(decoded)) forms.add(decoded)
    }
  }
  // Longest first, so that a value containing another is replaced whole.
  return [...forms].filter((f) => f.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length)
}

/** A function that replaces every form of the values in a text; the identity when there are none. */
export function redactor(values: readonly unknown[]): Redact {
  const forms = secretForms(values)
  if (forms.length === 0) return NO_REDACTION
  return (text) => {
    let out = text
    for (const f of forms) if (out.includes(f)) out = out.split(f).join(REDACTED)
    return out
  }
}

/** A copy of a JSON value with every string redacted (map keys too). */
export function redactValue<T>(value: T, redact: Redact): T {
  if (redact === NO_REDACTION) return value
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v)
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v))
        Object.defineProperty(out, redact(k), { value: walk(x), enumerable: true, writable: true, configurable: true })
      return out
    }
    return v
  }
  return walk(value) as T
}

/**
 * A Secret as outputs may read it: everything but data and stringData, so
 * that no output copies a Secret's content into status.outputs.
 */
export function withoutSecretData<T>(obj: T): T {
  if (typeof obj !== 'object' || obj === null) return obj
  const o = obj as Record<string, unknown>
  if (o.kind !== 'Secret' || o.apiVersion !== 'v1' || (!('data' in o) && !('stringData' in o))) return obj
  const { data: _data, stringData: _stringData, ...rest } = o
  return rest as T
}
