import t from 'tap'
import { crdManifests, templateCrd, templateInstanceCrd, type CustomResourceDefinition } from '../../src/api/crds.ts'
import { GROUP, VERSION } from '../../src/api/names.ts'
import type { JSONSchemaProps } from '../../src/api/schema.ts'
import { HELM_RELEASE_NAME_PATTERN, HELM_URL_PATTERN, SEMVER_PATTERN } from '../../src/api/template-schema.ts'
import { crdFiles, staleFiles, writtenForm } from '../../scripts/gen-crds.ts'

function schemaOf(crd: CustomResourceDefinition): JSONSchemaProps {
  const version = crd.spec.versions[0]
  if (version === undefined) throw new Error('no version')
  return version.schema.openAPIV3Schema
}

/** The schema node at a dotted path; "[]" steps into list items. */
function at(schema: JSONSchemaProps, path: string): JSONSchemaProps {
  let node = schema
  for (const step of path.split('.')) {
    const next = step === '[]' ? node.items : node.properties?.[step]
    if (next === undefined) throw new Error(`no schema node at ${path} (${step})`)
    node = next
  }
  return node
}

function rulesAt(schema: JSONSchemaProps, path: string): string[] {
  return (at(schema, path)['x-kubernetes-validations'] ?? []).map((r) => r.rule)
}

/** Calls visit for every node with its path. */
function walk(
  node: JSONSchemaProps,
  path: string,
  visit: (n: JSONSchemaProps, p: string, ancestors: JSONSchemaProps[]) => void,
  ancestors: JSONSchemaProps[] = [],
): void {
  visit(node, path, ancestors)
  const below = [...ancestors, node]
  for (const [k, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${k}`, visit, below)
  if (node.items !== undefined) walk(node.items, `${path}[]`, visit, below)
  if (node.additionalProperties !== undefined) walk(node.additionalProperties, `${path}{}`, visit, below)
}

const template = schemaOf(templateCrd())
const instance = schemaOf(templateInstanceCrd())

t.test('the chart carries the generated CRDs (run npm run gen:crds after changing src/api)', async (t) => {
  t.strictSame(staleFiles(), [])
  const files = crdFiles()
  t.strictSame(
    files.map((f) => f.path.replace(/.*charts\//, 'charts/')),
    ['charts/template-sync/crds/templates.yaml', 'charts/template-sync/crds/templateinstances.yaml'],
  )
  for (const f of files) t.match(f.content, /^# Generated from src\/api/)
})

t.test('the YAML writer reproduces every field of both CRDs', async (t) => {
  for (const crd of crdManifests()) t.strictSame(writtenForm(crd), JSON.parse(JSON.stringify(crd)), crd.metadata.name)
})

t.test('crdManifests returns fresh objects each call', async (t) => {
  const a = crdManifests()
  ;(a[0] as CustomResourceDefinition).spec.group = 'changed'
  t.equal(crdManifests()[0]?.spec.group, GROUP)
})

t.test('both CRDs: namespaced, one served+storage version, status subresource, names', async (t) => {
  const want = [
    { name: `templates.${GROUP}`, kind: 'Template', plural: 'templates', short: ['tpl'] },
    { name: `templateinstances.${GROUP}`, kind: 'TemplateInstance', plural: 'templateinstances', short: ['tpli'] },
  ]
  const crds = crdManifests()
  t.equal(crds.length, 2)
  crds.forEach((crd, i) => {
    const w = want[i]!
    t.equal(crd.apiVersion, 'apiextensions.k8s.io/v1')
    t.equal(crd.metadata.name, w.name)
    t.equal(crd.metadata.name, `${crd.spec.names.plural}.${crd.spec.group}`)
    t.equal(crd.spec.scope, 'Namespaced')
    t.strictSame(crd.spec.names, {
      kind: w.kind,
      listKind: `${w.kind}List`,
      plural: w.plural,
      singular: w.kind.toLowerCase(),
      shortNames: w.short,
      categories: ['template-sync'],
    })
    t.equal(crd.spec.versions.length, 1)
    const v = crd.spec.versions[0]!
    t.equal(v.name, VERSION)
    t.equal(v.served, true)
    t.equal(v.storage, true)
    t.strictSame(v.subresources, { status: {} })
    t.strictSame(schemaOf(crd).required, ['spec'])
  })
})

t.test('printer columns', async (t) => {
  const cols = (crd: CustomResourceDefinition): [string, string, number][] =>
    crd.spec.versions[0]!.additionalPrinterColumns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])
  t.strictSame(cols(templateCrd()), [
    ['Mode', '.spec.sync.mode', 0],
    ['Phase', '.status.phase', 0],
    ['Age', '.metadata.creationTimestamp', 0],
  ])
  t.strictSame(cols(templateInstanceCrd()), [
    ['Template', '.spec.templateRef.name', 0],
    ['Ready', '.status.conditions[?(@.type=="Ready")].status', 0],
    ['Reason', '.status.conditions[?(@.type=="Ready")].reason', 0],
    ['Sync', '.status.conditions[?(@.type=="Synced")].reason', 0],
    ['Age', '.metadata.creationTimestamp', 0],
    ['Template-Namespace', '.spec.templateRef.namespace', 1],
    ['Phase', '.status.phase', 1],
    ['Synced', '.status.conditions[?(@.type=="Synced")].status', 1],
  ])
})

t.test('the schemas are structural', async (t) => {
  for (const [name, schema] of [
    ['Template', template],
    ['TemplateInstance', instance],
  ] as const) {
    const problems: string[] = []
    walk(schema, name, (node, path) => {
      if (node.type === undefined && !node['x-kubernetes-preserve-unknown-fields']) problems.push(`${path}: no type`)
      if (node.type === 'array' && node.items === undefined) problems.push(`${path}: array without items`)
      if (node.properties !== undefined && node.additionalProperties !== undefined)
        problems.push(`${path}: properties and additionalProperties`)
      if (node.type !== 'object' && (node.properties !== undefined || node.additionalProperties !== undefined))
        problems.push(`${path}: properties on a non-object`)
      if (node['x-kubernetes-list-type'] === 'map') {
        const keys = node['x-kubernetes-list-map-keys'] ?? []
        if (keys.length === 0) problems.push(`${path}: map list without keys`)
        for (const k of keys) if (!(node.items?.required ?? []).includes(k)) problems.push(`${path}: map key ${k} not required`)
      }
    })
    t.strictSame(problems, [], name)
  }
})

t.test('every list or string a CEL rule reads is bounded', async (t) => {
  for (const [name, schema] of [
    ['Template', template],
    ['TemplateInstance', instance],
  ] as const) {
    const problems: string[] = []
    walk(schema, name, (node, path, ancestors) => {
      const rules = node['x-kubernetes-validations'] ?? []
      if (rules.length === 0) return
      // Lists around a rule multiply its cost.
      ancestors.forEach((a, i) => {
        if (a.type === 'array' && a.maxItems === undefined) problems.push(`${path}: enclosing list #${i} has no maxItems`)
      })
      for (const { rule } of rules) {
        for (const m of rule.matchAll(/\bself\.([A-Za-z]+)\.(startsWith|endsWith|matches|contains|size|all|exists|map|filter)\(/g)) {
          const field = node.properties?.[m[1]!]
          if (field?.type === 'string' && field.maxLength === undefined)
            problems.push(`${path}.${m[1]}: string read by CEL has no maxLength`)
          if (field?.type === 'array' && field.maxItems === undefined) problems.push(`${path}.${m[1]}: list read by CEL has no maxItems`)
        }
      }
    })
    t.strictSame(problems, [], name)
  }
  t.equal(at(template, 'spec.outputs').maxItems, 16)
  t.equal(at(template, 'spec.outputs.[].fields').maxItems, 16)
  t.equal(at(template, 'spec.outputs.[].fields.[].name').maxLength, 63)
})

t.test('Template: documented validation', async (t) => {
  t.strictSame(rulesAt(template, 'spec')[0], 'has(self.gotemplate) != has(self.helm)')
  t.match(rulesAt(template, 'spec')[1], /output|fields/)
  t.strictSame(rulesAt(template, 'spec.parameters.[]'), [
    '!(has(self.required) && self.required && has(self.disableOverride) && self.disableOverride)',
  ])
  t.equal(at(template, 'spec.parameters.[].name').minLength, 1)
  t.strictSame(at(template, 'spec.parameters.[].type').enum, ['string', 'number', 'bool', 'array', 'object'])
  t.strictSame(at(template, 'spec.parameters')['x-kubernetes-list-map-keys'], ['name'], 'parameter names are unique')
  t.strictSame(at(template, 'spec.sync.mode').enum, ['off', 'revert', 'strict'])
  t.equal(at(template, 'spec.sync.mode').default, 'off')
  t.strictSame(at(template, 'spec.sync').default, {}, 'an absent sync block defaults to mode off')
  t.equal(at(template, 'spec.helm.releaseName').maxLength, 53)
  t.strictSame(at(template, 'spec.helm.version').enum, ['v3', 'v4'])
  t.equal(at(template, 'spec.helm.version').default, 'v3', 'Helm 3 unless the Template says otherwise (docs/helm-templates.md)')
  t.equal(at(template, 'spec.helm.releaseName').pattern, HELM_RELEASE_NAME_PATTERN)
  t.equal(at(template, 'spec.helm.chart.repository.url').pattern, HELM_URL_PATTERN)
  t.equal(at(template, 'spec.helm.chart.repository.version').pattern, SEMVER_PATTERN)
  t.equal(at(template, 'spec.helm.chart.repository.version').minLength, 5)
  t.strictSame(at(template, 'spec.helm.chart.repository.auth').required, ['secretRef'])
  t.strictSame(rulesAt(template, 'spec.outputs.[]'), ['has(self.from) != has(self.fromAll)', '!has(self.forEach) || has(self.from)'])
  t.strictSame(at(template, 'status.phase').enum, ['Valid', 'Invalid', 'Error'])
})

t.test('helm patterns accept exact versions and reject ranges', async (t) => {
  const url = new RegExp(HELM_URL_PATTERN)
  for (const ok of ['https://charts.example.com', 'http://x', 'oci://ghcr.io/acme/charts']) t.ok(url.test(ok), ok)
  for (const bad of ['ftp://x', 'ghcr.io/acme', 'OCI://x']) t.notOk(url.test(bad), bad)
  const semver = new RegExp(SEMVER_PATTERN)
  for (const ok of ['1.2.3', 'v1.2.3', '0.0.0', '1.2.3-rc.1', '1.2.3+build.5', 'v10.20.30-alpha-1+x.y']) t.ok(semver.test(ok), ok)
  const release = new RegExp(HELM_RELEASE_NAME_PATTERN)
  for (const ok of ['web', 'web-1', 'a.b-c', '0x']) t.ok(release.test(ok), ok)
  for (const bad of ['Web', 'web_1', '-web', 'web-', 'a..b', '']) t.notOk(release.test(bad), bad)
  for (const bad of ['1.2', '^1.2.3', '~1.2.3', '>=1.0.0', 'latest', '01.2.3', '1.2.3.4', '1.x.3']) t.notOk(semver.test(bad), bad)
})

t.test('TemplateInstance: documented validation', async (t) => {
  t.strictSame(at(instance, 'spec').required, ['templateRef'])
  t.strictSame(at(instance, 'spec.templateRef').required, ['name', 'namespace'])
  t.strictSame(rulesAt(instance, 'spec.parameters.[]'), [
    'has(self.value) != has(self.valueFrom)',
    '!has(self.defaultValue) || has(self.valueFrom)',
  ])
  t.equal(at(instance, 'spec.parameters.[].name').minLength, 1)
  const valueFrom = at(instance, 'spec.parameters.[].valueFrom')
  t.equal(valueFrom.minProperties, 1)
  t.equal(valueFrom.maxProperties, 1)
  t.strictSame(Object.keys(valueFrom.properties ?? {}), ['secretKeyRef', 'configMapKeyRef', 'objectFieldRef'])
  t.strictSame(rulesAt(instance, 'spec.parameters.[].valueFrom.objectFieldRef'), ["self.jsonPath.startsWith('.')"])
  t.equal(at(instance, 'spec.parameters.[].valueFrom.objectFieldRef.jsonPath').maxLength, 1024)
  t.equal(at(instance, 'metadata.name').maxLength, 63, 'the name must fit a label value')
  t.equal(at(instance, 'status.renderedResources').maxItems, 500)
  t.strictSame(at(instance, 'status.renderedResources.[].status').enum, ['', 'Failed'])
  t.strictSame(at(instance, 'status.phase').enum, ['Ready', 'Failed'])
  t.equal(at(instance, 'status.resolvedParameters.[].value')['x-kubernetes-preserve-unknown-fields'], true)
  t.equal(at(instance, 'status.resolvedParameters.[].value').type, undefined, 'any JSON value')
  t.equal(at(instance, 'status.outputs').additionalProperties?.additionalProperties?.type, 'string')
  t.equal(at(instance, 'status.firstAppliedAt').format, 'date-time')
  t.strictSame(at(instance, 'status.conditions')['x-kubernetes-list-map-keys'], ['type'])
  t.strictSame(at(instance, 'status.conditions.[]').required, ['type', 'status', 'reason', 'message', 'lastTransitionTime'])
})
