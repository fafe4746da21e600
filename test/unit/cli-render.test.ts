// `template-sync render` from local files: no cluster involved.

import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runRender } from '../../src/cli/render.ts'
import {
  ANNOTATION_INSTANCE_REF,
  FINALIZER_RESOURCE,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_SYNC_MODE,
} from '../../src/api/names.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'

const dir = mkdtempSync(join(tmpdir(), 'ts-cli-render-'))
let seq = 0
function file(text: string): string {
  const p = join(dir, `f${++seq}.yaml`)
  writeFileSync(p, text)
  return p
}

const BODY = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .instance.name }}-cfg
data:
  greeting: {{ .parameters.greeting | quote }}
  replicas: {{ .parameters.replicas | quote }}
  literal: "yes"
extra: kept
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ .instance.name }}-creds
stringData:
  password: {{ .parameters.password | quote }}
data:
  token: c2VjcmV0LXRva2Vu
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .instance.name }}-reader
rules: []
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: {{ .instance.name }}-widget
spec: {}
`

/** The BODY renders a ClusterRole: a grant of the Template, as the reconciler requires (docs/tenancy-grants.md). */
const GRANTS = `  grants:
    objects:
      - apiGroup: rbac.authorization.k8s.io
        kind: ClusterRole
`

function templateYaml(opts: { body?: string; mode?: string; targets?: string; grants?: string } = {}): string {
  return `apiVersion: templates.v2.stakater.com/v2alpha1
kind: Template
metadata:
  name: web
  namespace: platform
spec:
${
  opts.targets ??
  `  targetNamespaces:
    explicit:
      allow:
        literal: ["*"]`
}
${opts.grants ?? GRANTS}${opts.mode ? `  sync:\n    mode: ${opts.mode}\n` : ''}  parameters:
    - name: greeting
      value: hello
    - name: replicas
      type: number
      value: "2"
    - name: password
      value: s3cret-value
    - name: fromSource
  gotemplate: |
${(opts.body ?? BODY)
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`
}

function instanceYaml(opts: { namespace?: string | null; params?: string } = {}): string {
  return `apiVersion: templates.v2.stakater.com/v2alpha1
kind: TemplateInstance
metadata:
  name: app1
${opts.namespace === null ? '' : `  namespace: ${opts.namespace ?? 'team-a'}\n`}spec:
  templateRef: { name: web, namespace: platform }
${
  opts.params ??
  `  parameters:
    - name: greeting
      value: hi`
}
`
}

interface Run {
  code: number
  out: string
  err: string
  docs: Record<string, unknown>[]
}

async function render(args: string[], yaml = true): Promise<Run> {
  let out = ''
  let err = ''
  const code = await runRender(args, {}, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } })
  const docs = code === 0 && yaml ? parseYamlStream(out).map((d) => d.value as Record<string, unknown>) : []
  return { code, out, err, docs }
}

function files(template = templateYaml(), instance = instanceYaml()): string[] {
  return ['--template', file(template), '--instance', file(instance)]
}

type Obj = {
  kind: string
  metadata: {
    name: string
    namespace?: string
    labels?: Record<string, string>
    annotations?: Record<string, string>
    finalizers?: string[]
  }
  data?: Record<string, string>
  stringData?: Record<string, string>
  extra?: unknown
}
const byKind = (r: Run, kind: string): Obj => {
  const found = r.docs.find((d) => d['kind'] === kind)
  if (found === undefined) throw new Error(`no ${kind} in output:\n${r.out}`)
  return found as unknown as Obj
}

t.test('renders from files: stamped, namespaced where the kind is, Secrets masked', async (t) => {
  const r = await render(files())
  t.equal(r.code, 0, r.err)
  t.same(
    r.docs.map((d) => d['kind']),
    ['ConfigMap', 'Secret', 'ClusterRole', 'Widget'],
  )
  const cm = byKind(r, 'ConfigMap')
  t.equal(cm.metadata.name, 'app1-cfg')
  t.equal(cm.metadata.namespace, 'team-a', 'a namespaced kind gets the instance namespace')
  t.same(cm.data, { greeting: 'hi', replicas: '2', literal: 'yes' }, 'instance value over the default; "yes" stays a string')
  t.equal(cm.extra, 'kept', 'fields unknown to the client library are kept')
  t.equal(cm.metadata.labels?.[LABEL_INSTANCE], 'app1')
  t.equal(cm.metadata.labels?.[LABEL_INSTANCE_NAME], 'app1')
  t.equal(cm.metadata.labels?.[LABEL_INSTANCE_NAMESPACE], 'team-a')
  t.equal(cm.metadata.labels?.[LABEL_SYNC_MODE], 'off', 'sync mode defaults to off')
  t.equal(cm.metadata.annotations?.[ANNOTATION_INSTANCE_REF], 'team-a/app1')
  t.notOk(cm.metadata.finalizers, 'no resource finalizer under off')
  t.equal(byKind(r, 'ClusterRole').metadata.namespace, undefined, 'a cluster-scoped kind gets no namespace')
  t.equal(byKind(r, 'Widget').metadata.namespace, undefined, 'an unknown kind is left as written')
  t.match(r.err, /note: example\.com\/v1\/Widget: whether this kind is namespaced is not known without --kubeconfig/)
  const secret = byKind(r, 'Secret')
  t.same(secret.stringData, { password: '*****' })
  t.same(secret.data, { token: '*****' })
  t.notOk(r.out.includes('s3cret-value'), 'the parameter value is not printed')
  t.notOk(r.out.includes('c2VjcmV0LXRva2Vu'), 'the data value is not printed')
})

t.test('a cluster-scoped object the Template does not grant is refused, as the reconciler refuses it', async (t) => {
  const r = await render(files(templateYaml({ grants: '' })))
  t.equal(r.code, 1)
  t.equal(r.out, '', 'nothing rendered')
  t.match(
    r.err,
    /ObjectForbidden: rendered object 3: ClusterRole\.rbac\.authorization\.k8s\.io app1-reader \(cluster-scoped\); Template platform\/web does not grant it \(spec\.grants\.objects\)/,
  )
})

t.test('--show-secrets prints Secret values; revert mode adds the resource finalizer', async (t) => {
  const r = await render([...files(templateYaml({ mode: 'revert' })), '--show-secrets'])
  t.equal(r.code, 0, r.err)
  const secret = byKind(r, 'Secret')
  t.same(secret.stringData, { password: 's3cret-value' })
  t.same(secret.data, { token: 'c2VjcmV0LXRva2Vu' })
  const cm = byKind(r, 'ConfigMap')
  t.equal(cm.metadata.labels?.[LABEL_SYNC_MODE], 'revert')
  t.same(cm.metadata.finalizers, [FINALIZER_RESOURCE])
})

t.test('a Template file is read as kubectl reads it: an unquoted mode off is the boolean false, refused with a hint', async (t) => {
  for (const spelling of ['off', 'Off', 'OFF', 'no', 'false']) {
    const r = await render(files(templateYaml({ mode: spelling })))
    t.equal(r.code, 1, `mode: ${spelling}`)
    t.equal(r.out, '', 'nothing rendered')
    t.match(r.err, /f\d+\.yaml: spec\.sync\.mode: Unsupported value: false: supported values: "off", "revert", "strict"\n/)
    t.match(r.err, /hint: kubectl reads YAML 1\.1, where an unquoted off is the boolean false; quote it: mode: "off"/)
  }
  const on = await render(files(templateYaml({ mode: 'on' })))
  t.equal(on.code, 1, 'mode: on is true, not a mode')
  t.match(on.err, /spec\.sync\.mode: Unsupported value: true:/)
  t.notMatch(on.err, /hint/, 'the hint is only for off')
  for (const quoted of ['"off"', "'off'"]) {
    const r = await render(files(templateYaml({ mode: quoted })))
    t.equal(r.code, 0, `mode: ${quoted} renders: ${r.err}`)
    t.equal(byKind(r, 'ConfigMap').metadata.labels?.[LABEL_SYNC_MODE], 'off')
  }
  const unset = await render(files(templateYaml({ mode: '~' })))
  t.equal(unset.code, 0, 'a null mode is defaulted to off, as the API server does')
  t.equal(byKind(unset, 'ConfigMap').metadata.labels?.[LABEL_SYNC_MODE], 'off')
})

t.test('--set replaces an instance entry and adds new ones', async (t) => {
  const r = await render([...files(), '--set', 'greeting=a=b', '--set', 'replicas=5'])
  t.equal(r.code, 0, r.err)
  t.same(byKind(r, 'ConfigMap').data, { greeting: 'a=b', replicas: '5', literal: 'yes' })
})

t.test('the output reads back unchanged (YAML 1.1 lookalikes are quoted)', async (t) => {
  const body =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\ndata:\n  a: "on"\n  b: "0644"\n  c: "1e3"\n  d: "~"\n  e: "2024-01-01"\n  f: "multi\\nline"\n'
  const r = await render(files(templateYaml({ body })))
  t.equal(r.code, 0, r.err)
  t.same(byKind(r, 'ConfigMap').data, { a: 'on', b: '0644', c: '1e3', d: '~', e: '2024-01-01', f: 'multi\nline' })
})

t.test('an instance file without a namespace takes --namespace', async (t) => {
  const r = await render([...files(templateYaml(), instanceYaml({ namespace: null })), '-n', 'team-z'])
  t.equal(r.code, 0, r.err)
  t.equal(byKind(r, 'ConfigMap').metadata.namespace, 'team-z')
  t.equal(byKind(r, 'ConfigMap').metadata.annotations?.[ANNOTATION_INSTANCE_REF], 'team-z/app1')
})

interface Failure {
  name: string
  args: () => string[]
  code: number
  err: RegExp[]
}

const failures: Failure[] = [
  {
    name: 'a valueFrom parameter needs a cluster, and the message names it',
    args: () =>
      files(
        templateYaml(),
        instanceYaml({ params: '  parameters:\n    - name: fromSource\n      valueFrom:\n        configMapKeyRef: { name: src, key: k }' }),
      ),
    code: 1,
    err: [/parameter "fromSource" reads ConfigMap team-a\/src key "k" \(valueFrom\), which needs a cluster/, /--set fromSource=VALUE/],
  },
  {
    name: 'a parameter type mismatch shows reason and message',
    args: () => [...files(), '--set', 'replicas=many'],
    code: 1,
    err: [/template-sync render: InvalidParameter: parameter "replicas" type mismatch/],
  },
  {
    name: 'an undeclared parameter',
    args: () => [...files(), '--set', 'nope=1'],
    code: 1,
    err: [/InvalidParameter: parameter "nope" is not declared by Template platform\/web/],
  },
  {
    name: 'a template that does not execute',
    args: () => files(templateYaml({ body: '{{ .parameters.greeting | nosuchfunc }}' })),
    code: 1,
    err: [/TemplateExecutionFailed: .*nosuchfunc/],
  },
  {
    name: 'a namespace the Template does not admit',
    args: () => files(templateYaml({ targets: '' })),
    code: 1,
    err: [/NamespaceNotPermitted: Namespace team-a is not permitted to instantiate Template platform\/web/],
  },
  {
    name: 'a missing file',
    args: () => ['--template', join(dir, 'nope.yaml'), '--instance', file(instanceYaml())],
    code: 1,
    err: [/cannot read .*nope\.yaml/],
  },
  {
    name: 'a file without a Template',
    args: () => ['--template', file(instanceYaml()), '--instance', file(instanceYaml())],
    code: 1,
    err: [/expected one Template \(apiVersion templates\.v2\.stakater\.com\/\.\.\.\), found no/],
  },
  {
    name: 'YAML that does not parse',
    args: () => ['--template', file('a: [\n'), '--instance', file(instanceYaml())],
    code: 1,
    err: [/f\d+\.yaml: document 1/],
  },
  {
    name: 'no arguments',
    args: () => [],
    code: 2,
    err: [/give NAMESPACE\/NAME, both --template and --instance, or --chart PATH alone/, /usage: template-sync render/],
  },
  { name: 'only --template', args: () => ['--template', 'x'], code: 2, err: [/both --template and --instance/] },
  { name: 'files and a name together', args: () => [...files(), 'ns/name'], code: 2, err: [/not both/] },
  { name: 'a name without a slash', args: () => ['justname'], code: 2, err: [/expected NAMESPACE\/NAME/] },
  { name: '--set without =', args: () => [...files(), '--set', 'novalue'], code: 2, err: [/--set "novalue": expected NAME=VALUE/] },
  { name: 'an unknown flag', args: () => [...files(), '--bogus'], code: 2, err: [/Unknown option '--bogus'/] },
]

t.test('failures: message on stderr, nothing on stdout, exit code', async (t) => {
  for (const f of failures) {
    const r = await render(f.args())
    t.equal(r.code, f.code, `${f.name}: exit code (${r.err.trim()})`)
    t.equal(r.out, '', `${f.name}: nothing on stdout`)
    for (const m of f.err) t.match(r.err, m, f.name)
  }
})

t.test('--help prints the usage and exits 0', async (t) => {
  const r = await render(['--help'], false)
  t.equal(r.code, 0)
  t.match(r.out, /^usage: template-sync render/)
})

t.test('an instance file naming another Template is rendered with the given one, and says so', async (t) => {
  const other = instanceYaml().replace(
    'templateRef: { name: web, namespace: platform }',
    'templateRef: { name: other, namespace: elsewhere }',
  )
  const r = await render(files(templateYaml(), other))
  t.equal(r.code, 0, r.err)
  t.match(r.err, /note: the instance's spec\.templateRef names Template elsewhere\/other; rendering with platform\/web from /)
  const plain = await render(files())
  t.notMatch(plain.err, /templateRef/)
})
