// Tenancy on the real API server (docs/security.md): a namespace admin who may
// create TemplateInstances gets nothing through template-sync that she could
// not get herself, and strict holds against the instance's own author. Every
// consumer action runs as that namespace admin (impersonation); the
// reconciler and the webhook run as a cluster runs them, the webhook behind
// the chart's own configuration.

import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { API_VERSION } from '../../src/api/names.ts'
import type { Template } from '../../src/api/template.ts'
import { CONTENT_MERGE, type KubeClient } from '../../src/kube/client.ts'
import type { KubeApiError } from '../../src/kube/errors.ts'
import { clusterInfo, eventually } from './helpers/cluster.ts'
import { condition, instancePath, templatePath, waitForCondition, waitForTemplateCondition } from './helpers/operator.ts'
import { systemForFile } from './helpers/system.ts'
import { deleteWithoutCleanup, instantiate, publish, refused, tenancy } from './helpers/tenancy.ts'

const { admin, system } = await systemForFile()

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`

const patchData = (client: KubeClient, ns: string, name: string, data: Record<string, string>): Promise<unknown> =>
  client.request('PATCH', cmPath(ns, name), { body: { data }, contentType: CONTENT_MERGE })

/** Denied by the strict webhook (not by RBAC): the message says so. */
async function deniedByStrict(
  t: { ok(value: unknown, message: string): unknown },
  what: string,
  fn: () => Promise<unknown>,
): Promise<KubeApiError> {
  const e = await refused(what, fn)
  t.ok(
    /admission webhook "strict\.templates\.v2\.stakater\.com" denied the request/.test(e.apiMessage),
    `${what}: denied by strict (${e.apiMessage})`,
  )
  return e
}

t.test('valueFrom reads only the instance namespace unless the Template grants more', async (t) => {
  const who = await tenancy(t, admin)
  const marker = 'victim-db-password-3c91'
  await admin.request('POST', `/api/v1/namespaces/${who.teamB.namespace}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db-creds' }, stringData: { password: marker } },
  })
  // She cannot read it herself.
  const own = await refused('alice reading the Secret', () =>
    who.teamA.client.get(`/api/v1/namespaces/${who.teamB.namespace}/secrets/db-creds`),
  )
  t.equal(own.code, 403)
  // The off-mode example Template: one parameter rendered into a ConfigMap.
  await publish(who, 'team-settings', {
    sync: { mode: 'off' },
    parameters: [{ name: 'owner', required: true, exposeInStatus: true }],
    gotemplate:
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .instance.name }}\ndata:\n  owner: {{ .parameters.owner | quote }}\n',
  })
  await instantiate(who, 'get', 'team-settings', [
    { name: 'owner', valueFrom: { secretKeyRef: { namespace: who.teamB.namespace, name: 'db-creds', key: 'password' } } },
  ])
  await instantiate(who, 'list', 'team-settings', [
    { name: 'owner', valueFrom: { objectFieldRef: { apiVersion: 'v1', kind: 'Secret', jsonPath: '.items[*].data.password' } } },
  ])
  const get = await waitForCondition(admin, who.teamA.namespace, 'get', 'ParametersValid', 'False', 'ParameterSourceForbidden')
  t.match(
    condition(get, 'ParametersValid')?.message,
    `parameter "owner": valueFrom reads Secret ${who.teamB.namespace}/db-creds, outside namespace ${who.teamA.namespace}`,
  )
  t.equal(condition(get, 'Ready')?.status, 'False')
  const list = await waitForCondition(admin, who.teamA.namespace, 'list', 'ParametersValid', 'False', 'ParameterSourceForbidden')
  t.match(condition(list, 'ParametersValid')?.message, /reads every Secret in every namespace, beyond namespace/)
  for (const name of ['get', 'list'])
    t.equal(await admin.getOrUndefined(cmPath(who.teamA.namespace, name)), undefined, `${name}: nothing rendered`)
  t.notOk(JSON.stringify([get, list]).includes(marker), 'the value appears nowhere in status')
  // The platform team sees it on its Template.
  const tpl = await waitForTemplateCondition(
    admin,
    who.platform.namespace,
    'team-settings',
    'InstancesWithinGrants',
    'False',
    'ParameterSourceForbidden',
  )
  t.match(
    condition(tpl, 'InstancesWithinGrants')?.message,
    /^2 TemplateInstance\(s\) reach beyond their namespace .*\/get: parameter "owner": valueFrom reads Secret/,
  )

  // The platform team grants that one Secret: the instance resolves, and exposeInStatus still records nothing.
  await who.platform.client.request('PATCH', templatePath(who.platform.namespace, 'team-settings'), {
    body: { spec: { grants: { parameterSources: [{ kind: 'Secret', namespace: who.teamB.namespace, names: ['db-creds'] }] } } },
    contentType: CONTENT_MERGE,
  })
  const granted = await waitForCondition(admin, who.teamA.namespace, 'get', 'ParametersValid', 'True', 'SecretNotExposed')
  t.match(condition(granted, 'ParametersValid')?.message, /"owner"; values read from Secrets are never written to status/)
  t.same(granted.status?.resolvedParameters?.[0]?.value, undefined)
  await waitForCondition(admin, who.teamA.namespace, 'list', 'ParametersValid', 'False', 'ParameterSourceForbidden')
  await eventually('one refusal left on the Template', async () => {
    const t2 = await admin.get<Template>(templatePath(who.platform.namespace, 'team-settings'))
    return condition(t2, 'InstancesWithinGrants')?.message?.startsWith('1 TemplateInstance(s)') ? true : undefined
  })
})

t.test('a render may not place objects outside the instance namespace unless the Template grants it', async (t) => {
  const who = await tenancy(t, admin)
  await publish(who, 'placed', {
    sync: { mode: 'revert' },
    parameters: [{ name: 'where' }],
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: placed\n  namespace: {{ .parameters.where }}\ndata:\n  a: "1"\n',
  })
  await publish(who, 'cluster-wide', {
    sync: { mode: 'revert' },
    gotemplate:
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .instance.namespace }}-reader\nrules: []\n',
  })
  await instantiate(who, 'elsewhere', 'placed', [{ name: 'where', value: who.teamB.namespace }])
  await instantiate(who, 'cluster', 'cluster-wide')
  const elsewhere = await waitForCondition(admin, who.teamA.namespace, 'elsewhere', 'Rendered', 'False', 'ObjectForbidden')
  t.match(condition(elsewhere, 'Rendered')?.message, `ConfigMap ${who.teamB.namespace}/placed, outside namespace ${who.teamA.namespace}`)
  const cluster = await waitForCondition(admin, who.teamA.namespace, 'cluster', 'Rendered', 'False', 'ObjectForbidden')
  t.match(condition(cluster, 'Rendered')?.message, /ClusterRole\.rbac\.authorization\.k8s\.io .*-reader \(cluster-scoped\)/)
  t.equal(await admin.getOrUndefined(cmPath(who.teamB.namespace, 'placed')), undefined, 'nothing in team-b')
  // In her own namespace the same Template applies.
  await instantiate(who, 'home', 'placed', [{ name: 'where', value: who.teamA.namespace }])
  await waitForCondition(admin, who.teamA.namespace, 'home', 'Applied', 'True')
})

t.test('no value read from a Secret reaches status, outputs, Events, logs or template-sync diff', async (t) => {
  const who = await tenancy(t, admin)
  const marker = 'tenant secret 5d2e marker'
  await who.teamA.client.request('POST', `/api/v1/namespaces/${who.teamA.namespace}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: marker } },
  })
  await publish(who, 'app', {
    sync: { mode: 'revert' },
    parameters: [{ name: 'password', exposeInStatus: true }, { name: 'label' }],
    gotemplate: [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: {{ .instance.name }}',
      '  labels:',
      '    note: {{ .parameters.label | quote }}',
      'data:',
      '  password: {{ .parameters.password | quote }}',
      '',
    ].join('\n'),
    outputs: [
      {
        name: 'pw',
        from: { apiVersion: 'v1', kind: 'ConfigMap', name: '{.instance.name}' },
        fields: [{ name: 'password', jsonPath: '{.data.password}' }],
      },
    ],
  })
  const fromSecret = { secretKeyRef: { name: 'db', key: 'password' } }
  // Rendered where the Template puts it: the ConfigMap holds it, nothing else does.
  await instantiate(who, 'good', 'app', [
    { name: 'password', valueFrom: fromSecret },
    { name: 'label', value: 'x' },
  ])
  // The same value where the API server rejects it: its validation message quotes the value.
  await instantiate(who, 'bad', 'app', [
    { name: 'password', value: 'p' },
    { name: 'label', valueFrom: fromSecret },
  ])
  const good = await waitForCondition(admin, who.teamA.namespace, 'good', 'Synced', 'True', 'SyncActive')
  const bad = await waitForCondition(admin, who.teamA.namespace, 'bad', 'Applied', 'False', 'DryRunFailed')
  t.match(condition(bad, 'Applied')?.message, /metadata\.labels: Invalid value: "\[redacted\]"/, 'the API server quoted it; we did not')
  t.equal(good.status?.outputs?.password?.pw, '[redacted]', 'an output of it is redacted')
  const cm = await admin.get<{ data: Record<string, string> }>(cmPath(who.teamA.namespace, 'good'))
  t.equal(cm.data.password, marker, 'the rendered object holds it, as the Template says')
  // Drift, so that diff has something to say about that very field.
  await patchData(who.teamA.client, who.teamA.namespace, 'good', { password: 'changed' })
  const diff = await promisify(execFile)(
    process.execPath,
    ['bin/template-sync.js', 'diff', `${who.teamA.namespace}/good`, '--kubeconfig', clusterInfo().kubeconfig, '-o', 'json'],
    { cwd: new URL('../..', import.meta.url).pathname },
  ).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }))
  await sleep(1000)
  const events = system.reconciler.events
  const instances = await admin.get(instancePath(who.teamA.namespace))
  const places: Record<string, string> = {
    'instance status': JSON.stringify(instances),
    Events: JSON.stringify(events),
    'reconciler and webhook logs': system.logs(),
    'template-sync diff': diff.stdout + diff.stderr,
  }
  t.ok(
    events.length > 0 && system.logs().length > 0,
    `there were Events (${events.length}) and log lines (${system.logs().length} bytes) to look at`,
  )
  for (const [where, text] of Object.entries(places)) t.notOk(text.includes(marker), `${where}: no trace of the value`)
})

t.test('strict is judged by the Template that rendered the object, not by the instance that names it now', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'locked', {
    sync: { mode: 'strict' },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-{{ .instance.name }}\ndata:\n  a: "1"\n',
  })
  await publish(who, 'loose', {
    sync: { mode: 'off' },
    gotemplate: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other-{{ .instance.name }}\ndata:\n  a: "1"\n',
  })
  await instantiate(who, 'app', 'locked')
  await waitForCondition(admin, ns, 'app', 'Synced', 'True', 'SyncActive')
  await deniedByStrict(t, 'editing cfg', () => patchData(who.teamA.client, ns, 'cfg-app', { a: '2' }))

  const repoint = (name: string): Promise<unknown> =>
    who.teamA.client.request('PATCH', instancePath(ns, 'app'), { body: { spec: { templateRef: { name } } }, contentType: CONTENT_MERGE })
  await repoint('does-not-exist')
  await waitForCondition(admin, ns, 'app', 'TemplateResolved', 'False', 'TemplateNotFound')
  const e = await deniedByStrict(t, 'editing cfg once the instance names a missing Template', () =>
    patchData(who.teamA.client, ns, 'cfg-app', { a: '2' }),
  )
  t.match(e.apiMessage, `Template ${who.platform.namespace}/locked, sync.mode strict`)
  await deniedByStrict(t, 'deleting cfg then', () => who.teamA.client.request('DELETE', cmPath(ns, 'cfg-app')))

  // An off Template that admits her: the next pass renders it and prunes what it no longer renders.
  await repoint('loose')
  await eventually('cfg pruned under the new Template', async () =>
    (await admin.getOrUndefined(cmPath(ns, 'cfg-app'))) === undefined ? true : undefined,
  )
  t.ok(await admin.getOrUndefined(cmPath(ns, 'other-app')), 'the new Template rendered its own object')

  // Orphaning: the instance's finalizer removed and the instance deleted, without cleanup.
  await instantiate(who, 'orphaned', 'locked')
  await waitForCondition(admin, ns, 'orphaned', 'Synced', 'True', 'SyncActive')
  await deleteWithoutCleanup(who.teamA.client, ns, 'orphaned')
  await eventually('the instance gone', async () =>
    (await admin.getOrUndefined(instancePath(ns, 'orphaned'))) === undefined ? true : undefined,
  )
  const orphan = await deniedByStrict(t, 'editing the orphan', () => patchData(who.teamA.client, ns, 'cfg-orphaned', { a: '2' }))
  t.match(orphan.apiMessage, /which no longer exists; it stays protected/)
  await deniedByStrict(t, 'deleting the orphan', () => who.teamA.client.request('DELETE', cmPath(ns, 'cfg-orphaned')))
  // A namesake instance does not release it either.
  await instantiate(who, 'orphaned', 'loose')
  await waitForCondition(admin, ns, 'orphaned', 'Applied', 'True')
  await deniedByStrict(t, 'editing the orphan under a namesake', () => patchData(who.teamA.client, ns, 'cfg-orphaned', { a: '2' }))
})

t.test(
  'ownerReferences are guarded even when metadata is ignored, a foreign one is removed, and the garbage collector may not delete a strict object',
  async (t) => {
    const who = await tenancy(t, admin)
    const ns = who.teamA.namespace
    // Her own ConfigMap, made the owner of an object she then hands over for adoption.
    const owner = await who.teamA.client.request<{ metadata: { uid: string } }>('POST', cmPath(ns), {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine' } },
    })
    const ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'mine', uid: owner.metadata.uid }
    await who.teamA.client.request('POST', cmPath(ns), {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'adopted', annotations: { 'templates.v2.stakater.com/instance-ref': `${ns}/app` }, ownerReferences: [ownerRef] },
      },
    })
    await publish(who, 'open-meta', {
      sync: { mode: 'strict', ignoreFields: ['metadata'] },
      gotemplate: [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: guarded',
        'data:',
        '  a: "1"',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: adopted',
        'data:',
        '  a: "1"',
        '',
      ].join('\n'),
    })
    await instantiate(who, 'app', 'open-meta')
    await waitForCondition(admin, ns, 'app', 'Synced', 'True', 'SyncActive')
    const guarded = await admin.get<{ metadata: { uid: string } }>(cmPath(ns, 'guarded'))
    // metadata is ignored: annotations may change, ownerReferences may not.
    await who.teamA.client.request('PATCH', cmPath(ns, 'guarded'), {
      body: { metadata: { annotations: { note: 'x' } } },
      contentType: CONTENT_MERGE,
    })
    const e = await deniedByStrict(t, 'pointing ownerReferences at her ConfigMap', () =>
      who.teamA.client.request('PATCH', cmPath(ns, 'guarded'), {
        body: { metadata: { ownerReferences: [ownerRef] } },
        contentType: CONTENT_MERGE,
      }),
    )
    t.match(e.apiMessage, /metadata\.ownerReferences/)
    await deniedByStrict(t, 'adding a finalizer', () =>
      who.teamA.client.request('PATCH', cmPath(ns, 'guarded'), {
        body: { metadata: { finalizers: ['example.com/hold'] } },
        contentType: CONTENT_MERGE,
      }),
    )

    // The ownerReference she set before handing the object over is another writer's addition: strict removes it.
    await eventually('her ownerReference removed from the adopted object', async () => {
      const o = await admin.get<{ metadata: { ownerReferences?: unknown[] } }>(cmPath(ns, 'adopted'))
      return o.metadata.ownerReferences === undefined ? true : undefined
    })

    // An ownerReference the Template renders from a parameter she sets: deleting its owner sends the
    // garbage collector, which may not delete a strict object.
    const owner2 = await who.teamA.client.request<{ metadata: { uid: string } }>('POST', cmPath(ns), {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine2' } },
    })
    await publish(who, 'tied', {
      sync: { mode: 'strict' },
      parameters: [{ name: 'owner', required: true }],
      gotemplate: [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: tied',
        '  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: mine2, uid: {{ .parameters.owner | quote }}}]',
        'data:',
        '  a: "1"',
        '',
      ].join('\n'),
    })
    await who.teamA.client.request('POST', instancePath(ns), {
      body: {
        apiVersion: API_VERSION,
        kind: 'TemplateInstance',
        metadata: { name: 'tied' },
        spec: {
          templateRef: { name: 'tied', namespace: who.platform.namespace },
          parameters: [{ name: 'owner', value: owner2.metadata.uid }],
        },
      },
    })
    await waitForCondition(admin, ns, 'tied', 'Synced', 'True', 'SyncActive')
    const tied = await admin.get<{ metadata: { uid: string } }>(cmPath(ns, 'tied'))
    await who.teamA.client.request('DELETE', cmPath(ns, 'mine2'))
    const watchedMs = 15_000
    await sleep(watchedMs)
    const still = await admin.getOrUndefined<{ metadata: { uid: string } }>(cmPath(ns, 'tied'))
    t.equal(still?.metadata.uid, tied.metadata.uid, 'the strict object is still there, the same object')
    t.equal((await admin.get<{ metadata: { uid: string } }>(cmPath(ns, 'guarded'))).metadata.uid, guarded.metadata.uid)
    const gcDenials = system
      .logs()
      .split('\n')
      .filter((l) => l.includes('generic-garbage-collector') && l.includes('admission denied') && l.includes(`${ns}/tied`)).length
    t.ok(gcDenials >= 1, `the garbage collector tried and was denied (${gcDenials} denials in ${watchedMs / 1000} s)`)
    t.comment(`garbage-collector deletes denied in ${watchedMs / 1000} s: ${gcDenials}`)
  },
)

t.test('a write through another API version is judged in full: autoscaling/v1 is no side door to an autoscaling/v2 HPA', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'hpa', {
    sync: { mode: 'strict', ignoreFields: ['metadata.annotations'] },
    gotemplate: [
      'apiVersion: autoscaling/v2',
      'kind: HorizontalPodAutoscaler',
      'metadata:',
      '  name: web',
      'spec:',
      '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      '  minReplicas: 1',
      '  maxReplicas: 3',
      '  behavior:',
      '    scaleDown:',
      '      stabilizationWindowSeconds: 300',
      '',
    ].join('\n'),
  })
  await instantiate(who, 'app', 'hpa')
  await waitForCondition(admin, ns, 'app', 'Synced', 'True', 'SyncActive')
  const v1 = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/web`
  const v2 = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/web`
  const seen = await who.teamA.client.get<{ metadata: { annotations: Record<string, string> } }>(v1)
  const behavior = seen.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior'] ?? ''
  t.match(behavior, /"StabilizationWindowSeconds":300/, 'v1 carries the v2 field in an annotation')
  const e = await deniedByStrict(t, 'changing the v2 field through autoscaling/v1', () =>
    who.teamA.client.request('PATCH', v1, {
      body: { metadata: { annotations: { 'autoscaling.alpha.kubernetes.io/behavior': behavior.replace(':300', ':0') } } },
      contentType: CONTENT_MERGE,
    }),
  )
  t.match(e.apiMessage, /written as autoscaling\/v1, but the Template renders autoscaling\/v2/)
  // The same kind of change in the rendered version is what ignoreFields allows.
  await who.teamA.client.request('PATCH', v2, { body: { metadata: { annotations: { team: 'a' } } }, contentType: CONTENT_MERGE })
  const hpa = await admin.get<{ spec: { behavior: { scaleDown: { stabilizationWindowSeconds: number } } } }>(v2)
  t.equal(hpa.spec.behavior.scaleDown.stabilizationWindowSeconds, 300)
})
