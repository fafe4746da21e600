import t from 'tap'
import type { TemplateOutput } from '../../src/api/template.ts'
import type { OutputValues, ResolvedParameter } from '../../src/api/templateinstance.ts'
import { extractOutputs, MAX_KEYS_PER_FIELD, outputSourceRefs } from '../../src/outputs/extract.ts'
import type { ObjectRef } from '../../src/api/meta.ts'
import type { ExtractInput, ExtractResult } from '../../src/outputs/types.ts'

// One instance (team-a/app1) and what it rendered; `live` holds the cluster's copies.

const svc = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'app1-svc', namespace: 'team-a', labels: { app: 'app1' } },
  spec: {
    clusterIP: '10.96.0.10',
    ports: [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ],
    selector: { app: 'app1' },
  },
  status: { loadBalancer: { ingress: [{ ip: '10.0.0.7' }] } },
}
const cm = (namespace: string, name: string, role: string, hash: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { role }, annotations: { hash } },
  data: { k: 'v' },
})
const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app1-creds', namespace: 'team-a' }, data: { password: 'c2VjcmV0' } }
const nsObj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app1-ns', labels: { team: 'a' } } }

const objects: Record<string, object> = {}
const rendered: ObjectRef[] = []
function add(
  obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } },
  live = true,
): void {
  const ref: ObjectRef =
    obj.metadata.namespace === undefined
      ? { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name }
      : { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace }
  rendered.push(ref)
  if (live) objects[key(ref)] = obj
}
const key = (r: ObjectRef): string => `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`
add(svc)
add(cm('team-a', 'app1-cfg', 'public', '3f2a'))
add(cm('team-a', 'app1-extra', 'public', '91bc'))
add(cm('team-a', 'app1-private', 'private', '0000'))
add(cm('team-b', 'app1-cfg', 'shared', 'bbbb'))
add(secret)
add(nsObj)
add({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app1-sa', namespace: 'team-a', labels: { role: 'public' } } })
add({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app1-gone', namespace: 'team-c' } }, false)

interface Options {
  frozen?: boolean
  resolvedParameters?: ResolvedParameter[]
  exposed?: string[]
  parameters?: Record<string, unknown>
}

function run(outputs: TemplateOutput[], o: Options = {}): ExtractResult & { calls: string[] } {
  const calls: string[] = []
  const input: ExtractInput = {
    outputs,
    context: {
      parameters: o.parameters ?? { svc: 'app1-svc', env: 'prod' },
      instance: { name: 'app1', namespace: 'team-a', labels: { tier: 'web' } },
    },
    frozen: o.frozen ?? false,
    ...(o.resolvedParameters ? { resolvedParameters: o.resolvedParameters } : {}),
    exposedParameters: new Set(o.exposed ?? []),
    rendered,
    live: (ref) => {
      calls.push(key(ref))
      return objects[key(ref)]
    },
  }
  return { ...extractOutputs(input), calls }
}

const fromSvc = (
  extra: Partial<TemplateOutput> = {},
  fields = [{ name: 'ip', jsonPath: '{.status.loadBalancer.ingress[0].ip}' }],
): TemplateOutput => ({
  name: 'endpoint',
  from: { apiVersion: 'v1', kind: 'Service', name: '{.instance.name}-svc' },
  fields,
  ...extra,
})

interface Case {
  name: string
  outputs: TemplateOutput[]
  options?: Options
  values: OutputValues
  reason: string
  status?: 'True' | 'False'
  /** Each must occur in the condition message. */
  message?: (string | RegExp)[]
}

const cases: Case[] = [
  {
    name: 'no outputs: True/NoOutputs',
    outputs: [],
    values: {},
    reason: 'NoOutputs',
    status: 'True',
  },
  {
    name: 'the example of docs/api-outputs.md (a [*] path gives a JSON list even with one match)',
    outputs: [
      fromSvc({}, [{ name: 'ip', jsonPath: '{.status.loadBalancer.ingress[*].ip}' }]),
      {
        name: 'configs',
        fromAll: { apiVersion: 'v1', kind: 'ConfigMap', selector: { matchLabels: { role: 'public' } } },
        keyTemplate: '{.metadata.name}',
        fields: [{ name: 'configHash', jsonPath: '{.metadata.annotations.hash}' }],
      },
      {
        name: 'ports',
        from: { apiVersion: 'v1', kind: 'Service', name: '{.instance.name}-svc' },
        forEach: { jsonPath: '{.spec.ports}' },
        keyTemplate: '{.item.name}',
        fields: [{ name: 'port', jsonPath: '{.port}' }],
      },
    ],
    values: {
      ip: { endpoint: '["10.0.0.7"]' },
      configHash: { 'app1-cfg': '3f2a', 'app1-extra': '91bc' },
      port: { http: '80', https: '443' },
    },
    reason: 'OutputsResolved',
    status: 'True',
    message: ['5 value(s) from 3 output(s)'],
  },
  {
    name: 'from: the key defaults to the output name; several fields',
    outputs: [
      fromSvc({}, [
        { name: 'ip', jsonPath: '{.status.loadBalancer.ingress[0].ip}' },
        { name: 'clusterIP', jsonPath: '{.spec.clusterIP}' },
      ]),
    ],
    values: { ip: { endpoint: '10.0.0.7' }, clusterIP: { endpoint: '10.96.0.10' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'from: keyTemplate over the object, the instance and the parameters',
    outputs: [fromSvc({ keyTemplate: '{.instance.labels.tier}-{.parameters.env}-{.object.metadata.labels.app}' })],
    values: { ip: { 'web-prod-app1': '10.0.0.7' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'from: the name from a parameter (live parameters when not frozen)',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters.svc}' } })],
    values: { ip: { endpoint: '10.0.0.7' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'from: namespace defaults to the instance namespace',
    outputs: [
      {
        name: 'cfg',
        from: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app1-cfg' },
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    values: { hash: { cfg: '3f2a' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'from: an explicit namespace template',
    outputs: [
      {
        name: 'cfg',
        from: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app1-cfg', namespace: 'team-{.parameters.other}' },
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    options: { parameters: { other: 'b' } },
    values: { hash: { cfg: 'bbbb' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'from: a cluster-scoped object matches without a namespace',
    outputs: [
      {
        name: 'ns',
        from: { apiVersion: 'v1', kind: 'Namespace', name: '{.instance.name}-ns' },
        fields: [{ name: 'team', jsonPath: '{.metadata.labels.team}' }],
      },
    ],
    values: { team: { ns: 'a' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'fromAll: every rendered namespace, default key metadata.name, duplicate names collide',
    outputs: [
      {
        name: 'cfgs',
        fromAll: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          selector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['public', 'shared'] }] },
        },
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    values: { hash: { 'app1-extra': '91bc' } },
    reason: 'OutputExtractionFailed',
    message: ['key "app1-cfg" is produced 2 times', 'v1 ConfigMap team-a/app1-cfg', 'v1 ConfigMap team-b/app1-cfg'],
  },
  {
    name: 'fromAll: a namespace template narrows; keyTemplate with index',
    outputs: [
      {
        name: 'cfgs',
        fromAll: { apiVersion: 'v1', kind: 'ConfigMap', namespace: '{.instance.namespace}' },
        keyTemplate: '{.index}-{.object.metadata.name}',
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    values: { hash: { '0-app1-cfg': '3f2a', '1-app1-extra': '91bc', '2-app1-private': '0000' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'fromAll: nothing matches the selector',
    outputs: [
      {
        name: 'cfgs',
        fromAll: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', selector: { matchLabels: { role: 'nope' } } },
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    values: {},
    reason: 'OutputSourceNotFound',
    message: ['output "cfgs"', 'matches fromAll.selector'],
  },
  {
    name: 'fromAll: an invalid selector',
    outputs: [
      {
        name: 'cfgs',
        fromAll: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'team-a',
          selector: { matchExpressions: [{ key: 'role', operator: 'In' }] },
        },
        fields: [{ name: 'hash', jsonPath: '{.metadata.annotations.hash}' }],
      },
    ],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['output "cfgs": fromAll.selector is invalid', 'needs at least one value'],
  },
  {
    name: 'fromAll: a rendered object that is gone is reported; the others are written',
    outputs: [
      {
        name: 'sas',
        fromAll: { apiVersion: 'v1', kind: 'ServiceAccount', selector: { matchLabels: { role: 'public' } } },
        fields: [{ name: 'sa', jsonPath: '{.metadata.name}' }],
      },
    ],
    values: { sa: { 'app1-sa': 'app1-sa' } },
    reason: 'OutputSourceNotFound',
    message: ['output "sas": v1 ServiceAccount team-c/app1-gone is rendered by this instance but does not exist'],
  },
  {
    name: 'fromAll: a kind the instance does not render',
    outputs: [
      {
        name: 'deps',
        fromAll: { apiVersion: 'apps/v1', kind: 'Deployment' },
        fields: [{ name: 'replicas', jsonPath: '{.spec.replicas}' }],
      },
    ],
    values: {},
    reason: 'OutputSourceNotFound',
    message: ['output "deps": fromAll apps/v1 Deployment in every rendered namespace matches no object this instance renders'],
  },
  {
    name: 'forEach: the key defaults to the element index',
    outputs: [
      fromSvc({ forEach: { jsonPath: '{.spec.ports}' } }, [
        { name: 'port', jsonPath: '{.port}' },
        { name: 'portName', jsonPath: '{.name}' },
      ]),
    ],
    values: { port: { 0: '80', 1: '443' }, portName: { 0: 'http', 1: 'https' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'forEach: a multi path iterates over its matches',
    outputs: [fromSvc({ forEach: { jsonPath: '{.spec.ports[*].port}' }, keyTemplate: 'p{.item}' }, [{ name: 'port', jsonPath: '{.}' }])],
    values: { port: { p80: '80', p443: '443' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'forEach: a path that selects a map is an error',
    outputs: [fromSvc({ forEach: { jsonPath: '{.spec.selector}' } }, [{ name: 'port', jsonPath: '{.port}' }])],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['output "endpoint": forEach jsonPath "{.spec.selector}" selected a map, not a list, in v1 Service team-a/app1-svc'],
  },
  {
    name: 'forEach: no match is an error',
    outputs: [fromSvc({ forEach: { jsonPath: '{.spec.missing}' } }, [{ name: 'port', jsonPath: '{.port}' }])],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['matched nothing in v1 Service team-a/app1-svc'],
  },
  {
    name: 'composites are JSON text',
    outputs: [
      fromSvc({}, [
        { name: 'ports', jsonPath: '{.spec.ports}' },
        { name: 'sel', jsonPath: '{.spec.selector}' },
        { name: 'names', jsonPath: '{.spec.ports[*].name}' },
      ]),
    ],
    values: {
      ports: { endpoint: '[{"name":"http","port":80},{"name":"https","port":443}]' },
      sel: { endpoint: '{"app":"app1"}' },
      names: { endpoint: '["http","https"]' },
    },
    reason: 'OutputsResolved',
  },
  {
    name: 'no match leaves the key out, reports output, field and object, and keeps the other values',
    outputs: [
      fromSvc({}, [
        { name: 'ip', jsonPath: '{.status.loadBalancer.ingress[0].hostname}' },
        { name: 'clusterIP', jsonPath: '{.spec.clusterIP}' },
      ]),
    ],
    values: { clusterIP: { endpoint: '10.96.0.10' } },
    reason: 'OutputExtractionFailed',
    message: [
      'output "endpoint" field "ip" (v1 Service team-a/app1-svc): jsonPath "{.status.loadBalancer.ingress[0].hostname}": {.status.loadBalancer.ingress[0].hostname} matched nothing',
    ],
  },
  {
    name: 'script expressions are rejected, not evaluated',
    outputs: [
      fromSvc({}, [
        { name: 'ip', jsonPath: '{.spec.ports[(@.length-1)].port}' },
        { name: 'f', jsonPath: '{.spec.ports[?(@.port>80)].name}' },
      ]),
    ],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['field "ip": jsonPath is invalid', 'script expressions', 'field "f": jsonPath is invalid', 'filter expressions'],
  },
  {
    name: 'a script expression in a source name is rejected',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters[(this.constructor)]}' } })],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['from.name template', 'is invalid', 'script expressions'],
  },
  {
    name: 'a Secret source is refused (from)',
    outputs: [
      {
        name: 'creds',
        from: { apiVersion: 'v1', kind: 'Secret', name: 'app1-creds' },
        fields: [{ name: 'password', jsonPath: '{.data.password}' }],
      },
    ],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['output "creds": from names a Secret; Secret sources are refused'],
  },
  {
    name: 'a Secret source is refused (fromAll)',
    outputs: [
      { name: 'creds', fromAll: { apiVersion: 'v1', kind: 'Secret' }, fields: [{ name: 'password', jsonPath: '{.data.password}' }] },
    ],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['output "creds": fromAll names a Secret'],
  },
  {
    name: 'a source the instance does not render',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: 'elsewhere', namespace: 'kube-system' } })],
    values: {},
    reason: 'OutputSourceNotFound',
    message: ['output "endpoint": from names v1 Service kube-system/elsewhere, which is not among the objects this instance renders'],
  },
  {
    name: 'a rendered source that is missing in the cluster',
    outputs: [
      {
        name: 'gone',
        from: { apiVersion: 'v1', kind: 'ServiceAccount', name: 'app1-gone', namespace: 'team-c' },
        fields: [{ name: 'k', jsonPath: '{.data.k}' }],
      },
    ],
    values: {},
    reason: 'OutputSourceNotFound',
    message: ['output "gone": v1 ServiceAccount team-c/app1-gone is rendered by this instance but does not exist in the cluster'],
  },
  {
    name: 'frozen: parameters come from resolvedParameters values only',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters.svc}' }, keyTemplate: '{.parameters.env}' })],
    options: {
      frozen: true,
      parameters: { svc: 'live-value-never-used', env: 'live' },
      resolvedParameters: [
        { name: 'svc', value: 'app1-svc' },
        { name: 'env', value: 'recorded' },
      ],
      exposed: ['svc', 'env'],
    },
    values: { ip: { recorded: '10.0.0.7' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'frozen: literal source names need no parameter',
    outputs: [fromSvc()],
    options: { frozen: true, resolvedParameters: [{ name: 'svc' }] },
    values: { ip: { endpoint: '10.0.0.7' } },
    reason: 'OutputsResolved',
  },
  {
    name: 'frozen: a parameter without exposeInStatus names the parameter',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters.svc}' } })],
    options: { frozen: true, resolvedParameters: [{ name: 'svc' }, { name: 'env', value: 'prod' }], exposed: ['env'] },
    values: {},
    reason: 'OutputParameterNotExposed',
    message: ['output "endpoint": from.name template "{.parameters.svc}" cannot be resolved: parameter "svc" does not set exposeInStatus'],
  },
  {
    name: 'frozen: exposeInStatus added after the freeze says how to heal',
    outputs: [fromSvc({ from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters.svc}', namespace: '{.parameters.ns}' } })],
    options: { frozen: true, resolvedParameters: [{ name: 'svc' }, { name: 'ns', value: 'team-a' }], exposed: ['svc', 'ns'] },
    values: {},
    reason: 'OutputParameterNotExposed',
    message: ['parameter "svc" sets exposeInStatus but has no recorded value', 'off -> revert -> off'],
  },
  {
    name: 'frozen: a keyTemplate parameter without a recorded value',
    outputs: [fromSvc({ keyTemplate: '{.parameters.env}' })],
    options: { frozen: true, resolvedParameters: [{ name: 'env' }] },
    values: {},
    reason: 'OutputParameterNotExposed',
    message: ['keyTemplate "{.parameters.env}"', 'parameter "env"'],
  },
  {
    name: 'a value over 4 KiB is left out',
    outputs: [
      {
        name: 'big',
        from: { apiVersion: 'example.com/v1', kind: 'Blob', name: 'big' },
        fields: [
          { name: 'blob', jsonPath: '{.data.blob}' },
          { name: 'small', jsonPath: '{.data.small}' },
        ],
      },
    ],
    values: { small: { big: 'ok' } },
    reason: 'OutputExtractionFailed',
    message: ['field "blob"', '5000 bytes, at most 4096'],
  },
  {
    name: 'field names must be unique across outputs',
    outputs: [
      fromSvc(),
      { name: 'other', from: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app1-cfg' }, fields: [{ name: 'ip', jsonPath: '{.data.k}' }] },
    ],
    values: { ip: { endpoint: '10.0.0.7' } },
    reason: 'OutputExtractionFailed',
    message: ['output "other" field "ip": the name is already used by output "endpoint"'],
  },
  {
    name: 'exactly one of from and fromAll',
    outputs: [
      { name: 'both', from: { apiVersion: 'v1', kind: 'Service', name: 'x' }, fromAll: { apiVersion: 'v1', kind: 'Service' }, fields: [] },
      { name: 'none', fields: [] },
    ],
    values: {},
    reason: 'OutputExtractionFailed',
    message: ['output "both": set exactly one of from and fromAll', 'output "none": set exactly one of from and fromAll'],
  },
  {
    name: 'a key from data cannot reach the prototype',
    outputs: [
      {
        name: 'odd',
        from: { apiVersion: 'example.com/v1', kind: 'Blob', name: 'odd' },
        forEach: { jsonPath: '{.data.items}' },
        keyTemplate: '{.item.name}',
        fields: [{ name: 'v', jsonPath: '{.v}' }],
      },
    ],
    values: JSON.parse('{"v":{"__proto__":"polluted","ok":"fine"}}') as OutputValues,
    reason: 'OutputsResolved',
  },
]

objects[key({ apiVersion: 'example.com/v1', kind: 'Blob', name: 'big', namespace: 'team-a' })] = {
  metadata: { name: 'big' },
  data: { blob: 'x'.repeat(5000), small: 'ok' },
}
rendered.push({ apiVersion: 'example.com/v1', kind: 'Blob', name: 'big', namespace: 'team-a' })
objects[key({ apiVersion: 'example.com/v1', kind: 'Blob', name: 'odd', namespace: 'team-a' })] = {
  metadata: { name: 'odd' },
  data: {
    items: [
      { name: '__proto__', v: 'polluted' },
      { name: 'ok', v: 'fine' },
    ],
  },
}
rendered.push({ apiVersion: 'example.com/v1', kind: 'Blob', name: 'odd', namespace: 'team-a' })

t.test('extractOutputs', async (t) => {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const r = run(c.outputs, c.options)
      t.same(JSON.parse(JSON.stringify(r.values)), JSON.parse(JSON.stringify(c.values)), 'values')
      t.same(Object.keys(r.values).sort(), Object.keys(c.values).sort(), 'fields present')
      t.equal(r.condition.reason, c.reason, 'reason')
      t.equal(r.condition.status, c.status ?? (['OutputsResolved', 'NoOutputs'].includes(c.reason) ? 'True' : 'False'), 'status')
      for (const m of c.message ?? []) {
        if (typeof m === 'string') t.ok(r.condition.message.includes(m), `message contains ${JSON.stringify(m)}: ${r.condition.message}`)
        else t.match(r.condition.message, m)
      }
      t.notOk(
        r.calls.some((k) => k.includes('/Secret/')),
        'never reads a Secret',
      )
      t.equal(Object.getPrototypeOf(r.values), Object.prototype, 'values is a plain object')
    })
  }
})

t.test('the first problem gives the reason; the message counts the rest', async (t) => {
  const missing = (n: number): TemplateOutput => ({
    name: `o${n}`,
    from: { apiVersion: 'v1', kind: 'ConfigMap', name: `none-${n}` },
    fields: [{ name: `f${n}`, jsonPath: '{.data.k}' }],
  })
  const r = run([fromSvc({ from: { apiVersion: 'v1', kind: 'Secret', name: 'app1-creds' } }), ...[1, 2, 3, 4, 5, 6].map(missing)])
  t.equal(r.condition.reason, 'OutputExtractionFailed')
  t.equal(r.problems.length, 7)
  t.match(r.condition.message, /; and 2 more problem\(s\)$/)
  t.same(
    r.problems.map((p) => p.output),
    ['endpoint', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6'],
  )
})

t.test('a field keeps at most 256 keys', async (t) => {
  const ref = { apiVersion: 'example.com/v1', kind: 'Blob', name: 'many', namespace: 'team-a' }
  objects[key(ref)] = { metadata: { name: 'many' }, data: { list: Array.from({ length: 300 }, (_, i) => i) } }
  rendered.push(ref)
  const r = run([
    {
      name: 'many',
      from: { apiVersion: 'example.com/v1', kind: 'Blob', name: 'many' },
      forEach: { jsonPath: '{.data.list}' },
      fields: [{ name: 'n', jsonPath: '{.}' }],
    },
  ])
  t.equal(Object.keys(r.values['n'] ?? {}).length, MAX_KEYS_PER_FIELD)
  t.equal(r.condition.reason, 'OutputExtractionFailed')
  t.match(r.condition.message, /300 keys, at most 256/)
})

t.test('outputSourceRefs lists the rendered objects to fetch, never Secrets', async (t) => {
  const outputs: TemplateOutput[] = [
    fromSvc(),
    fromSvc({ name: 'again' }, [{ name: 'ip2', jsonPath: '{.spec.clusterIP}' }]),
    {
      name: 'cfgs',
      fromAll: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', selector: { matchLabels: { role: 'public' } } },
      fields: [],
    },
    { name: 'creds', from: { apiVersion: 'v1', kind: 'Secret', name: 'app1-creds' }, fields: [] },
    { name: 'unknown', from: { apiVersion: 'v1', kind: 'Service', name: '{.parameters.nope}' }, fields: [] },
  ]
  const refs = outputSourceRefs({
    outputs,
    context: { parameters: {}, instance: { name: 'app1', namespace: 'team-a', labels: {} } },
    frozen: false,
    exposedParameters: new Set(),
    rendered,
  })
  t.same(
    refs.map((r) => `${r.kind}/${r.namespace}/${r.name}`),
    ['Service/team-a/app1-svc', 'ConfigMap/team-a/app1-cfg', 'ConfigMap/team-a/app1-extra', 'ConfigMap/team-a/app1-private'],
  )
})

t.test('the input is not modified', async (t) => {
  const before = JSON.stringify(svc)
  const r = run([fromSvc({ forEach: { jsonPath: '{.spec.ports}' } }, [{ name: 'port', jsonPath: '{.port}' }])])
  t.equal(r.condition.status, 'True')
  t.equal(JSON.stringify(svc), before)
})
