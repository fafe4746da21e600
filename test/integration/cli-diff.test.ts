// `template-sync diff` against a real API server: drift reported by path with
// exit code 1, never a Secret value; in sync (exit 0) once the reconciler has
// reverted; missing and no-longer-rendered objects; errors exit 2.

import t from 'tap'
import { adminClient, clusterInfo, eventually, freshNamespace } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  type RunningManager,
} from './helpers/operator.ts'
import { runDiff } from '../../src/cli/diff.ts'
import { runRender } from '../../src/cli/render.ts'
import { LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONTENT_MERGE } from '../../src/kube/client.ts'
import type { TemplateSpec } from '../../src/api/template.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op?.stop()
  client.close()
})

interface Run {
  code: number
  out: string
  err: string
}

async function cli(run: typeof runDiff, args: string[]): Promise<Run> {
  let out = ''
  let err = ''
  const code = await run(
    [...args, '--kubeconfig', clusterInfo().kubeconfig],
    {},
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
  )
  return { code, out, err }
}
const diff = (...args: string[]): Promise<Run> => cli(runDiff, args)
const render = (...args: string[]): Promise<Run> => cli(runRender, args)

const b64 = (s: string): string => Buffer.from(s).toString('base64')
const cmPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`
const secretPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/secrets/${name}`

const ORIGINAL = 'original-pass-value'
const LEAKED = 'edited-by-hand-value'

function body(cmName = 'app-cfg'): string {
  return [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    `  name: ${cmName}`,
    'data:',
    '  v: one',
    '  ignored: rendered',
    '---',
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    '  name: app-creds',
    'stringData:',
    `  password: ${ORIGINAL}`,
  ].join('\n')
}

function spec(extra: Partial<TemplateSpec> = {}): TemplateSpec {
  return { gotemplate: body(), sync: { mode: 'off', ignoreFields: ['data.ignored'] }, ...extra }
}

/** Secret values (plain or base64) that appear in the command's output. */
function leaks(r: Run): string[] {
  return [ORIGINAL, LEAKED, b64(ORIGINAL), b64(LEAKED)].filter((s) => r.out.includes(s) || r.err.includes(s))
}

t.test('drift is reported by path with exit 1, a Secret without its value; exit 0 once reverted', async (t) => {
  const ns = await freshNamespace(t, client, 'diff')
  await createTemplate(client, ns, 'tpl', spec())
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')

  const clean = await diff(`${ns}/app`)
  t.equal(clean.code, 0, `in sync right after the apply: ${clean.out}${clean.err}`)
  t.match(clean.out, new RegExp(`in sync +v1 ConfigMap ${ns}/app-cfg`))
  t.match(clean.out, new RegExp(`in sync +v1 Secret ${ns}/app-creds`))
  t.match(clean.out, /2 object\(s\): 2 in sync/)

  // Frozen under off: nothing reverts these edits.
  await client.request('PATCH', cmPath(ns, 'app-cfg'), { body: { data: { v: 'manual', ignored: 'edited' } }, contentType: CONTENT_MERGE })
  await client.request('PATCH', secretPath(ns, 'app-creds'), { body: { data: { password: b64(LEAKED) } }, contentType: CONTENT_MERGE })

  const drifted = await diff(`${ns}/app`)
  t.equal(drifted.code, 1, 'drift exits 1')
  t.match(drifted.out, new RegExp(`drifted +v1 ConfigMap ${ns}/app-cfg\\n +~ data\\.v\\n`))
  t.notMatch(drifted.out, /data\.ignored/, 'an ignored field is not drift')
  t.match(drifted.out, new RegExp(`drifted +v1 Secret ${ns}/app-creds\\n +~ data\\.password\\n`))
  t.match(drifted.out, /2 object\(s\): 2 drifted/)
  t.same(leaks(drifted), [], 'no Secret value in the text output')

  const json = await diff(`${ns}/app`, '-o', 'json')
  t.equal(json.code, 1)
  const report = JSON.parse(json.out) as {
    syncMode: string
    exitCode: number
    objects: { kind: string; state: string; changes: { path: string; pointer: string; kind: string }[] }[]
  }
  t.equal(report.syncMode, 'off')
  t.equal(report.exitCode, 1)
  t.same(
    report.objects.map((o) => [o.kind, o.state, o.changes.map((c) => `${c.kind} ${c.path} ${c.pointer}`)]),
    [
      ['ConfigMap', 'drifted', ['changed data.v /data/v']],
      ['Secret', 'drifted', ['changed data.password /data/password']],
    ],
  )
  t.same(leaks(json), [], 'no Secret value in the JSON output')

  // Resume management: the reconciler reverts both edits.
  await patchTemplateSpec(client, ns, 'tpl', { sync: { mode: 'revert', ignoreFields: ['data.ignored'] } })
  await waitForCondition(client, ns, 'app', 'Synced', 'True', 'SyncActive')
  const after = await eventually('diff clean after the revert', async () => {
    const r = await diff(`${ns}/app`)
    return r.code === 0 ? r : undefined
  })
  t.match(after.out, /sync mode revert/)
  t.match(after.out, /2 object\(s\): 2 in sync/)
  const cm = await client.get<{ data: Record<string, string> }>(cmPath(ns, 'app-cfg'))
  t.equal(cm.data['v'], 'one', 'reverted by the reconciler')
  t.equal(cm.data['ignored'], 'edited', 'the ignored field keeps its edit')
})

t.test('missing and no-longer-rendered objects exit 1', async (t) => {
  const ns = await freshNamespace(t, client, 'diff')
  await createTemplate(client, ns, 'tpl', spec())
  await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'app', 'Synced', 'False', 'Frozen')

  // Under off an object deleted by hand is gone for good (no finalizer holds it).
  await client.request('DELETE', secretPath(ns, 'app-creds'))
  await eventually('Secret gone', async () => ((await client.getOrUndefined(secretPath(ns, 'app-creds'))) === undefined ? true : undefined))
  const missing = await diff(`${ns}/app`)
  t.equal(missing.code, 1)
  t.match(missing.out, new RegExp(`missing +v1 Secret ${ns}/app-creds`))
  t.match(missing.out, new RegExp(`in sync +v1 ConfigMap ${ns}/app-cfg`))

  // The Template now renders another ConfigMap; the frozen instance keeps the old one.
  await patchTemplateSpec(client, ns, 'tpl', { gotemplate: body('app-cfg-2') })
  const renamed = await eventually('new render visible', async () => {
    const r = await diff(`${ns}/app`)
    return r.out.includes('app-cfg-2') ? r : undefined
  })
  t.equal(renamed.code, 1)
  t.match(renamed.out, new RegExp(`missing +v1 ConfigMap ${ns}/app-cfg-2`))
  t.match(renamed.out, new RegExp(`orphaned +v1 ConfigMap ${ns}/app-cfg: no longer rendered`))
  t.match(renamed.out, /3 object\(s\): 2 missing, 1 orphaned/)
})

t.test('errors exit 2', async (t) => {
  const ns = await freshNamespace(t, client, 'diff')
  const notFound = await diff(`${ns}/nope`)
  t.equal(notFound.code, 2)
  t.match(notFound.err, new RegExp(`template-sync diff: TemplateInstance ${ns}/nope not found`))
  t.equal(notFound.out, '')

  await createInstance(client, ns, 'orphan', { templateRef: { name: 'missing-tpl', namespace: ns } })
  const noTemplate = await diff(`${ns}/orphan`)
  t.equal(noTemplate.code, 2)
  t.match(noTemplate.err, new RegExp(`Template ${ns}/missing-tpl \\(spec.templateRef of TemplateInstance ${ns}/orphan\\) not found`))

  await createTemplate(client, ns, 'bad', { gotemplate: '{{ .parameters.x | nosuchfunc }}' })
  await createInstance(client, ns, 'broken', { templateRef: { name: 'bad', namespace: ns } })
  const broken = await diff(`${ns}/broken`)
  t.equal(broken.code, 2)
  t.match(broken.err, /the instance does not render: TemplateExecutionFailed/)

  const usage = await diff('no-slash')
  t.equal(usage.code, 2)
  t.match(usage.err, /expected NAMESPACE\/NAME/)
  const format = await diff(`${ns}/x`, '-o', 'yaml')
  t.equal(format.code, 2)
  t.match(format.err, /--output must be text or json/)
})

t.test('render reads the instance from the cluster, and valueFrom sources for files with --kubeconfig', async (t) => {
  const ns = await freshNamespace(t, client, 'render')
  await createTemplate(client, ns, 'tpl', spec())
  const inst = await createInstance(client, ns, 'app', { templateRef: { name: 'tpl', namespace: ns } })
  const r = await render(`${ns}/app`)
  t.equal(r.code, 0, r.err)
  const docs = parseYamlStream(r.out).map(
    (d) =>
      d.value as { kind: string; metadata: { namespace?: string; labels?: Record<string, string> }; stringData?: Record<string, string> },
  )
  t.same(
    docs.map((d) => d.kind),
    ['ConfigMap', 'Secret'],
  )
  t.equal(docs[0]?.metadata.namespace, ns)
  t.equal(docs[0]?.metadata.labels?.[LABEL_INSTANCE_UID], inst.metadata?.uid, 'stamped with the live instance uid')
  t.same(docs[1]?.stringData, { password: '*****' })
  t.same(leaks(r), [])

  await client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' }, data: { k: 'from-the-cluster' } },
  })
  const dir = mkdtempSync(join(tmpdir(), 'ts-cli-'))
  const tpl = join(dir, 'tpl.yaml')
  const ins = join(dir, 'inst.yaml')
  writeFileSync(
    tpl,
    JSON.stringify({
      apiVersion: 'templates.v2.stakater.com/v2alpha1',
      kind: 'Template',
      metadata: { name: 'local', namespace: ns },
      spec: {
        parameters: [{ name: 'p' }],
        gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\ndata:\n  p: {{ .parameters.p | quote }}\n',
      },
    }),
  )
  writeFileSync(
    ins,
    JSON.stringify({
      apiVersion: 'templates.v2.stakater.com/v2alpha1',
      kind: 'TemplateInstance',
      metadata: { name: 'local', namespace: ns },
      spec: {
        templateRef: { name: 'local', namespace: ns },
        parameters: [{ name: 'p', valueFrom: { configMapKeyRef: { name: 'src', key: 'k' } } }],
      },
    }),
  )
  const local = await render('--template', tpl, '--instance', ins)
  t.equal(local.code, 0, local.err)
  t.match(local.out, /p: from-the-cluster/)
})
