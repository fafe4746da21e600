// YAML documents of a chart decoded as Helm decodes them. Helm reads
// Chart.yaml, Chart.lock and (in Helm 3) values.yaml with sigs.k8s.io/yaml's
// Unmarshal, which is go-yaml v2 reading the *first* document only; Helm 4
// reads values.yaml with Kubernetes' document reader and merges every
// document. Both go through the go-yaml v2 scalar rules of src/encoding/yaml.ts.

import { parseYamlStream, YamlDocumentError } from '../../encoding/yaml.ts'
import type { HelmVersion, JsonMap } from './types.ts'

export class ChartYamlError extends Error {
  override readonly name = 'ChartYamlError'
  constructor(message: string) {
    super(message)
  }
}

/** A document start ("---") or end ("...") marker line. */
const MARKER = /^(---|\.\.\.)(\s|$)/

/**
 * The text of the first YAML document: everything up to the second document
 * marker. go-yaml v2 never reads further, so a broken later document is not
 * an error in Helm 3.
 */
function firstDocument(text: string): string {
  const lines = text.split('\n')
  let opened = false
  let seenContent = false
  for (const [i, line] of lines.entries()) {
    const marker = MARKER.exec(line)
    if (marker !== null) {
      if (marker[1] === '...' || opened || seenContent) return lines.slice(0, i).join('\n')
      // A leading "---" opens the first document; content may follow on its line.
      opened = true
      continue
    }
    const t = line.trim()
    if (t !== '' && !t.startsWith('#') && !t.startsWith('%')) seenContent = true
  }
  return text
}

function decodeDocuments(text: string): unknown[] {
  try {
    return parseYamlStream(text).map((d) => d.value)
  } catch (err) {
    if (err instanceof YamlDocumentError) throw new ChartYamlError(err.message.replace(/^rendered document (\d+): /, 'document $1: '))
    throw err
  }
}

/** The first document's value, or null for an empty document (what go-yaml yields). */
export function decodeFirstDocument(text: string): unknown {
  const [value] = decodeDocuments(firstDocument(text))
  return value ?? null
}

function asValuesMap(value: unknown, what: string): JsonMap {
  if (value === null || value === undefined) return {}
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ChartYamlError(`${what} must be a YAML mapping, found ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}`)
  }
  return value as JsonMap
}

/** Helm's MergeMaps (values documents, -f files): maps merge recursively, anything else is replaced by the later one. */
export function mergeMaps(a: JsonMap, b: JsonMap): JsonMap {
  const out: JsonMap = { ...a }
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k]
    const merged = isMap(v) && isMap(prev) ? mergeMaps(prev, v) : v
    Object.defineProperty(out, k, { value: merged, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** values.yaml (or a values file) as the given Helm major reads it. */
export function decodeValues(text: string, helm: HelmVersion): JsonMap {
  if (helm === 'v3') return asValuesMap(decodeFirstDocument(text), 'values')
  let out: JsonMap = {}
  decodeDocuments(text).forEach((doc, i) => {
    out = mergeMaps(out, asValuesMap(doc, `values document ${i + 1}`))
  })
  return out
}
