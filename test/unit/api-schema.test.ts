// Keeps the TypeScript types and the CRD schemas in step. A `Full<T>` example
// must spell out every field of the type (the compiler enforces that), every
// field of the example must exist in the schema, and every schema property
// must appear in the example. Values are checked against the schema's
// structural rules (type, enum, pattern, lengths, required, item counts);
// CEL rules are left to the API server.

import t from 'tap'
import type { JSONSchemaProps } from '../../src/api/schema.ts'
import type { TemplateSpec, TemplateStatus } from '../../src/api/template.ts'
import { templateSpecSchema, templateStatusSchema } from '../../src/api/template-schema.ts'
import type { TemplateInstanceSpec, TemplateInstanceStatus } from '../../src/api/templateinstance.ts'
import { templateInstanceSpecSchema, templateInstanceStatusSchema } from '../../src/api/templateinstance-schema.ts'

/** Every optional field required, recursively; fields typed `never` (union exclusions) dropped. */
type Full<T> = T extends readonly (infer E)[]
  ? Full<E>[]
  : T extends object
    ? { [K in keyof T as [NonNullable<T[K]>] extends [never] ? never : K]-?: Full<NonNullable<T[K]>> }
    : T

const condition = {
  type: 'Ready',
  status: 'True',
  reason: 'Reconciled',
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
  observedGeneration: 1,
} as const

const selector = { matchLabels: { kind: 'tenant' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } as const

const templateSpec: Full<TemplateSpec> = {
  gotemplate: 'apiVersion: v1\nkind: ConfigMap\n',
  helm: {
    chart: {
      repository: {
        url: 'oci://registry.example.com/charts',
        name: 'redis',
        version: 'v1.2.3-rc.1',
        auth: { secretRef: { name: 'creds' } },
      },
    },
    releaseName: 'redis',
    version: 'v4',
    valuesTemplate: 'fullnameOverride: x',
  },
  parameters: [
    { name: 'replicas', value: '2', type: 'number', required: false, disableOverride: true, exposeInStatus: true },
    { name: 'hosts', value: '["a","b"]', type: 'array', required: true, disableOverride: false, exposeInStatus: false },
  ],
  targetNamespaces: {
    explicit: { allow: { literal: ['shared-tools', '*'] } },
    selector: { ...selector, matchExpressions: [...selector.matchExpressions.map((e) => ({ ...e, values: [...e.values] }))] },
  },
  sync: { mode: 'strict', ignoreFields: ['spec.replicas', "metadata.annotations['example.com/x']"] },
  outputs: [
    {
      name: 'endpoint',
      from: { apiVersion: 'v1', kind: 'Service', name: '{.instance.name}-svc', namespace: '{.instance.namespace}' },
      fromAll: {
        apiVersion: 'v1',
        kind: 'Service',
        namespace: 'team-a',
        selector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'Exists', values: [] }] },
      },
      forEach: { jsonPath: '{.spec.ports}' },
      keyTemplate: '{.metadata.name}',
      fields: [{ name: 'clusterIP', jsonPath: '{.spec.clusterIP}' }],
    },
  ],
  grants: {
    parameterSources: [{ apiGroup: '', kind: 'Secret', namespace: 'shared', names: ['registry'] }],
    objects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: '*', namespace: '*', names: ['reader'] }],
  },
}

const templateStatus: Full<TemplateStatus> = {
  observedGeneration: 3,
  phase: 'Valid',
  conditions: [{ ...condition, type: 'Valid', reason: 'ValidationSucceeded' }],
}

const keyRef = { name: 'db', key: 'password', namespace: 'team-a' }

const instanceSpec: Full<TemplateInstanceSpec> = {
  templateRef: { name: 'web', namespace: 'platform' },
  parameters: [
    { name: 'a', value: 'x', valueFrom: { secretKeyRef: keyRef }, defaultValue: 'd' },
    { name: 'b', value: 'x', valueFrom: { configMapKeyRef: keyRef }, defaultValue: 'd' },
    {
      name: 'c',
      value: 'x',
      valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 's', namespace: 'n', jsonPath: '.spec.clusterIP' } },
      defaultValue: 'd',
    },
  ],
}

const instanceStatus: Full<TemplateInstanceStatus> = {
  observedGeneration: 1,
  phase: 'Failed',
  conditions: [condition],
  renderedResources: [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'app1-cfg', namespace: 'team-a', observedGeneration: 1, status: 'Failed' },
  ],
  resolvedParameters: [
    { name: 'a', value: ['x', { y: 1, z: [true, null] }], valueFrom: { secretKeyRef: keyRef } },
    { name: 'b', value: 'plain', valueFrom: { configMapKeyRef: keyRef } },
    {
      name: 'c',
      value: 7,
      valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', name: '', namespace: '', jsonPath: '.items[*].metadata.name' } },
    },
  ],
  resolvedTemplateRef: { name: 'web', namespace: 'platform', generation: 3 },
  trackedKinds: ['v1/ConfigMap', 'apps/v1/Deployment'],
  trackedGVKs: ['/v1/ConfigMap', 'apps/v1/Deployment'],
  firstAppliedAt: '2026-01-01T00:00:00Z',
  outputs: { clusterIP: { 'app1-svc': '10.0.0.1' } },
}

// ---- a small structural checker ---------------------------------------------------

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

/** Problems of `value` against `schema`; `seen` collects the schema property paths the value touched. */
function check(schema: JSONSchemaProps, value: unknown, path: string, seen: Set<string>, out: string[]): void {
  if (schema['x-kubernetes-preserve-unknown-fields'] && schema.type === undefined) return
  const ty = typeOf(value)
  const want = schema.type
  if (want !== undefined && !(ty === want || (want === 'number' && ty === 'integer'))) {
    out.push(`${path}: ${ty} is not ${want}`)
    return
  }
  if (schema.enum !== undefined && !schema.enum.includes(value as never)) out.push(`${path}: ${JSON.stringify(value)} not in enum`)
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.push(`${path}: shorter than ${schema.minLength}`)
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(`${path}: longer than ${schema.maxLength}`)
    if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) out.push(`${path}: does not match ${schema.pattern}`)
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${path}: more than ${schema.maxItems} items`)
    for (const [i, item] of value.entries()) check(schema.items ?? {}, item, `${path}[${i}]`, seen, out)
    return
  }
  if (ty === 'object') {
    const obj = value as Record<string, unknown>
    for (const req of schema.required ?? []) if (!(req in obj)) out.push(`${path}: missing required ${req}`)
    const n = Object.keys(obj).length
    if (schema.minProperties !== undefined && n < schema.minProperties) out.push(`${path}: fewer than ${schema.minProperties} properties`)
    if (schema.maxProperties !== undefined && n > schema.maxProperties) out.push(`${path}: more than ${schema.maxProperties} properties`)
    for (const [k, v] of Object.entries(obj)) {
      const prop = schema.properties?.[k]
      if (prop !== undefined) {
        seen.add(`${path}.${k}`.replace(/\[\d+\]/g, '[]'))
        check(prop, v, `${path}.${k}`, seen, out)
      } else if (schema.additionalProperties !== undefined) {
        check(schema.additionalProperties, v, `${path}.${k}`, seen, out)
      } else if (!schema['x-kubernetes-preserve-unknown-fields']) {
        out.push(`${path}.${k}: not in the schema`)
      }
    }
  }
}

/** Every property path declared by the schema, in the same notation as `seen`. */
function declared(schema: JSONSchemaProps, path: string, out: Set<string>): Set<string> {
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    out.add(`${path}.${k}`)
    declared(prop, `${path}.${k}`, out)
  }
  if (schema.items !== undefined) declared(schema.items, `${path}[]`, out)
  return out
}

const pairs: [string, JSONSchemaProps, unknown][] = [
  ['Template.spec', templateSpecSchema, templateSpec],
  ['Template.status', templateStatusSchema, templateStatus],
  ['TemplateInstance.spec', templateInstanceSpecSchema, instanceSpec],
  ['TemplateInstance.status', templateInstanceStatusSchema, instanceStatus],
]

for (const [name, schema, example] of pairs) {
  t.test(`${name}: every typed field is in the schema and valid`, async (t) => {
    const problems: string[] = []
    check(schema, example, name, new Set(), problems)
    t.strictSame(problems, [])
  })
  t.test(`${name}: every schema field exists in the types`, async (t) => {
    const seen = new Set<string>()
    check(schema, example, name, seen, [])
    const missing = [...declared(schema, name, new Set())].filter((p) => !seen.has(p))
    t.strictSame(missing, [], 'schema properties with no counterpart in the full example')
  })
}

t.test('the checker itself notices problems', async (t) => {
  const problems: string[] = []
  check(templateSpecSchema, { sync: { mode: 'sometimes', extra: 1 }, parameters: [{ value: 3 }] }, 'x', new Set(), problems)
  t.ok(problems.some((p) => p.includes('not in enum')))
  t.ok(problems.some((p) => p.includes('x.sync.extra: not in the schema')))
  t.ok(problems.some((p) => p.includes('missing required name')))
  t.ok(problems.some((p) => p.includes('integer is not string')))
})
