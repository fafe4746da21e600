import t from 'tap'
import type { Template, TemplateParameterDefinition } from '../../src/api/template.ts'
import type { ObjectFieldRef, TemplateInstance, TemplateParameter } from '../../src/api/templateinstance.ts'
import { resolveParameters } from '../../src/render/params.ts'
import type { ParameterResult } from '../../src/render/params.ts'
import { SourceError } from '../../src/render/sources.ts'
import type { ParameterSources } from '../../src/render/sources.ts'
import type { ParamValue } from '../../src/render/types.ts'

/** Secrets and ConfigMaps by "ns/name", objectFieldRef answers by "kind/name" (or "kind" for a LIST). */
class FakeSources implements ParameterSources {
  readonly calls: string[] = []
  readonly secrets: Record<string, Record<string, string>> = {}
  readonly configMaps: Record<string, Record<string, string>> = {}
  readonly objects: Record<string, ParamValue | Error> = {}
  /** Scope by kind; kinds not listed are namespaced. */
  readonly scopes: Record<string, boolean | undefined> = { Node: false, Namespace: false, Unserved: undefined }

  async namespaced(_apiVersion: string, kind: string): Promise<boolean | undefined> {
    return Object.hasOwn(this.scopes, kind) ? this.scopes[kind] : true
  }

  async secretValue(namespace: string, name: string, key: string): Promise<string> {
    this.calls.push(`secret ${namespace}/${name} ${key}`)
    const v = this.secrets[`${namespace}/${name}`]
    if (v === undefined) throw new SourceError(`Secret ${namespace}/${name} not found`)
    const d = v[key]
    if (d === undefined) throw new SourceError(`Secret ${namespace}/${name} has no key ${JSON.stringify(key)}`)
    return d
  }

  async configMapValue(namespace: string, name: string, key: string): Promise<string> {
    this.calls.push(`configmap ${namespace}/${name} ${key}`)
    const d = this.configMaps[`${namespace}/${name}`]?.[key]
    if (d === undefined) throw new SourceError(`ConfigMap ${namespace}/${name} has no key ${JSON.stringify(key)}`)
    return d
  }

  async objectField(ref: ObjectFieldRef, defaultNamespace: string): Promise<ParamValue> {
    this.calls.push(`object ${ref.kind}/${ref.name ?? '*'} ${ref.namespace ?? `(default ${defaultNamespace})`} ${ref.jsonPath}`)
    const v = this.objects[ref.name === undefined ? ref.kind : `${ref.kind}/${ref.name}`]
    if (v === undefined) throw new SourceError(`${ref.kind} ${ref.name ?? ''} not found`)
    if (v instanceof Error) throw v
    return v
  }
}

/**
 * Grants every read, so that the cases below are about resolution itself; the
 * tenancy cases at the end of the file use a Template without grants.
 */
const OPEN: NonNullable<Template['spec']['grants']> = {
  parameterSources: [
    { apiGroup: '*', kind: '*', namespace: '*' },
    { apiGroup: '*', kind: '*' },
  ],
}

/** `grants` null: a Template without grants. */
function template(parameters: TemplateParameterDefinition[], grants: Template['spec']['grants'] | null = OPEN): Template {
  const spec: Template['spec'] = { gotemplate: '', parameters }
  if (grants !== null) spec.grants = grants
  return { metadata: { name: 'web-cfg', namespace: 'platform' }, spec }
}

function instance(parameters?: TemplateParameter[]): TemplateInstance {
  const spec: TemplateInstance['spec'] = { templateRef: { name: 'web-cfg', namespace: 'platform' } }
  if (parameters !== undefined) spec.parameters = parameters
  return { metadata: { name: 'app1', namespace: 'team-a' }, spec }
}

function run(decls: TemplateParameterDefinition[], params?: TemplateParameter[], sources = new FakeSources()) {
  return resolveParameters({ template: template(decls), instance: instance(params), sources })
}

function values(r: ParameterResult): Record<string, ParamValue> {
  if (!r.ok) throw new Error(`expected success, got ${r.reason}: ${r.message}`)
  return { ...r.values }
}

interface FailureCase {
  readonly name: string
  readonly decls: TemplateParameterDefinition[]
  readonly params?: TemplateParameter[]
  readonly setup?: (s: FakeSources) => void
  readonly reason: 'InvalidParameter' | 'OverrideNotAllowed' | 'ParameterResolutionFailed'
  readonly message: string | RegExp
  readonly parameter?: string
}

const failures: FailureCase[] = [
  {
    name: 'an instance entry the Template does not declare',
    decls: [{ name: 'owner' }],
    params: [
      { name: 'owner', value: 'x' },
      { name: 'colour', value: 'red' },
    ],
    reason: 'InvalidParameter',
    message: 'parameter "colour" is not declared by Template platform/web-cfg',
    parameter: 'colour',
  },
  {
    name: 'an override of a disableOverride parameter (value)',
    decls: [{ name: 'imageRegistry', value: 'ghcr.io/acme', disableOverride: true }],
    params: [{ name: 'imageRegistry', value: 'evil.example' }],
    reason: 'OverrideNotAllowed',
    message: 'parameter "imageRegistry" is locked by Template platform/web-cfg (disableOverride) and cannot be set by this instance',
    parameter: 'imageRegistry',
  },
  {
    name: 'an override of a disableOverride parameter (valueFrom)',
    decls: [{ name: 'imageRegistry', disableOverride: true }],
    params: [{ name: 'imageRegistry', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'registry' } } }],
    reason: 'OverrideNotAllowed',
    message: /parameter "imageRegistry" is locked/,
  },
  {
    name: 'a required parameter the instance does not set',
    decls: [{ name: 'owner', required: true }],
    reason: 'InvalidParameter',
    message: 'parameter "owner" is required by Template platform/web-cfg but the instance does not set it',
    parameter: 'owner',
  },
  {
    name: 'a required parameter ignores the Template default',
    decls: [{ name: 'owner', required: true, value: 'nobody' }],
    params: [],
    reason: 'InvalidParameter',
    message: /"owner" is required/,
  },
  {
    name: 'a valueFrom that fails without defaultValue',
    decls: [{ name: 'dbPassword' }],
    params: [{ name: 'dbPassword', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
    reason: 'ParameterResolutionFailed',
    message:
      'parameter "dbPassword" could not be resolved from Secret team-a/db key "password": Secret team-a/db not found; no defaultValue is set',
    parameter: 'dbPassword',
  },
  {
    name: 'a missing ConfigMap key',
    decls: [{ name: 'region' }],
    params: [{ name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region', namespace: 'shared' } } }],
    setup: (s) => {
      s.configMaps['shared/cfg'] = { zone: 'a' }
    },
    reason: 'ParameterResolutionFailed',
    message:
      'parameter "region" could not be resolved from ConfigMap shared/cfg key "region": ConfigMap shared/cfg has no key "region"; no defaultValue is set',
  },
  {
    name: 'an objectFieldRef GET with no match',
    decls: [{ name: 'ip' }],
    params: [
      {
        name: 'ip',
        valueFrom: {
          objectFieldRef: {
            apiVersion: 'v1',
            kind: 'Service',
            name: 'lb',
            namespace: 'team-a',
            jsonPath: '.status.loadBalancer.ingress[0].ip',
          },
        },
      },
    ],
    setup: (s) => {
      s.objects['Service/lb'] = new SourceError('jsonPath ".status.loadBalancer.ingress[0].ip" matched nothing')
    },
    reason: 'ParameterResolutionFailed',
    message:
      'parameter "ip" could not be resolved from v1 Service team-a/lb jsonPath ".status.loadBalancer.ingress[0].ip": jsonPath ".status.loadBalancer.ingress[0].ip" matched nothing; no defaultValue is set',
  },
  {
    name: 'an objectFieldRef LIST that finds nothing',
    decls: [{ name: 'names' }],
    params: [
      {
        name: 'names',
        valueFrom: { objectFieldRef: { apiVersion: 'example.com/v1', kind: 'Widget', jsonPath: '.items[*].metadata.name' } },
      },
    ],
    reason: 'ParameterResolutionFailed',
    message: /from example\.com\/v1 Widget list in every namespace jsonPath "\.items\[\*\]\.metadata\.name": Widget {2}not found/,
  },
  {
    name: 'a number that does not parse',
    decls: [{ name: 'replicas', type: 'number', value: '2' }],
    params: [{ name: 'replicas', value: 'two' }],
    reason: 'InvalidParameter',
    message: 'parameter "replicas" type mismatch: expected number, got "two" (from the instance)',
    parameter: 'replicas',
  },
  {
    name: "a bool outside Go's accepted set",
    decls: [{ name: 'enabled', type: 'bool' }],
    params: [{ name: 'enabled', value: 'yes' }],
    reason: 'InvalidParameter',
    message: 'parameter "enabled" type mismatch: expected bool, got "yes" (from the instance)',
  },
  {
    name: 'a Template default that does not match its type',
    decls: [{ name: 'replicas', type: 'number', value: 'many' }],
    reason: 'InvalidParameter',
    message: 'parameter "replicas" type mismatch: expected number, got "many" (from the Template\'s default)',
  },
  {
    name: 'a defaultValue that does not match the type',
    decls: [{ name: 'port', type: 'number' }],
    params: [{ name: 'port', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'port' } }, defaultValue: 'http' }],
    reason: 'InvalidParameter',
    message:
      'parameter "port" type mismatch: expected number, got "http" (from defaultValue (ConfigMap team-a/cfg key "port" could not be resolved))',
  },
  {
    name: 'a list cannot satisfy string',
    decls: [{ name: 'names', type: 'string' }],
    params: [{ name: 'names', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', jsonPath: '.items[*].metadata.name' } } }],
    setup: (s) => {
      s.objects['Pod'] = ['a', 'b']
    },
    reason: 'InvalidParameter',
    message:
      'parameter "names" type mismatch: expected string, got a list (from valueFrom v1 Pod list in every namespace jsonPath ".items[*].metadata.name")',
  },
  {
    name: 'a map cannot satisfy number',
    decls: [{ name: 'spec', type: 'number' }],
    params: [
      { name: 'spec', valueFrom: { objectFieldRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', jsonPath: '.spec' } } },
    ],
    setup: (s) => {
      s.objects['Deployment/web'] = { replicas: 2 }
    },
    reason: 'InvalidParameter',
    message: /expected number, got a map \(from valueFrom apps\/v1 Deployment web jsonPath "\.spec"\)/,
  },
  {
    name: 'array text that is not a JSON list',
    decls: [{ name: 'hosts', type: 'array' }],
    params: [{ name: 'hosts', value: '{"a":1}' }],
    reason: 'InvalidParameter',
    message: 'parameter "hosts" type mismatch: expected array, got "{\\"a\\":1}" (from the instance)',
  },
  {
    name: 'object text that is not JSON',
    decls: [{ name: 'extra', type: 'object' }],
    params: [{ name: 'extra', value: 'a: 1' }],
    reason: 'InvalidParameter',
    message: /expected object, got "a: 1"/,
  },
  {
    name: 'object text that is a JSON list',
    decls: [{ name: 'extra', type: 'object' }],
    params: [{ name: 'extra', value: '[1]' }],
    reason: 'InvalidParameter',
    message: /expected object, got "\[1\]"/,
  },
  {
    name: 'object text that is JSON null',
    decls: [{ name: 'extra', type: 'object' }],
    params: [{ name: 'extra', value: 'null' }],
    reason: 'InvalidParameter',
    message: /expected object, got "null"/,
  },
  {
    name: 'an objectFieldRef list for an object parameter',
    decls: [{ name: 'extra', type: 'object' }],
    params: [{ name: 'extra', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', jsonPath: '.items' } } }],
    setup: (s) => {
      s.objects['Pod'] = [{ a: 1 }]
    },
    reason: 'InvalidParameter',
    message: /expected object, got a list/,
  },
  {
    name: 'a long value is shortened in the message',
    decls: [{ name: 'n', type: 'number' }],
    params: [{ name: 'n', value: 'x'.repeat(200) }],
    reason: 'InvalidParameter',
    message: `parameter "n" type mismatch: expected number, got "${'x'.repeat(64)}..." (from the instance)`,
  },
  {
    name: 'an entry with both value and valueFrom',
    decls: [{ name: 'a' }],
    params: [{ name: 'a', value: 'x', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }],
    reason: 'InvalidParameter',
    message: 'parameter "a": set exactly one of value and valueFrom',
  },
  {
    name: 'an entry with neither value nor valueFrom',
    decls: [{ name: 'a' }],
    params: [{ name: 'a' }],
    reason: 'InvalidParameter',
    message: 'parameter "a": set exactly one of value and valueFrom',
  },
  {
    name: 'defaultValue without valueFrom',
    decls: [{ name: 'a' }],
    params: [{ name: 'a', value: 'x', defaultValue: 'y' }],
    reason: 'InvalidParameter',
    message: 'parameter "a": defaultValue is only allowed with valueFrom',
  },
  {
    name: 'valueFrom with two sources',
    decls: [{ name: 'a' }],
    params: [{ name: 'a', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' }, secretKeyRef: { name: 's', key: 'k' } } as never }],
    reason: 'InvalidParameter',
    message: 'parameter "a": valueFrom must name exactly one of secretKeyRef, configMapKeyRef and objectFieldRef',
  },
  {
    name: 'a keyRef without a key',
    decls: [{ name: 'a' }],
    params: [{ name: 'a', valueFrom: { secretKeyRef: { name: 's', key: '' } } }],
    reason: 'InvalidParameter',
    message: 'parameter "a": valueFrom.secretKeyRef needs a name and a key',
  },
  {
    name: 'a jsonPath wrapped in braces',
    decls: [{ name: 'ip' }],
    params: [
      { name: 'ip', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 'lb', jsonPath: '{.spec.clusterIP}' } } },
    ],
    reason: 'InvalidParameter',
    message: /^parameter "ip": valueFrom\.objectFieldRef\.jsonPath "\{\.spec\.clusterIP\}": must not be wrapped in \{\}/,
  },
  {
    name: 'a jsonPath with a filter',
    decls: [{ name: 'ready' }],
    params: [
      {
        name: 'ready',
        valueFrom: {
          objectFieldRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        },
      },
    ],
    reason: 'InvalidParameter',
    message: /filter expressions \[\?\(\.\.\.\)\] are not supported/,
  },
  {
    name: 'an entry set twice',
    decls: [{ name: 'a' }],
    params: [
      { name: 'a', value: '1' },
      { name: 'a', value: '2' },
    ],
    reason: 'InvalidParameter',
    message: 'parameter "a" is set more than once',
  },
  {
    name: 'a parameter declared twice',
    decls: [{ name: 'a' }, { name: 'a' }],
    reason: 'InvalidParameter',
    message: 'Template platform/web-cfg declares parameter "a" more than once',
  },
  {
    name: 'a parameter both required and disableOverride',
    decls: [{ name: 'a', required: true, disableOverride: true }],
    reason: 'InvalidParameter',
    message: 'Template platform/web-cfg declares parameter "a" both required and disableOverride',
  },
  {
    name: 'an unknown declared type',
    decls: [{ name: 'a', type: 'integer' as 'number' }],
    reason: 'InvalidParameter',
    message: 'Template platform/web-cfg declares parameter "a" with unknown type "integer"',
  },
]

for (const c of failures) {
  t.test(`fails on ${c.name}`, async (t) => {
    const sources = new FakeSources()
    c.setup?.(sources)
    const r = await run(c.decls, c.params, sources)
    t.equal(r.ok, false)
    if (r.ok) return
    t.equal(r.reason, c.reason)
    if (typeof c.message === 'string') t.equal(r.message, c.message)
    else t.match(r.message, c.message)
    if (c.parameter !== undefined) t.equal(r.parameter, c.parameter)
  })
}

interface SuccessCase {
  readonly name: string
  readonly decls: TemplateParameterDefinition[]
  readonly params?: TemplateParameter[]
  readonly setup?: (s: FakeSources) => void
  readonly want: Record<string, ParamValue>
}

const successes: SuccessCase[] = [
  { name: 'a literal instance value', decls: [{ name: 'owner' }], params: [{ name: 'owner', value: 'alice' }], want: { owner: 'alice' } },
  { name: 'the Template default', decls: [{ name: 'replicas', type: 'number', value: '2' }], want: { replicas: '2' } },
  { name: 'an empty Template default', decls: [{ name: 'suffix', value: '' }], want: { suffix: '' } },
  {
    name: 'the instance value over the default',
    decls: [{ name: 'replicas', value: '2' }],
    params: [{ name: 'replicas', value: '5' }],
    want: { replicas: '5' },
  },
  {
    name: 'empty values for parameters nobody sets, per type and unchecked',
    decls: [
      { name: 's' },
      { name: 'str', type: 'string' },
      { name: 'n', type: 'number' },
      { name: 'b', type: 'bool' },
      { name: 'l', type: 'array' },
      { name: 'o', type: 'object' },
    ],
    want: { s: '', str: '', n: '', b: '', l: [], o: {} },
  },
  {
    name: 'numbers in Go syntax stay strings',
    decls: [
      { name: 'a', type: 'number' },
      { name: 'b', type: 'number' },
      { name: 'c', type: 'number' },
      { name: 'd', type: 'number' },
    ],
    params: [
      { name: 'a', value: '3' },
      { name: 'b', value: '3.14' },
      { name: 'c', value: '-2.5e10' },
      { name: 'd', value: '1_000' },
    ],
    want: { a: '3', b: '3.14', c: '-2.5e10', d: '1_000' },
  },
  {
    name: 'bools in Go syntax stay strings',
    decls: [
      { name: 'a', type: 'bool' },
      { name: 'b', type: 'bool' },
      { name: 'c', type: 'bool' },
    ],
    params: [
      { name: 'a', value: 'true' },
      { name: 'b', value: '0' },
      { name: 'c', value: 'F' },
    ],
    want: { a: 'true', b: '0', c: 'F' },
  },
  {
    name: 'array and object JSON text is decoded',
    decls: [
      { name: 'hosts', type: 'array' },
      { name: 'extra', type: 'object', value: '{"a":{"b":[1,true,null]}}' },
    ],
    params: [{ name: 'hosts', value: '["a.example","b.example"]' }],
    want: { hosts: ['a.example', 'b.example'], extra: { a: { b: [1, true, null] } } },
  },
  {
    name: 'untyped JSON text stays text',
    decls: [{ name: 'raw' }],
    params: [{ name: 'raw', value: '["a"]' }],
    want: { raw: '["a"]' },
  },
  {
    name: 'secretKeyRef defaults to the instance namespace',
    decls: [{ name: 'pw' }],
    params: [{ name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
    setup: (s) => {
      s.secrets['team-a/db'] = { password: 's3cret' }
    },
    want: { pw: 's3cret' },
  },
  {
    name: 'secretKeyRef in another namespace',
    decls: [{ name: 'pw' }],
    params: [{ name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password', namespace: 'vault' } } }],
    setup: (s) => {
      s.secrets['vault/db'] = { password: 'x' }
    },
    want: { pw: 'x' },
  },
  {
    name: 'configMapKeyRef',
    decls: [{ name: 'region' }],
    params: [{ name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } } }],
    setup: (s) => {
      s.configMaps['team-a/cfg'] = { region: 'eu-west-1' }
    },
    want: { region: 'eu-west-1' },
  },
  {
    name: 'objectFieldRef GET scalar and LIST list',
    decls: [{ name: 'ip' }, { name: 'names', type: 'array' }],
    params: [
      { name: 'ip', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 'lb', jsonPath: '.spec.clusterIP' } } },
      { name: 'names', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', jsonPath: '.items[*].metadata.name' } } },
    ],
    setup: (s) => {
      s.objects['Service/lb'] = '10.0.0.1'
      s.objects['Pod'] = ['p1', 'p2']
    },
    want: { ip: '10.0.0.1', names: ['p1', 'p2'] },
  },
  {
    name: 'a composite from objectFieldRef satisfies object',
    decls: [{ name: 'labels', type: 'object' }],
    params: [
      {
        name: 'labels',
        valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', jsonPath: '.metadata.labels' } },
      },
    ],
    setup: (s) => {
      s.objects['Namespace/team-a'] = { kind: 'tenant' }
    },
    want: { labels: { kind: 'tenant' } },
  },
  {
    name: 'defaultValue when the source fails',
    decls: [{ name: 'pw' }],
    params: [{ name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } }, defaultValue: 'changeme' }],
    want: { pw: 'changeme' },
  },
  {
    name: 'a resolved empty string is used as is, not the defaultValue',
    decls: [{ name: 'suffix' }],
    params: [{ name: 'suffix', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'suffix' } }, defaultValue: '-x' }],
    setup: (s) => {
      s.configMaps['team-a/cfg'] = { suffix: '' }
    },
    want: { suffix: '' },
  },
  {
    name: 'a parameter called __proto__ is data',
    decls: [
      { name: '__proto__', value: 'p' },
      { name: 'constructor', value: 'c' },
    ],
    want: { ['__proto__']: 'p', constructor: 'c' },
  },
]

for (const c of successes) {
  t.test(`resolves ${c.name}`, async (t) => {
    const sources = new FakeSources()
    c.setup?.(sources)
    const r = await run(c.decls, c.params, sources)
    const got = values(r)
    t.strictSame(Object.keys(got), Object.keys(c.want))
    for (const [k, v] of Object.entries(c.want)) t.strictSame(got[k], v, k)
  })
}

t.test('values is a null-prototype object', async (t) => {
  const r = await run([{ name: 'a', value: '1' }])
  t.ok(r.ok)
  if (r.ok) t.equal(Object.getPrototypeOf(r.values), null)
})

t.test('a GET objectFieldRef gets the instance namespace as default', async (t) => {
  const sources = new FakeSources()
  sources.objects['Service/lb'] = '1.2.3.4'
  await run(
    [{ name: 'ip' }],
    [{ name: 'ip', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 'lb', jsonPath: '.x' } } }],
    sources,
  )
  t.same(sources.calls, ['object Service/lb (default team-a) .x'])
})

t.test('Secret values never appear in messages', async (t) => {
  const sources = new FakeSources()
  sources.secrets['team-a/db'] = { password: 'hunter2' }
  sources.objects['Secret/db'] = 'aHVudGVyMg=='
  const viaKeyRef = await run(
    [{ name: 'pw', type: 'number' }],
    [{ name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
    sources,
  )
  t.equal(viaKeyRef.ok, false)
  if (!viaKeyRef.ok) {
    t.equal(viaKeyRef.reason, 'InvalidParameter')
    t.notMatch(viaKeyRef.message, 'hunter2')
    t.match(viaKeyRef.message, 'expected number, got a value that is not shown because it comes from a Secret')
  }
  const viaObject = await run(
    [{ name: 'pw', type: 'bool' }],
    [{ name: 'pw', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Secret', name: 'db', jsonPath: '.data.password' } } }],
    sources,
  )
  t.equal(viaObject.ok, false)
  if (!viaObject.ok) t.notMatch(viaObject.message, 'aHVudGVyMg')
})

t.test('status.resolvedParameters records sources, and values only when exposed', async (t) => {
  const sources = new FakeSources()
  sources.secrets['team-a/db'] = { password: 'pw' }
  sources.configMaps['team-a/cfg'] = { region: 'eu' }
  const r = await run(
    [
      { name: 'replicas', type: 'number', value: '2' },
      { name: 'registry', value: 'ghcr.io/acme', disableOverride: true },
      { name: 'owner', required: true, exposeInStatus: true },
      { name: 'dbPassword' },
      { name: 'region', exposeInStatus: true },
      { name: 'hosts', type: 'array', value: '["a"]', exposeInStatus: true },
      { name: 'unset', exposeInStatus: true },
    ],
    [
      { name: 'owner', value: 'alice' },
      { name: 'dbPassword', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
      { name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } }, defaultValue: 'us' },
    ],
    sources,
  )
  t.ok(r.ok)
  if (!r.ok) return
  t.strictSame(r.resolved, [
    { name: 'replicas' },
    { name: 'registry' },
    { name: 'owner', value: 'alice' },
    { name: 'dbPassword', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    { name: 'region', value: 'eu', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } } },
    { name: 'hosts', value: ['a'] },
    { name: 'unset', value: '' },
  ])
})

t.test('a defaultValue fallback still echoes the source in status', async (t) => {
  const r = await run(
    [{ name: 'region', exposeInStatus: true }],
    [{ name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } }, defaultValue: 'us' }],
  )
  t.ok(r.ok)
  if (r.ok) t.strictSame(r.resolved, [{ name: 'region', value: 'us', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } } }])
})

t.test('status entries are copies, not the instance spec', async (t) => {
  const params: TemplateParameter[] = [{ name: 'a', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } }, defaultValue: 'd' }]
  const r = await run([{ name: 'a' }], params)
  t.ok(r.ok)
  if (r.ok) t.not(r.resolved[0]?.valueFrom, params[0]?.valueFrom)
})

t.test('sources lists every object read, for watches, also on failure', async (t) => {
  const decls: TemplateParameterDefinition[] = [
    { name: 'pw' },
    { name: 'region' },
    { name: 'ip' },
    { name: 'names' },
    { name: 'host' },
    { name: 'locked', disableOverride: true },
    { name: 'literal' },
  ]
  const params: TemplateParameter[] = [
    { name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    { name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region', namespace: 'shared' } } },
    {
      name: 'ip',
      valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 'lb', namespace: 'team-a', jsonPath: '.spec.clusterIP' } },
    },
    { name: 'names', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', jsonPath: '.items[*].metadata.name' } } },
    {
      name: 'host',
      valueFrom: { objectFieldRef: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'web', jsonPath: '.spec.rules[0].host' } },
    },
    { name: 'literal', value: 'x' },
  ]
  const want = [
    { parameter: 'pw', apiVersion: 'v1', kind: 'Secret', namespace: 'team-a', name: 'db' },
    { parameter: 'region', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shared', name: 'cfg' },
    { parameter: 'ip', apiVersion: 'v1', kind: 'Service', namespace: 'team-a', name: 'lb' },
    { parameter: 'names', apiVersion: 'v1', kind: 'Pod' },
    { parameter: 'host', apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'team-a', name: 'web' },
  ]
  const failed = await run(decls, params)
  t.equal(failed.ok, false, 'the Secret is missing')
  t.strictSame(failed.sources, want)
  const sources = new FakeSources()
  sources.secrets['team-a/db'] = { password: 'x' }
  sources.configMaps['shared/cfg'] = { region: 'eu' }
  sources.objects['Service/lb'] = '10.0.0.1'
  sources.objects['Pod'] = ['a']
  sources.objects['Ingress/web'] = 'web.example'
  const ok = await run(decls, params, sources)
  t.ok(ok.ok)
  t.strictSame(ok.sources, want)
})

t.test('resolution is fail-fast and reads in declaration order', async (t) => {
  const sources = new FakeSources()
  sources.configMaps['team-a/cfg'] = { a: '1', c: '3' }
  const r = await run(
    [{ name: 'a' }, { name: 'b', type: 'number' }, { name: 'c' }],
    [
      { name: 'c', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'c' } } },
      { name: 'b', value: 'nope' },
      { name: 'a', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } },
    ],
    sources,
  )
  t.equal(r.ok, false)
  t.same(sources.calls, ['configmap team-a/cfg a'], 'c is never read after b fails')
})

t.test('checks that need no I/O run before any source is read', async (t) => {
  const sources = new FakeSources()
  const r = await run(
    [{ name: 'a' }, { name: 'owner', required: true }],
    [{ name: 'a', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }],
    sources,
  )
  t.equal(r.ok, false)
  if (!r.ok) t.equal(r.reason, 'InvalidParameter')
  t.same(sources.calls, [])
})

t.test('a source failure that is not a SourceError propagates', async (t) => {
  const sources = new FakeSources()
  sources.objects['Service/lb'] = new Error('connect ECONNREFUSED')
  await t.rejects(
    run(
      [{ name: 'ip' }],
      [{ name: 'ip', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Service', name: 'lb', jsonPath: '.x' } } }],
      sources,
    ),
    { message: 'connect ECONNREFUSED' },
  )
})

t.test('a Template without parameters and an instance without any resolve to nothing', async (t) => {
  const r = await resolveParameters({
    template: { metadata: { name: 't', namespace: 'p' }, spec: { gotemplate: '' } },
    instance: instance(),
    sources: new FakeSources(),
  })
  t.same(r, { ok: true, values: {}, resolved: [], sources: [], withheld: [], secretValues: [] })
})

// ---- tenancy: what an instance may read without a grant (docs/tenancy-grants.md) ----

interface ScopeCase {
  readonly name: string
  readonly valueFrom: TemplateParameter['valueFrom']
  readonly grants?: Template['spec']['grants']
  /** undefined: resolves; a string: refused with this message. */
  readonly refused?: string
}

const scopeCases: ScopeCase[] = [
  {
    name: 'a Secret in the instance namespace',
    valueFrom: { secretKeyRef: { name: 'db', key: 'password' } },
  },
  {
    name: 'a Secret in another namespace',
    valueFrom: { secretKeyRef: { name: 'db', key: 'password', namespace: 'victim' } },
    refused:
      'parameter "p": valueFrom reads Secret victim/db, outside namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a Secret in another namespace, granted by name',
    valueFrom: { secretKeyRef: { name: 'db', key: 'password', namespace: 'victim' } },
    grants: { parameterSources: [{ kind: 'Secret', namespace: 'victim', names: ['db'] }] },
  },
  {
    name: 'a Secret in another namespace, granted for another name',
    valueFrom: { secretKeyRef: { name: 'db', key: 'password', namespace: 'victim' } },
    grants: { parameterSources: [{ kind: 'Secret', namespace: 'victim', names: ['other'] }] },
    refused:
      'parameter "p": valueFrom reads Secret victim/db, outside namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a ConfigMap granted in every namespace',
    valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', namespace: 'shared' } },
    grants: { parameterSources: [{ kind: 'ConfigMap', namespace: '*' }] },
  },
  {
    name: 'a grant for a ConfigMap does not cover a Secret',
    valueFrom: { secretKeyRef: { name: 'cfg', key: 'k', namespace: 'shared' } },
    grants: { parameterSources: [{ kind: 'ConfigMap', namespace: '*' }] },
    refused:
      'parameter "p": valueFrom reads Secret shared/cfg, outside namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a LIST of Secrets without a namespace (every namespace)',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Secret', jsonPath: '.items[*].data.password' } },
    refused:
      'parameter "p": valueFrom reads every Secret in every namespace, beyond namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a LIST in the instance namespace',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', namespace: 'team-a', jsonPath: '.items[*].metadata.name' } },
  },
  {
    name: 'a LIST in every namespace, granted for named objects only',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Pod', jsonPath: '.items[*].metadata.name' } },
    grants: { parameterSources: [{ kind: 'Pod', namespace: '*', names: ['a'] }] },
    refused:
      'parameter "p": valueFrom reads every Pod in every namespace, beyond namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a GET without a namespace reads the instance namespace',
    valueFrom: { objectFieldRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', jsonPath: '.spec.replicas' } },
  },
  {
    name: 'a cluster-scoped kind',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', jsonPath: '.metadata.labels' } },
    refused:
      'parameter "p": valueFrom reads Namespace team-a (cluster-scoped); Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'a cluster-scoped kind granted without a namespace',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Node', jsonPath: '.items[*].metadata.name' } },
    grants: { parameterSources: [{ kind: 'Node' }] },
  },
  {
    name: 'a namespaced grant does not cover a cluster-scoped kind',
    valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Node', jsonPath: '.items[*].metadata.name' } },
    grants: { parameterSources: [{ kind: '*', namespace: '*' }] },
    refused:
      'parameter "p": valueFrom reads every Node (cluster-scoped); Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
  {
    name: 'an API group must match',
    valueFrom: { objectFieldRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'other', jsonPath: '.x' } },
    grants: { parameterSources: [{ kind: 'Deployment', namespace: 'other' }] },
    refused:
      'parameter "p": valueFrom reads Deployment.apps other/web, outside namespace team-a; Template platform/web-cfg does not grant it (spec.grants.parameterSources)',
  },
]

for (const c of scopeCases) {
  t.test(`tenancy: ${c.name}`, async (t) => {
    const sources = new FakeSources()
    sources.secrets['team-a/db'] = { password: 'x' }
    sources.secrets['victim/db'] = { password: 'stolen' }
    sources.configMaps['shared/cfg'] = { k: 'v' }
    sources.objects['Pod'] = ['a']
    sources.objects['Deployment/web'] = '2'
    sources.objects['Namespace/team-a'] = { a: 'b' }
    sources.objects['Node'] = ['n1']
    const r = await resolveParameters({
      template: template([{ name: 'p' }], c.grants ?? null),
      instance: instance([{ name: 'p', valueFrom: c.valueFrom } as TemplateParameter]),
      sources,
    })
    if (c.refused === undefined) {
      t.ok(r.ok, r.ok ? 'resolved' : r.message)
      return
    }
    t.equal(r.ok, false)
    if (r.ok) return
    t.equal(r.reason, 'ParameterSourceForbidden')
    t.equal(r.parameter, 'p')
    t.equal(r.message, c.refused)
    t.same(sources.calls, [], 'nothing is read')
    t.same(r.sources, [], 'nothing is watched')
  })
}

t.test('tenancy: a refused source falls back to no defaultValue', async (t) => {
  const r = await resolveParameters({
    template: template([{ name: 'p' }], null),
    instance: instance([{ name: 'p', valueFrom: { secretKeyRef: { name: 'db', key: 'k', namespace: 'victim' } }, defaultValue: 'd' }]),
    sources: new FakeSources(),
  })
  t.equal(r.ok, false, 'a refusal is not a missing source: the defaultValue does not hide it')
})

t.test('tenancy: an objectFieldRef of a kind the API does not serve is not read', async (t) => {
  const sources = new FakeSources()
  sources.objects['Unserved/x'] = 'v'
  const r = await resolveParameters({
    template: template([{ name: 'p' }], null),
    instance: instance([
      {
        name: 'p',
        valueFrom: { objectFieldRef: { apiVersion: 'x.io/v1', kind: 'Unserved', name: 'x', jsonPath: '.a' } },
        defaultValue: 'd',
      },
    ]),
    sources,
  })
  t.same(values(r), { p: 'd' })
  t.same(sources.calls, [])
})

t.test('a value read from a Secret is never recorded in status, exposeInStatus or not', async (t) => {
  const sources = new FakeSources()
  sources.secrets['team-a/db'] = { password: 'hunter22' }
  sources.configMaps['team-a/cfg'] = { region: 'eu' }
  sources.objects['Secret/tls'] = 'c2VjcmV0'
  const r = await run(
    [
      { name: 'pw', exposeInStatus: true },
      { name: 'cert', exposeInStatus: true },
      { name: 'region', exposeInStatus: true },
    ],
    [
      { name: 'pw', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
      { name: 'cert', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Secret', name: 'tls', jsonPath: '.data.tls' } } },
      { name: 'region', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'region' } } },
    ],
    sources,
  )
  if (!r.ok) throw new Error(r.message)
  t.same(
    r.resolved.map((p) => [p.name, p.value]),
    [
      ['pw', undefined],
      ['cert', undefined],
      ['region', 'eu'],
    ],
  )
  t.same(r.withheld, ['pw', 'cert'])
  t.same(r.secretValues, ['hunter22', 'c2VjcmV0'])
  t.notOk(JSON.stringify(r.resolved).includes('hunter22'))
})
