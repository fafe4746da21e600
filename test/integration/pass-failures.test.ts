// Failures of a pass reach the instance (docs/status-and-discovery.md): a
// value too large to expose in status is left out of it and named on
// ParametersValid while the rest of the status is written; a rendered kind
// the API server does not serve is Applied=False/KindNotFound within one
// pass, and once its CRD is installed the instance applies within seconds,
// untouched. Every consumer action runs as team-a's namespace admin; the CRD
// is the cluster admin's.

import t from 'tap'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { CONTENT_APPLY } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { eventually } from './helpers/cluster.ts'
import { condition, getInstance, waitForCondition } from './helpers/operator.ts'
import { systemForFile } from './helpers/system.ts'
import { instantiate, publish, tenancy } from './helpers/tenancy.ts'

const { admin, system } = await systemForFile()

/** "Within one pass": the first pass of a new instance, on a shared machine. */
const ONE_PASS_MS = 10_000
/** "Within a few seconds of the CRD being established". */
const PICKED_UP_MS = 5_000

const crdPath = (name = ''): string => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions${name ? `/${name}` : ''}`

t.test('a 1 MiB value of an exposeInStatus parameter: left out of status and named on ParametersValid; the rest is written', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'big', {
    sync: { mode: 'revert' },
    parameters: [
      { name: 'blob', exposeInStatus: true },
      { name: 'small', value: 'kept', exposeInStatus: true },
    ],
    gotemplate:
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  small: {{ .parameters.small }}\n  size: "{{ len .parameters.blob }}"\n',
  })
  const started = Date.now()
  await instantiate(who, 'big', 'big', [{ name: 'blob', value: 'x'.repeat(1 << 20) }])
  const inst = await waitForCondition(admin, ns, 'big', 'ParametersValid', 'True', 'ExposedValueTooLarge', ONE_PASS_MS)
  const ms = Date.now() - started
  t.comment(`ParametersValid=True/ExposedValueTooLarge ${ms} ms after the instance was created`)
  const message = condition(inst, 'ParametersValid')?.message ?? ''
  t.match(message, '"blob"', 'the message names the parameter')
  t.match(message, '1048578 bytes', 'and its size')
  t.match(message, '16384 bytes', 'and the limit')
  const resolved = inst.status?.resolvedParameters ?? []
  t.same(
    resolved.map((p) => ({ name: p.name, ...(p.value !== undefined ? { value: p.value } : {}) })),
    [{ name: 'blob' }, { name: 'small', value: 'kept' }],
    'the large value is left out, the small one recorded',
  )
  const applied = await waitForCondition(admin, ns, 'big', 'Ready', 'True', undefined, ONE_PASS_MS)
  t.equal(condition(applied, 'Applied')?.status, 'True', 'the instance applied')
  t.same(
    applied.status?.renderedResources?.map((r) => r.name),
    ['big'],
    'status.renderedResources is written',
  )
  const cm = await who.teamA.client.get<{ data: Record<string, string> }>(`/api/v1/namespaces/${ns}/configmaps/big`)
  t.same(cm.data, { small: 'kept', size: String(1 << 20) }, 'the render used the whole value')
})

t.test('a kind whose CRD is not installed: Applied=False/KindNotFound, then applied within seconds of the CRD, untouched', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  const group = `w${process.pid}x${Date.now().toString(36)}.example.com`
  const crdName = `widgets.${group}`
  t.teardown(async () => {
    await admin.request('DELETE', crdPath(crdName)).catch((e: unknown) => {
      if (!(e instanceof KubeApiError && e.code === 404)) throw e
    })
  })
  await publish(who, 'widget', {
    sync: { mode: 'revert' },
    // One Widget names its namespace (the render passes it on), one leaves it to the kind's scope.
    gotemplate: [
      `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: {{ .instance.namespace }}\nspec:\n  size: 3\n`,
      `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: 4\n`,
    ].join('---\n'),
  })
  await instantiate(who, 'widget', 'widget')
  const inst = await waitForCondition(admin, ns, 'widget', 'Applied', 'False', 'KindNotFound', ONE_PASS_MS)
  t.match(
    condition(inst, 'Applied')?.message ?? '',
    `Widget ${group}/v1 is not served by the API server`,
    'the message names the kind and its apiVersion',
  )
  t.equal(condition(inst, 'Ready')?.reason, 'KindNotFound', 'Ready=False says why')
  t.equal(condition(inst, 'Ready')?.status, 'False')
  const generation = inst.metadata?.generation

  await admin.request('PATCH', crdPath(crdName), {
    contentType: CONTENT_APPLY,
    query: { fieldManager: 'pass-failures-test', force: true },
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  })
  await eventually(
    `CRD ${crdName} established`,
    async () => {
      const crd = await admin.get<{ status?: { conditions?: { type: string; status: string }[] } }>(crdPath(crdName))
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined
    },
    30_000,
    20,
  )
  const established = Date.now()
  const sizeOf = async (name: string): Promise<number | undefined> =>
    (await admin.getOrUndefined<{ spec?: { size?: number } }>(`/apis/${group}/v1/namespaces/${ns}/widgets/${name}`))?.spec?.size
  await eventually(
    'the Widgets applied',
    async () => ((await sizeOf('w1')) === 3 && (await sizeOf('w2')) === 4 ? true : undefined),
    PICKED_UP_MS,
    50,
  ).catch(async (e: unknown) => {
    throw new Error(`${(e as Error).message}; Applied: ${JSON.stringify(condition(await getInstance(admin, ns, 'widget'), 'Applied'))}`)
  })
  t.comment(`the Widgets exist ${Date.now() - established} ms after the CRD was established`)
  const after = await waitForCondition(admin, ns, 'widget', 'Applied', 'True', undefined, PICKED_UP_MS)
  const ms = Date.now() - established
  t.comment(`Applied=True ${ms} ms after the CRD was established`)
  t.ok(ms < PICKED_UP_MS, `applied ${ms} ms after the CRD was established`)
  // The new kind's drift watch may meet "storage is (re)initializing" first; Ready follows once it has synced.
  await waitForCondition(admin, ns, 'widget', 'Ready', 'True', undefined, PICKED_UP_MS)
  t.equal((after as TemplateInstance).metadata?.generation, generation, 'the instance was not touched')
  t.ok(
    system.reconciler.events.some((e) => e.reason === 'KindNotFound' && e.message.includes(`Widget ${group}/v1`)),
    'a KindNotFound Event named the kind',
  )
})
