// TemplateInstance reconcile against the real API server: apply, status and
// conditions, parameter errors, pruning, deletion, ownership conflicts and
// adoption, the target-namespace policy, the dry-run gate, Template checks.

import t from 'tap'
import { adminClient, freshNamespace, eventually } from './helpers/cluster.ts'
import {
  installCrds,
  startManager,
  createTemplate,
  createInstance,
  patchTemplateSpec,
  waitForCondition,
  waitForTemplateCondition,
  deleteInstance,
  templatePath,
  condition,
  configMapTemplate,
  type RunningManager,
} from './helpers/operator.ts'
import {
  ANNOTATION_INSTANCE_REF,
  FINALIZER_RESOURCE,
  FINALIZER_INSTANCE,
  FINALIZER_TEMPLATE,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
} from '../../src/api/names.ts'
import { objectKey } from '../../src/api/identity.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'

const client = adminClient()
let op: RunningManager
t.before(async () => {
  await installCrds(client)
  op = await startManager()
})
t.teardown(async () => {
  await op.stop()
  client.close()
})

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
const getCm = (ns: string, name: string): Promise<IdentifiedObject | undefined> => client.getOrUndefined<IdentifiedObject>(cmPath(ns, name))

t.test('renders, applies with ownership metadata and reports status', async (t) => {
  const ns = await freshNamespace(t, client)
  await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 's3cret' } },
  })
  await createTemplate(client, ns, 'web', {
    parameters: [
      { name: 'owner', required: true, exposeInStatus: true },
      { name: 'replicas', type: 'number', value: '2' },
      { name: 'password' },
    ],
    sync: { mode: 'revert' },
    gotemplate: [
      configMapTemplate('{{ .instance.name }}-cfg', {
        owner: '{{ .parameters.owner | quote }}',
        replicas: '{{ .parameters.replicas | quote }}',
      }),
      '---',
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: {{ .instance.name }}-db',
      'stringData:',
      '  password: {{ .parameters.password | quote }}',
    ].join('\n'),
  })
  const created = await createInstance(client, ns, 'app1', {
    templateRef: { name: 'web', namespace: ns },
    parameters: [
      { name: 'owner', value: 'alice' },
      { name: 'password', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
    ],
  })
  const inst = await waitForCondition(client, ns, 'app1', 'Ready', 'True')
  const cm = await getCm(ns, 'app1-cfg')
  t.equal((cm?.data as Record<string, string> | undefined)?.owner, 'alice')
  t.equal((cm?.data as Record<string, string> | undefined)?.replicas, '2')
  const labels = cm?.metadata.labels ?? {}
  t.equal(labels[LABEL_INSTANCE], 'app1')
  t.equal(labels[LABEL_INSTANCE_UID], created.metadata?.uid)
  t.equal(labels[LABEL_INSTANCE_NAME], 'app1')
  t.equal(labels[LABEL_INSTANCE_NAMESPACE], ns)
  t.equal(labels[LABEL_SYNC_MODE], 'revert')
  t.equal(cm?.metadata.annotations?.[ANNOTATION_INSTANCE_REF], `${ns}/app1`)
  t.ok(cm?.metadata.finalizers?.includes(FINALIZER_RESOURCE), 'resource finalizer')
  t.ok(
    cm?.metadata.managedFields?.some((f) => f.manager === 'template-sync' && f.operation === 'Apply'),
    'applied by template-sync',
  )
  const secret = await client.get<{ data: Record<string, string> }>(`/api/v1/namespaces/${ns}/secrets/app1-db`)
  t.equal(Buffer.from(secret.data.password ?? '', 'base64').toString(), 's3cret', 'secretKeyRef value rendered')
  t.ok(inst.metadata?.finalizers?.includes(FINALIZER_INSTANCE), 'instance finalizer')
  const st = inst.status ?? {}
  t.equal(st.phase, 'Ready')
  t.equal(st.observedGeneration, inst.metadata?.generation)
  t.same(st.trackedKinds, ['v1/ConfigMap', 'v1/Secret'], 'apiVersion/kind, core kinds without a leading slash')
  t.notOk('trackedGVKs' in st, 'the older field is not written')
  t.equal(st.resolvedTemplateRef?.name, 'web')
  t.match(st.renderedResources, [
    { apiVersion: 'v1', kind: 'ConfigMap', name: 'app1-cfg', namespace: ns },
    { apiVersion: 'v1', kind: 'Secret', name: 'app1-db', namespace: ns },
  ])
  t.same(
    st.resolvedParameters?.find((p) => p.name === 'owner'),
    { name: 'owner', value: 'alice' },
    'exposed parameter value',
  )
  const pw = st.resolvedParameters?.find((p) => p.name === 'password')
  t.notOk(pw && 'value' in pw, 'secret-sourced value not exposed')
  t.same(pw?.valueFrom, { secretKeyRef: { name: 'db', key: 'password' } })
  for (const type of ['TemplateResolved', 'TargetNamespaceAllowed', 'ParametersValid', 'Rendered', 'Applied']) {
    t.equal(condition(inst, type)?.status, 'True', `${type}=True`)
  }
  t.equal(condition(inst, 'ParametersValid')?.reason, 'AllParametersResolved')
  t.ok(JSON.stringify(inst.status).indexOf('s3cret') < 0, 'no secret value anywhere in status')
})

t.test('parameter errors carry the documented reasons', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'p', {
    parameters: [
      { name: 'req', required: true },
      { name: 'fixed', value: 'x', disableOverride: true },
      { name: 'n', type: 'number', value: '1' },
      { name: 'fromCm', value: 'unused' },
    ],
    gotemplate: configMapTemplate('{{ .instance.name }}', { v: '{{ .parameters.req | quote }}', c: '{{ .parameters.fromCm | quote }}' }),
  })
  const ref = { name: 'p', namespace: ns }
  await createInstance(client, ns, 'missing-required', { templateRef: ref })
  await createInstance(client, ns, 'override', {
    templateRef: ref,
    parameters: [
      { name: 'req', value: 'a' },
      { name: 'fixed', value: 'y' },
    ],
  })
  await createInstance(client, ns, 'mistyped', {
    templateRef: ref,
    parameters: [
      { name: 'req', value: 'a' },
      { name: 'n', value: 'two' },
    ],
  })
  await createInstance(client, ns, 'unknown', {
    templateRef: ref,
    parameters: [
      { name: 'req', value: 'a' },
      { name: 'nope', value: '1' },
    ],
  })
  await createInstance(client, ns, 'unresolved', {
    templateRef: ref,
    parameters: [
      { name: 'req', value: 'a' },
      { name: 'fromCm', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k' } } },
    ],
  })
  await createInstance(client, ns, 'defaulted', {
    templateRef: ref,
    parameters: [
      { name: 'req', value: 'a' },
      { name: 'fromCm', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k' } }, defaultValue: 'fallback' },
    ],
  })
  const r1 = await waitForCondition(client, ns, 'missing-required', 'ParametersValid', 'False', 'InvalidParameter')
  t.match(condition(r1, 'ParametersValid')?.message, /req/)
  t.equal(r1.status?.phase, 'Failed')
  t.equal(condition(r1, 'Ready')?.reason, 'InvalidParameter', 'Ready carries the failing reason')
  const r2 = await waitForCondition(client, ns, 'override', 'ParametersValid', 'False', 'OverrideNotAllowed')
  t.match(condition(r2, 'ParametersValid')?.message, /fixed/)
  const r3 = await waitForCondition(client, ns, 'mistyped', 'ParametersValid', 'False', 'InvalidParameter')
  t.match(condition(r3, 'ParametersValid')?.message, /n.*number/)
  await waitForCondition(client, ns, 'unknown', 'ParametersValid', 'False', 'InvalidParameter')
  const r5 = await waitForCondition(client, ns, 'unresolved', 'ParametersValid', 'False', 'ParameterResolutionFailed')
  t.match(condition(r5, 'ParametersValid')?.message, /absent/)
  await waitForCondition(client, ns, 'defaulted', 'Ready', 'True')
  t.equal(
    ((await getCm(ns, 'defaulted'))?.data as Record<string, string> | undefined)?.c,
    'fallback',
    'defaultValue used when the source is missing',
  )
  for (const n of ['missing-required', 'override', 'mistyped', 'unknown', 'unresolved']) {
    t.equal(await getCm(ns, n), undefined, `${n}: nothing rendered`)
  }
  // Creating the missing source heals the instance (the source is watched).
  await client.request('POST', cmPath(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'absent' }, data: { k: 'now-here' } },
  })
  await patchTemplateSpec(client, ns, 'p', { sync: { mode: 'revert' } })
  await waitForCondition(client, ns, 'unresolved', 'Ready', 'True')
  t.equal(((await getCm(ns, 'unresolved'))?.data as Record<string, string> | undefined)?.c, 'now-here')
})

t.test('a Template edit that changes the rendered set prunes the old object and creates the new one', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: configMapTemplate('old-{{ .instance.name }}', { a: '"1"' }),
  })
  await createInstance(client, ns, 'i', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'i', 'Ready', 'True')
  t.ok(await getCm(ns, 'old-i'))
  await patchTemplateSpec(client, ns, 'tpl', { gotemplate: configMapTemplate('new-{{ .instance.name }}', { a: '"2"' }) })
  await eventually('old pruned, new created', async () =>
    (await getCm(ns, 'old-i')) === undefined && (await getCm(ns, 'new-i')) !== undefined ? true : undefined,
  )
  // Ready was already True before the edit: wait for the status of the pass that rendered generation 2.
  const inst = await eventually('the status of the new render', async () => {
    const i = await waitForCondition(client, ns, 'i', 'Ready', 'True')
    return i.status?.resolvedTemplateRef?.generation === 2 ? i : undefined
  })
  t.same(
    inst.status?.renderedResources?.map((r) => r.name),
    ['new-i'],
  )
  t.equal(inst.status?.resolvedTemplateRef?.generation, 2)
})

t.test('deleting an instance removes every rendered object first', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    gotemplate: [
      configMapTemplate('a-{{ .instance.name }}', { x: '"1"' }),
      '---',
      configMapTemplate('b-{{ .instance.name }}', { x: '"2"' }),
    ].join('\n'),
  })
  await createInstance(client, ns, 'gone', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'gone', 'Ready', 'True')
  await deleteInstance(client, ns, 'gone')
  t.equal(await getCm(ns, 'a-gone'), undefined)
  t.equal(await getCm(ns, 'b-gone'), undefined)
})

t.test('an existing object without ownership is never adopted; a pre-annotated one is', async (t) => {
  const ns = await freshNamespace(t, client)
  await client.request('POST', cmPath(ns), {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'taken' }, data: { mine: 'yes' } },
  })
  await client.request('POST', cmPath(ns), {
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'adopt', annotations: { [ANNOTATION_INSTANCE_REF]: `${ns}/adopter` } },
      data: { old: 'v' },
    },
  })
  await createTemplate(client, ns, 'tpl', {
    gotemplate: configMapTemplate('{{ .parameters.target }}', { rendered: '"yes"' }),
    parameters: [{ name: 'target', required: true }],
  })
  await createInstance(client, ns, 'intruder', {
    templateRef: { name: 'tpl', namespace: ns },
    parameters: [{ name: 'target', value: 'taken' }],
  })
  const bad = await waitForCondition(client, ns, 'intruder', 'Applied', 'False', 'OwnershipConflict')
  t.match(condition(bad, 'Applied')?.message, /ConfigMap .*\/taken/)
  const untouched = await getCm(ns, 'taken')
  t.same(untouched?.data, { mine: 'yes' }, 'existing object untouched')
  t.notOk(untouched?.metadata.labels?.[LABEL_INSTANCE_UID], 'no ownership stamped')

  await createInstance(client, ns, 'adopter', {
    templateRef: { name: 'tpl', namespace: ns },
    parameters: [{ name: 'target', value: 'adopt' }],
  })
  await waitForCondition(client, ns, 'adopter', 'Ready', 'True')
  const adopted = await getCm(ns, 'adopt')
  t.equal((adopted?.data as Record<string, string> | undefined)?.rendered, 'yes', 'adopted object now rendered')
  t.ok(adopted?.metadata.labels?.[LABEL_INSTANCE_UID], 'ownership stamped')

  // A second instance rendering the same object gets the same conflict.
  await createInstance(client, ns, 'second', {
    templateRef: { name: 'tpl', namespace: ns },
    parameters: [{ name: 'target', value: 'adopt' }],
  })
  const second = await waitForCondition(client, ns, 'second', 'Applied', 'False', 'OwnershipConflict')
  t.match(condition(second, 'Applied')?.message, `is managed by TemplateInstance ${ns}/adopter (uid `)
})

t.test('target namespace policy', async (t) => {
  const provider = await freshNamespace(t, client, 'prov')
  const consumer = await freshNamespace(t, client, 'cons')
  await createTemplate(client, provider, 'tpl', { gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  await createInstance(client, consumer, 'i', { templateRef: { name: 'tpl', namespace: provider } })
  const denied = await waitForCondition(client, consumer, 'i', 'TargetNamespaceAllowed', 'False', 'NamespaceNotPermitted')
  t.match(condition(denied, 'TargetNamespaceAllowed')?.message, new RegExp(`Namespace ${consumer} is not permitted`))
  t.equal(await getCm(consumer, 'i'), undefined)
  // Label the consumer namespace and let the Template select it.
  await client.request('PATCH', `/api/v1/namespaces/${consumer}`, {
    body: { metadata: { labels: { tenant: 'yes' } } },
    contentType: 'application/merge-patch+json',
  })
  await patchTemplateSpec(client, provider, 'tpl', { targetNamespaces: { selector: { matchLabels: { tenant: 'yes' } } } })
  await waitForCondition(client, consumer, 'i', 'Ready', 'True')
  t.ok(await getCm(consumer, 'i'), 'rendered once allowed')
})

t.test('the dry-run gate keeps the previous objects when the new render is rejected', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'revert' },
    gotemplate: [configMapTemplate('one', { a: '"1"' }), '---', configMapTemplate('two', { a: '"1"' })].join('\n'),
  })
  await createInstance(client, ns, 'i', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'i', 'Ready', 'True')
  // The second document is invalid for the API server (data values must be strings).
  await patchTemplateSpec(client, ns, 'tpl', {
    gotemplate: [
      configMapTemplate('one', { a: '"changed"' }),
      '---',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\ndata:\n  a:\n    nested: map',
    ].join('\n'),
  })
  const failed = await waitForCondition(client, ns, 'i', 'Applied', 'False', 'DryRunFailed')
  t.match(condition(failed, 'Applied')?.message, /ConfigMap .*two/)
  t.equal(((await getCm(ns, 'one'))?.data as Record<string, string> | undefined)?.a, '1', 'nothing applied, not even the valid object')
  t.ok(await getCm(ns, 'two'), 'previous object kept')
  t.same(failed.status?.renderedResources?.map((r) => r.name).sort(), ['one', 'two'], 'renderedResources unchanged')
})

t.test('Template: finalizer blocks deletion while used; invalid ignoreFields and bodies are reported', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'used', { gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  const ok = await waitForTemplateCondition(client, ns, 'used', 'Valid', 'True')
  t.ok(ok.metadata?.finalizers?.includes(FINALIZER_TEMPLATE), 'template finalizer')
  t.equal(condition(ok as never, 'DryRunRendered')?.reason, 'RenderSucceeded', 'dry render with literal defaults')
  await createInstance(client, ns, 'user', { templateRef: { name: 'used', namespace: ns } })
  await waitForCondition(client, ns, 'user', 'Ready', 'True')
  await client.request('DELETE', templatePath(ns, 'used'))
  const blocked = await waitForTemplateCondition(client, ns, 'used', 'Deleting', 'False', 'DeletionBlocked')
  t.match(
    condition(blocked as never, 'Deleting')?.message,
    /used by 1 TemplateInstance\(s\) \(named in spec.templateRef, or their objects were last rendered from it\)/,
  )
  await deleteInstance(client, ns, 'user')
  await eventually('template released after its last user left', async () =>
    (await client.getOrUndefined(templatePath(ns, 'used'))) === undefined ? true : undefined,
  )

  await createTemplate(client, ns, 'badignore', {
    sync: { mode: 'strict', ignoreFields: ['spec..replicas'] },
    gotemplate: configMapTemplate('x', { a: '"1"' }),
  })
  const bad = await waitForTemplateCondition(client, ns, 'badignore', 'Valid', 'False', 'ValidationFailed')
  t.match(condition(bad as never, 'Valid')?.message, /spec\.\.replicas/)
  t.equal(bad.status?.phase, 'Invalid')
  await createTemplate(client, ns, 'badbody', { gotemplate: '{{ if }}' })
  const body = await waitForTemplateCondition(client, ns, 'badbody', 'Valid', 'False', 'ValidationFailed')
  t.match(condition(body as never, 'Valid')?.message, /badbody|missing value|if/)
  await createTemplate(client, ns, 'skipped', {
    parameters: [{ name: 'x' }],
    gotemplate: configMapTemplate('x', { a: '{{ .parameters.x | quote }}' }),
  })
  await waitForTemplateCondition(client, ns, 'skipped', 'DryRunRendered', 'False', 'DryRunSkipped')
})

t.test('a missing Template is reported and resolved once it appears', async (t) => {
  const ns = await freshNamespace(t, client)
  await createInstance(client, ns, 'early', { templateRef: { name: 'later', namespace: ns } })
  const nf = await waitForCondition(client, ns, 'early', 'TemplateResolved', 'False', 'TemplateNotFound')
  t.equal(nf.status?.phase, 'Failed')
  await createTemplate(client, ns, 'later', { gotemplate: configMapTemplate('early', { a: '"1"' }) })
  await waitForCondition(client, ns, 'early', 'Ready', 'True')
  t.ok(await getCm(ns, 'early'))
})

t.test('Template outputs land in status.outputs and follow the live object', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', {
    sync: { mode: 'off' },
    gotemplate: configMapTemplate('{{ .instance.name }}-out', { color: 'blue' }),
    outputs: [
      {
        name: 'cfg',
        from: { apiVersion: 'v1', kind: 'ConfigMap', name: '{.instance.name}-out' },
        fields: [{ name: 'color', jsonPath: '{.data.color}' }],
      },
    ],
  })
  await createInstance(client, ns, 'o', { templateRef: { name: 'tpl', namespace: ns } })
  const inst = await waitForCondition(client, ns, 'o', 'OutputsResolved', 'True')
  t.same(Object.values(inst.status?.outputs?.color ?? {}), ['blue'], 'value extracted from the rendered object')
  // Outputs stay live while frozen: a change to the object shows up.
  await client.request('PATCH', cmPath(ns, 'o-out'), { body: { data: { color: 'green' } }, contentType: 'application/merge-patch+json' })
  await client.request('PATCH', `/apis/templates.v2.stakater.com/v2alpha1/namespaces/${ns}/templateinstances/o`, {
    body: { metadata: { annotations: { refresh: '1' } } },
    contentType: 'application/merge-patch+json',
  })
  await eventually('output refreshed', async () => {
    const i = await client.get<{ status?: { outputs?: Record<string, Record<string, string>> } }>(
      `/apis/templates.v2.stakater.com/v2alpha1/namespaces/${ns}/templateinstances/o`,
    )
    return Object.values(i.status?.outputs?.color ?? {})[0] === 'green' ? true : undefined
  })
})

t.test('a Template edit that adds a new kind tracks it and applies it', async (t) => {
  const ns = await freshNamespace(t, client)
  await createTemplate(client, ns, 'tpl', { sync: { mode: 'revert' }, gotemplate: configMapTemplate('{{ .instance.name }}', { a: '"1"' }) })
  await createInstance(client, ns, 'grow', { templateRef: { name: 'tpl', namespace: ns } })
  await waitForCondition(client, ns, 'grow', 'Ready', 'True')
  await patchTemplateSpec(client, ns, 'tpl', {
    gotemplate: [
      configMapTemplate('{{ .instance.name }}', { a: '"1"' }),
      '---',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .instance.name }}\nstringData:\n  k: v',
    ].join('\n'),
  })
  const inst = await eventually('Secret tracked and applied', async () => {
    const i = await client.get<{ status?: { trackedKinds?: string[]; renderedResources?: { kind: string }[] } }>(
      `/apis/templates.v2.stakater.com/v2alpha1/namespaces/${ns}/templateinstances/grow`,
    )
    return i.status?.trackedKinds?.includes('v1/Secret') && i.status.renderedResources?.some((r) => r.kind === 'Secret') ? i : undefined
  })
  t.same(inst.status?.trackedKinds, ['v1/ConfigMap', 'v1/Secret'])
  t.ok(await client.getOrUndefined(`/api/v1/namespaces/${ns}/secrets/grow`), 'the new kind was applied')
})

t.test('adoption by annotation after an OwnershipConflict is noticed within seconds; the conflict watch is then released', async (t) => {
  const ns = await freshNamespace(t, client)
  for (const name of ['late', 'vanishing']) {
    await client.request('POST', cmPath(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { old: 'v' } } })
  }
  await createTemplate(client, ns, 'tpl', {
    gotemplate: configMapTemplate('{{ .parameters.target }}', { rendered: '"yes"' }),
    parameters: [{ name: 'target', required: true }],
  })
  for (const [inst, target] of [
    ['adopter', 'late'],
    ['creator', 'vanishing'],
  ] as const) {
    await createInstance(client, ns, inst, { templateRef: { name: 'tpl', namespace: ns }, parameters: [{ name: 'target', value: target }] })
    const bad = await waitForCondition(client, ns, inst, 'Applied', 'False', 'OwnershipConflict')
    t.match(condition(bad, 'Applied')?.message, new RegExp(`annotate it with ${ANNOTATION_INSTANCE_REF}=${ns}/${inst}`), 'the advice')
  }
  const lateKey = objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'late' })
  await eventually('conflict watch running', async () => (op.manager.conflicts.state(lateKey).synced ? true : undefined))
  t.same(op.manager.conflicts.ownersOf(lateKey), [`${ns}/adopter`], 'the object is watched by name for its instance')

  // Follow the advice: annotate. Nothing touches the TemplateInstance.
  const annotated = Date.now()
  await client.request('PATCH', cmPath(ns, 'late'), {
    body: { metadata: { annotations: { [ANNOTATION_INSTANCE_REF]: `${ns}/adopter` } } },
    contentType: 'application/merge-patch+json',
  })
  const adopted = await eventually(
    'adopted',
    async () => {
      const cm = await getCm(ns, 'late')
      return cm?.metadata.labels?.[LABEL_INSTANCE_UID] && (cm.data as Record<string, string>).rendered === 'yes' ? cm : undefined
    },
    5000,
    50,
  )
  const adoptMs = Date.now() - annotated
  t.comment(`adopted ${adoptMs} ms after the annotation`)
  t.ok(adoptMs < 5000, 'within a few seconds')
  t.equal(adopted.metadata.annotations?.[ANNOTATION_INSTANCE_REF], `${ns}/adopter`)
  await waitForCondition(client, ns, 'adopter', 'Applied', 'True', undefined, 5000)
  await eventually('conflict watch released', async () => (op.manager.conflicts.ownersOf(lateKey).length === 0 ? true : undefined), 5000)
  t.notOk(op.manager.conflicts.keys().includes(lateKey), 'no watch left for the adopted object')

  // The other way a conflict ends: the object goes, and the instance creates its own at once.
  await client.request('DELETE', cmPath(ns, 'vanishing'))
  const created = await eventually(
    'created after the delete',
    async () => {
      const cm = await getCm(ns, 'vanishing')
      return cm?.metadata.labels?.[LABEL_INSTANCE_UID] ? cm : undefined
    },
    5000,
    50,
  )
  t.equal((created.data as Record<string, string>).rendered, 'yes')
  await eventually(
    'second conflict watch released',
    async () =>
      op.manager.conflicts.ownersOf(objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'vanishing' })).length === 0
        ? true
        : undefined,
    5000,
  )
})
