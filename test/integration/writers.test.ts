// Drift that knows who wrote it (docs/writers.md), on a control plane that runs
// the cluster's own components: kube-controller-manager's default controllers
// under their own service accounts, kube-scheduler, and a simulated node
// (kwok) where pods run. The components' writes to fields a Template does not
// render are never drift; everyone else's additions are. Every consumer
// action runs as team-a's namespace admin.

import t from 'tap'
import { CONTENT_MERGE, CONTENT_JSON_PATCH } from '../../src/kube/client.ts'
import { KubeApiError } from '../../src/kube/errors.ts'
import { eventually } from './helpers/cluster.ts'
import { templatePath, waitForCondition } from './helpers/operator.ts'
import { systemForFile } from './helpers/system.ts'
import { instantiate, publish, refused, tenancy } from './helpers/tenancy.ts'
import { DEFAULT_COMPONENTS, writerOfUser } from '../../src/api/writers.ts'

// A correction that holds for a second ends a fight: the edits below, a second and a half apart, are
// each a drift of their own, not a quick series (that is docs/drift-fights.md's, tested there).
const { admin, system } = await systemForFile({ instanceOptions: { conflictWindowMs: 1000 } })

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
type Obj = {
  metadata: { generation?: number; annotations?: Record<string, string>; labels?: Record<string, string> }
  spec?: any
  status?: any
}

const deployment = (image: string): string =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    'spec:',
    '  replicas: 2',
    '  selector: {matchLabels: {app: web}}',
    '  template:',
    '    metadata: {labels: {app: web}}',
    '    spec:',
    `      containers: [{name: web, image: "${image}"}]`,
    '',
  ].join('\n')

const deployPath = (ns: string): string => `/apis/apps/v1/namespaces/${ns}/deployments/web`

/** Denials the webhook logged for requests by the cluster's components. */
function componentDenials(): string[] {
  return system
    .logs()
    .split('\n')
    .filter((l) => l.includes('"admission denied"'))
    .filter((l) => {
      const user = (JSON.parse(l) as { user?: string }).user ?? ''
      return writerOfUser({ username: user }, [], DEFAULT_COMPONENTS) === 'component'
    })
}

t.test('a strict Deployment gets its status, rolls out a new render, and still refuses a person`s edit', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'web', { sync: { mode: 'strict' }, gotemplate: deployment('registry.example/web:1') })
  await instantiate(who, 'web', 'web')
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive')
  const rolledOut = async (image: string): Promise<Obj> =>
    eventually(
      `Deployment web rolled out with ${image}`,
      async () => {
        const d = await admin.get<Obj>(deployPath(ns))
        const s = d.status ?? {}
        const done =
          s.observedGeneration === d.metadata.generation &&
          s.updatedReplicas === 2 &&
          s.availableReplicas === 2 &&
          d.spec.template.spec.containers[0].image === image
        return done ? d : undefined
      },
      60_000,
      250,
    )
  const first = await rolledOut('registry.example/web:1')
  t.equal(first.metadata.annotations?.['deployment.kubernetes.io/revision'], '1', 'the controller wrote its revision annotation')
  await who.platform.client.request('PATCH', templatePath(who.platform.namespace, 'web'), {
    body: { spec: { gotemplate: deployment('registry.example/web:2') } },
    contentType: CONTENT_MERGE,
  })
  const second = await rolledOut('registry.example/web:2')
  t.equal(second.metadata.annotations?.['deployment.kubernetes.io/revision'], '2', 'a new render rolls out')
  const e = await refused('a person editing the image', () =>
    who.teamA.client.request('PATCH', deployPath(ns), {
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'evil:1' }],
      contentType: CONTENT_JSON_PATCH,
    }),
  )
  t.match(e.apiMessage, /denied the request: .*spec\.template\.spec\.containers\[0\]\.image/)
  t.same(componentDenials(), [], 'no component was denied')
})

t.test(
  'strict claims bind; strict StatefulSets, Jobs, DaemonSets, Services, CronJobs and token Secrets reach their usual state',
  async (t) => {
    const who = await tenancy(t, admin)
    const ns = who.teamA.namespace
    const pv = `pv-${ns}`
    await admin.request('POST', '/api/v1/persistentvolumes', {
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: pv },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: `manual-${ns}`,
          hostPath: { path: '/tmp/pv' },
          persistentVolumeReclaimPolicy: 'Retain',
        },
      },
    })
    t.teardown(() => admin.request('DELETE', `/api/v1/persistentvolumes/${pv}`).catch(() => undefined))
    const objects = [
      `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce], storageClassName: manual-${ns}, resources: {requests: {storage: 1Gi}}}`,
      'apiVersion: v1\nkind: Service\nmetadata: {name: db}\nspec: {selector: {app: db}, ports: [{port: 80}]}',
      'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {serviceName: db, replicas: 1, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: db, image: db:1}]}}}',
      'apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: once, image: job:1}]}}}',
      'apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec: {schedule: "0 3 * * *", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: nightly, image: job:1}]}}}}}',
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: agent, image: agent:1}]}}}',
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot}',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: robot-token, annotations: {kubernetes.io/service-account.name: robot}}\ntype: kubernetes.io/service-account-token',
    ]
    await publish(who, 'stack', { sync: { mode: 'strict' }, gotemplate: `${objects.join('\n---\n')}\n` })
    await instantiate(who, 'stack', 'stack')
    await waitForCondition(admin, ns, 'stack', 'Synced', 'True', 'SyncActive', 60_000)
    const reach = (what: string, path: string, done: (o: Obj) => boolean): Promise<Obj> =>
      eventually(
        what,
        async () => {
          const o = await admin.get<Obj>(path)
          return done(o) ? o : undefined
        },
        60_000,
        250,
      )
    const claim = await reach('the claim Bound', `/api/v1/namespaces/${ns}/persistentvolumeclaims/data`, (o) => o.status?.phase === 'Bound')
    t.equal(claim.spec.volumeName, pv, 'the binder wrote spec.volumeName')
    await reach('the StatefulSet ready', `/apis/apps/v1/namespaces/${ns}/statefulsets/db`, (o) => o.status?.readyReplicas === 1)
    await reach('the Job complete', `/apis/batch/v1/namespaces/${ns}/jobs/once`, (o) => o.status?.succeeded === 1)
    await reach(
      'the DaemonSet ready',
      `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`,
      (o) => (o.status?.numberReady ?? 0) >= 1 && o.status?.numberReady === o.status?.desiredNumberScheduled,
    )
    await reach(
      'the token Secret filled',
      `/api/v1/namespaces/${ns}/secrets/robot-token`,
      (o) => typeof (o as { data?: { token?: string } }).data?.token === 'string',
    )
    const slices = await admin.get<{ items: unknown[] }>(
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io/service-name=db`,
    )
    t.ok(slices.items.length > 0, 'the Service has its EndpointSlice')
    t.ok(await admin.get(`/apis/batch/v1/namespaces/${ns}/cronjobs/nightly`), 'the CronJob stands')
    await waitForCondition(admin, ns, 'stack', 'Ready', 'True')
    t.same(componentDenials(), [], 'no component was denied')
  },
)

const revertDeployment = (): string => deployment('registry.example/web:1').replace('  replicas: 2\n', '')

t.test('revert removes what another writer adds, within a second, and leaves the components` fields alone', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'web', { sync: { mode: 'revert' }, gotemplate: revertDeployment() })
  await instantiate(who, 'web', 'web')
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive')
  await eventually('revision annotation', async () =>
    (await admin.get<Obj>(deployPath(ns))).metadata.annotations?.['deployment.kubernetes.io/revision'] ? true : undefined,
  )
  const a = who.teamA.client
  const edits: [string, () => Promise<unknown>, (d: Obj) => boolean][] = [
    [
      'kubectl set env DEBUG=1',
      () =>
        a.request('PATCH', deployPath(ns), {
          body: { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'DEBUG', value: '1' }] }] } } } },
          contentType: 'application/strategic-merge-patch+json',
          query: { fieldManager: 'kubectl-set' },
        }),
      (d) => d.spec.template.spec.containers[0].env === undefined,
    ],
    [
      'kubectl label extra=1',
      () =>
        a.request('PATCH', deployPath(ns), {
          body: { metadata: { labels: { extra: '1' } } },
          contentType: CONTENT_MERGE,
          query: { fieldManager: 'kubectl-label' },
        }),
      (d) => d.metadata.labels?.extra === undefined,
    ],
    [
      'privileged: true',
      () =>
        a.request('PATCH', deployPath(ns), {
          body: { spec: { template: { spec: { containers: [{ name: 'web', securityContext: { privileged: true } }] } } } },
          contentType: 'application/strategic-merge-patch+json',
          query: { fieldManager: 'kubectl-patch' },
        }),
      (d) => d.spec.template.spec.containers[0].securityContext?.privileged !== true,
    ],
    [
      'hostNetwork: true',
      () =>
        a.request('PATCH', deployPath(ns), {
          body: [{ op: 'add', path: '/spec/template/spec/hostNetwork', value: true }],
          contentType: CONTENT_JSON_PATCH,
          query: { fieldManager: 'kubectl-patch' },
        }),
      (d) => d.spec.template.spec.hostNetwork !== true,
    ],
  ]
  const latencies: number[] = []
  for (const [what, edit, removed] of edits) {
    const at = Date.now()
    await edit()
    await eventually(`${what} removed`, async () => (removed(await admin.get<Obj>(deployPath(ns))) ? true : undefined), 10_000, 20)
    latencies.push(Date.now() - at)
    await sleep(1500)
  }
  t.comment(`removed after (ms): ${latencies.join(' ')}`)
  t.ok(
    latencies.every((ms) => ms < 1000),
    `each addition removed within 1 s (${latencies.join(', ')} ms)`,
  )
  const d = await admin.get<Obj>(deployPath(ns))
  t.ok(d.metadata.annotations?.['deployment.kubernetes.io/revision'], 'the deployment controller`s annotation stays')
  t.equal(d.spec.replicas, 1, 'the replicas the API server defaulted stay')
  const reverted = system.reconciler.events.filter((e) => e.reason === 'Reverted' && /what the Template does not render/.test(e.message))
  t.ok(
    reverted.some((e) => /added by field manager "kubectl-label"/.test(e.message)),
    'the Event names the writer',
  )
  // Today's behaviour stays: a change of a rendered field is put back.
  await a.request('PATCH', deployPath(ns), {
    body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'evil:1' }],
    contentType: CONTENT_JSON_PATCH,
  })
  await eventually(
    'the image put back',
    async () =>
      (await admin.get<Obj>(deployPath(ns))).spec.template.spec.containers[0].image === 'registry.example/web:1' ? true : undefined,
    10_000,
    50,
  )
})

t.test('at rest, with every controller running, template-sync writes nothing', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'web', { sync: { mode: 'revert' }, gotemplate: revertDeployment() })
  await instantiate(who, 'web', 'web')
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive')
  await eventually(
    'rolled out',
    async () => ((await admin.get<Obj>(deployPath(ns))).status?.availableReplicas === 1 ? true : undefined),
    60_000,
    250,
  )
  await sleep(3000)
  let writes = 0
  const stop = system.reconciler.client.observe((verb, path) => {
    if (path.includes(`/namespaces/${ns}/`) && verb !== 'GET' && verb !== 'WATCH' && !verb.endsWith('-DRYRUN')) writes++
  })
  await sleep(60_000)
  stop()
  t.equal(writes, 0, 'no write in 60 s')
})

t.test('a manager name that poses as a component: revert takes it at its word, strict does not', async (t) => {
  const who = await tenancy(t, admin)
  const ns = who.teamA.namespace
  await publish(who, 'web', { sync: { mode: 'revert' }, gotemplate: revertDeployment() })
  await instantiate(who, 'web', 'web')
  await waitForCondition(admin, ns, 'web', 'Synced', 'True', 'SyncActive')
  await who.teamA.client.request('PATCH', deployPath(ns), {
    body: { metadata: { labels: { posed: '1' } } },
    contentType: CONTENT_MERGE,
    query: { fieldManager: 'kube-controller-manager' },
  })
  await sleep(2000)
  t.equal(
    (await admin.get<Obj>(deployPath(ns))).metadata.labels?.posed,
    '1',
    'revert reads managedFields, where a client names itself: the label stays (docs/writers.md)',
  )
  await publish(who, 'locked', {
    sync: { mode: 'strict' },
    gotemplate: deployment('registry.example/web:1').replace('name: web', 'name: locked'),
  })
  await instantiate(who, 'locked', 'locked')
  await waitForCondition(admin, ns, 'locked', 'Synced', 'True', 'SyncActive')
  const e = await refused('the same label on a strict object', () =>
    who.teamA.client.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/locked`, {
      body: { metadata: { labels: { posed: '1' } } },
      contentType: CONTENT_MERGE,
      query: { fieldManager: 'kube-controller-manager' },
    }),
  )
  t.ok(e instanceof KubeApiError && e.code === 403, 'strict judges the user, not the manager name')
})
