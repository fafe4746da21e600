// `kubectl describe` prints each field name of our status as words split at
// every capital letter, so a run of capitals reads badly (trackedGVKs became
// "Tracked GV Ks"). Every status field name must be lower-case words joined
// in camelCase; the one exception is a deprecated field kept only so that an
// older value survives an upgrade.

import t from 'tap'
import type { JSONSchemaProps } from '../../src/api/schema.ts'
import { templateStatusSchema } from '../../src/api/template-schema.ts'
import { templateInstanceStatusSchema } from '../../src/api/templateinstance-schema.ts'

const WORDS = /^[a-z]+(?:[A-Z][a-z]+)*$/
const DEPRECATED = new Set(['status.trackedGVKs'])

function fieldNames(schema: JSONSchemaProps, path: string, out: string[]): string[] {
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    out.push(`${path}.${name}`)
    fieldNames(sub, `${path}.${name}`, out)
  }
  if (schema.items && !Array.isArray(schema.items)) fieldNames(schema.items as JSONSchemaProps, path, out)
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    fieldNames(schema.additionalProperties, `${path}.*`, out)
  }
  return out
}

for (const [kind, schema] of [
  ['TemplateInstance', templateInstanceStatusSchema],
  ['Template', templateStatusSchema],
] as const) {
  t.test(`${kind} status field names read as words in kubectl describe`, async (t) => {
    const names = fieldNames(schema, 'status', [])
    t.ok(names.length > 5, 'the walk found the fields')
    for (const path of names) {
      if (DEPRECATED.has(path)) continue
      const leaf = path.slice(path.lastIndexOf('.') + 1)
      t.match(leaf, WORDS, path)
    }
  })
}

t.test('the tracked kinds field is trackedKinds', async (t) => {
  t.ok(templateInstanceStatusSchema.properties?.trackedKinds, 'present')
  t.match('trackedKinds', WORDS)
  t.notMatch('trackedGVKs', WORDS, 'the rule catches the old name')
})
