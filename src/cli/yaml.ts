// YAML in and out of the CLI.
//
// In: manifests are decoded with the render package's reader, which resolves
// scalars as Kubernetes' Go tooling does (YAML 1.1), so a file means here
// what it means to kubectl apply.
//
// Out: js-yaml's dump on the plain objects. The client library's
// dumpYaml/loadAllYaml are not used: both pass known kinds through the
// generated models, which drops every field the model lacks (a misspelt
// Deployment field, or any top-level field of a ConfigMap other than the
// typed ones, vanishes from the output) and reorders keys alphabetically. A
// preview must show exactly what would be applied. js-yaml quotes strings
// that a YAML 1.1 reader would take for something else ('yes', '0644', ...),
// so the output reads back unchanged through kubectl.

import { readFileSync } from 'node:fs'
import { dump } from 'js-yaml'
import { GROUP } from '../api/names.ts'
import { parseYamlStream, YamlDocumentError } from '../encoding/yaml.ts'
import { CommandError } from './args.ts'

export const MASK = '*****'

/** The one document of `kind` (in the template-sync API group) in a YAML file. */
export function loadManifest(path: string, kind: 'Template' | 'TemplateInstance'): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new CommandError(`cannot read ${path}: ${(err as Error).message}`, 1, { cause: err })
  }
  let docs
  try {
    docs = parseYamlStream(text)
  } catch (err) {
    if (err instanceof YamlDocumentError) throw new CommandError(`${path}: ${err.message.replace(/^rendered /, '')}`, 1, { cause: err })
    throw err
  }
  const found = docs.filter((d) => isMapping(d.value) && d.value['kind'] === kind && groupOf(d.value['apiVersion']) === GROUP)
  const only = found[0]
  if (found.length !== 1 || only === undefined || !isMapping(only.value)) {
    const what = found.length === 0 ? 'no' : `${found.length}`
    throw new CommandError(`${path}: expected one ${kind} (apiVersion ${GROUP}/...), found ${what}`, 1)
  }
  const obj = only.value
  if (!isMapping(obj['metadata']) || typeof obj['metadata']['name'] !== 'string' || obj['metadata']['name'] === '') {
    throw new CommandError(`${path}: the ${kind} (document ${only.document}) has no metadata.name`, 1)
  }
  if (!isMapping(obj['spec'])) throw new CommandError(`${path}: the ${kind} (document ${only.document}) has no spec`, 1)
  return obj
}

function groupOf(apiVersion: unknown): string | undefined {
  if (typeof apiVersion !== 'string') return undefined
  const slash = apiVersion.indexOf('/')
  return slash < 0 ? '' : apiVersion.slice(0, slash)
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A YAML stream: one document per object, separated by `---`. */
export function dumpDocuments(objects: readonly unknown[]): string {
  return objects.map((o) => dump(o, { noRefs: true, lineWidth: -1 })).join('---\n')
}

export function isSecret(obj: { apiVersion?: unknown; kind?: unknown }): boolean {
  return obj.apiVersion === 'v1' && obj.kind === 'Secret'
}

/** A copy of a Secret with every data and stringData value replaced by MASK; other objects as they are. */
export function maskSecret<T extends { apiVersion?: unknown; kind?: unknown }>(obj: T): T {
  if (!isSecret(obj)) return obj
  const out: Record<string, unknown> = { ...obj }
  for (const field of ['data', 'stringData']) {
    const values = out[field]
    if (isMapping(values)) out[field] = Object.fromEntries(Object.keys(values).map((k) => [k, MASK]))
  }
  return out as T
}
