// The Helm chart: lint and render with several value sets, the values schema,
// the CRDs it ships, and an install of the default rendering into the test
// API server (server-side dry-run of every object, then for real), including
// the webhook configuration's CEL matchConditions as the API server compiles
// and evaluates them.

import t from 'tap'
import { parseReconcilerConfig } from '../../src/reconciler/main.ts'
import { parseWebhookConfig } from '../../src/webhook/config.ts'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadAll } from 'js-yaml'
import { adminClient, eventually, freshNamespace } from './helpers/cluster.ts'
import {
  binaryPath,
  chartDir,
  find,
  type HelmResult,
  helm,
  KUBE_VERSION,
  type Manifest,
  render as renderWith,
  valuesFile,
} from './helpers/chart.ts'
import { crdManifests } from '../../src/api/crds.ts'
import { LABEL_INSTANCE_UID, LABEL_SYNC_MODE } from '../../src/api/names.ts'
import { CONTENT_APPLY, CONTENT_MERGE, type KubeClient } from '../../src/kube/client.ts'
import { RestMapper, resourcePath } from '../../src/kube/discovery.ts'
import { KubeApiError } from '../../src/kube/errors.ts'

interface Rule {
  apiGroups: string[]
  resources: string[]
  resourceNames?: string[]
  verbs: string[]
}
interface WebhookEntry {
  name: string
  failurePolicy: string
  timeoutSeconds: number
  sideEffects: string
  admissionReviewVersions: string[]
  matchPolicy: string
  clientConfig: { url?: string; caBundle?: string; service?: { name: string; namespace: string; path: string; port: number } }
  rules: { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[]; scope: string }[]
  namespaceSelector?: { matchExpressions: { key: string; operator: string; values: string[] }[] }
  matchConditions?: { name: string; expression: string }[]
}
interface PodSpec {
  serviceAccountName: string
  securityContext: Record<string, unknown>
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: { podAffinityTerm: { topologyKey: string } }[] } }
  containers: {
    name: string
    image: string
    args: string[]
    env?: { name: string; value?: string }[]
    securityContext: Record<string, unknown>
    readinessProbe: { httpGet: { path: string; port: string } }
    livenessProbe: { httpGet: { path: string; port: string } }
    ports: { name: string; containerPort: number }[]
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[]
    resources: Record<string, unknown>
  }[]
  volumes?: { name: string; emptyDir?: unknown; secret?: { secretName: string } }[]
}
type Deployment = Manifest & { spec: { replicas: number; template: { spec: PodSpec } } }

const root = new URL('../../', import.meta.url).pathname
const bin = await binaryPath('helm')
const render = (values: object = {}, release = 'template-sync', namespace = 'template-sync'): Manifest[] =>
  renderWith(bin, values, release, namespace)

const rulesOf = (ms: Manifest[], kind: string, name: string): Rule[] => (find(ms, kind, name) as Manifest & { rules: Rule[] }).rules
const webhooksOf = (ms: Manifest[]): WebhookEntry[] =>
  (find(ms, 'ValidatingWebhookConfiguration', 'template-sync') as Manifest & { webhooks: WebhookEntry[] }).webhooks
const argValues = (args: readonly string[], flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1] ?? ''] : []))

/** What docs/observability.md turns on, with the labels a kube-prometheus-stack install selects by. */
const MONITORING = {
  metrics: {
    serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
    prometheusRule: {
      enabled: true,
      labels: { release: 'kube-prometheus-stack' },
      alertLabels: { team: 'platform' },
      runbookUrl: 'https://runbooks.example.com/template-sync',
    },
    dashboard: { enabled: true, annotations: { grafana_folder: 'Platform' } },
  },
}
const caBundle = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64')
const valueSets: Record<string, object> = {
  default: {},
  'cert-manager': { certManager: { enabled: true } },
  'cert-manager with an existing issuer': { certManager: { enabled: true, issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer' } } },
  'additional rules': {
    rbac: {
      additionalRules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      ],
    },
  },
  'url override': { webhook: { url: 'https://127.0.0.1:9443/validate', caBundle } },
  'existing secret': { webhook: { tls: { existingSecret: 'my-webhook-tls' }, caBundle } },
  'scale and pods fail open, no revert entry, one replica each': {
    webhook: {
      replicas: 1,
      scale: { failurePolicy: 'Ignore' },
      pods: { failurePolicy: 'Ignore' },
      revert: { enabled: false },
      podDisruptionBudget: { enabled: false },
      priorityClassName: 'system-cluster-critical',
    },
    reconciler: { replicas: 1 },
  },
  'monitoring: ServiceMonitor, alerts and dashboard': MONITORING,
  'monitoring: PodMonitor and alerts': { metrics: { podMonitor: { enabled: true }, prometheusRule: { enabled: true } } },
}

t.test('helm lint passes for every value set', async (t) => {
  for (const [name, values] of Object.entries(valueSets)) {
    const r = helm(bin, ['lint', chartDir, '--strict', '--kube-version', KUBE_VERSION, '-f', valuesFile(values)])
    t.equal(r.status, 0, `${name}: ${r.stdout}${r.stderr}`)
  }
})

t.test('helm template renders every value set', async (t) => {
  for (const [name, values] of Object.entries(valueSets)) {
    const ms = render(values)
    t.ok(ms.length > 10, `${name}: ${ms.length} objects`)
    for (const m of ms) {
      t.equal(m.metadata.labels?.['app.kubernetes.io/managed-by'], 'Helm', `${name}: ${m.kind}/${m.metadata.name} labelled`)
      t.equal(m.metadata.labels?.['app.kubernetes.io/instance'], 'template-sync')
    }
  }
})

t.test('the chart refuses Kubernetes older than 1.30', async (t) => {
  const r = helm(bin, ['template', 'x', chartDir, '--kube-version', '1.29.9'])
  t.not(r.status, 0)
  t.match(r.stderr, /kubeVersion/)
})

t.test('values.schema.json rejects bad values', async (t) => {
  const bad: Record<string, object> = {
    'replicas as a word': { webhook: { replicas: 'two' } },
    'zero webhook replicas': { webhook: { replicas: 0 } },
    'unknown top-level key': { replicaCount: 2 },
    'unknown nested key': { webhook: { failurePolicy: 'Ignore' } },
    'scale failure policy': { webhook: { scale: { failurePolicy: 'Maybe' } } },
    'log level': { logLevel: 'loud' },
    'plain http url': { webhook: { url: 'http://127.0.0.1:9443/validate' } },
    'timeout over 30 s': { webhook: { strict: { timeoutSeconds: 31 } } },
    'rule without verbs': { rbac: { additionalRules: [{ apiGroups: [''], resources: ['pods'] }] } },
    'made-up verb': { rbac: { additionalRules: [{ apiGroups: [''], resources: ['pods'], verbs: ['read'] }] } },
    'scale target without version': { rbac: { scaleTargets: [{ group: 'apps', resource: 'deployments' }] } },
    'quote in an operator username': { webhook: { extraOperatorUsernames: ["x' || true || '"] } },
    'pull policy': { image: { pullPolicy: 'Sometimes' } },
    'shell text in node options': { webhook: { nodeOptions: '--max-semi-space-size=8; rm -rf /' } },
    'shell text in reconciler node options': { reconciler: { nodeOptions: '--max-semi-space-size=16 && id' } },
    'an error ratio above 1': { metrics: { prometheusRule: { thresholds: { reconcileErrorRatio: 2 } } } },
    'a scrape interval that is no duration': { metrics: { serviceMonitor: { interval: 'often' } } },
    'an unknown monitoring key': { metrics: { grafana: { enabled: true } } },
  }
  const template = (values: object): HelmResult =>
    helm(bin, ['template', 'template-sync', chartDir, '--kube-version', KUBE_VERSION, '-f', valuesFile(values)])
  for (const [name, values] of Object.entries(bad)) {
    const r = template(values)
    t.not(r.status, 0, `${name} is rejected`)
    t.match(r.stderr, /values don't meet the specifications of the schema|schema/i, name)
  }
  const r = template({ webhook: { tls: { existingSecret: 'x' } } })
  t.not(r.status, 0, 'an existing Secret without a CA bundle is refused')
  t.match(r.stderr, /needs webhook.caBundle/)
  const both = template({ metrics: { serviceMonitor: { enabled: true }, podMonitor: { enabled: true } } })
  t.not(both.status, 0, 'a ServiceMonitor and a PodMonitor together are refused')
  t.match(both.stderr, /not both/)
})

t.test('default rendering: objects, names and security', async (t) => {
  const ms = render()
  t.strictSame(ms.map((m) => `${m.kind}/${m.metadata.name}`).sort(), [
    'ClusterRole/template-sync-instance-editor',
    'ClusterRole/template-sync-reconciler',
    'ClusterRole/template-sync-template-author',
    'ClusterRole/template-sync-viewer',
    'ClusterRole/template-sync-webhook',
    'ClusterRole/template-sync-webhook-configuration',
    'ClusterRoleBinding/template-sync-reconciler',
    'ClusterRoleBinding/template-sync-webhook',
    'ClusterRoleBinding/template-sync-webhook-configuration',
    'Deployment/template-sync-reconciler',
    'Deployment/template-sync-webhook',
    'PodDisruptionBudget/template-sync-webhook',
    'Role/template-sync-reconciler-leader-election',
    'Role/template-sync-webhook-certs',
    'RoleBinding/template-sync-reconciler-leader-election',
    'RoleBinding/template-sync-webhook-certs',
    'Service/template-sync-webhook',
    'ServiceAccount/template-sync-reconciler',
    'ServiceAccount/template-sync-webhook',
    'ValidatingWebhookConfiguration/template-sync',
  ])
  for (const name of ['template-sync-webhook', 'template-sync-reconciler']) {
    const d = find<Deployment>(ms, 'Deployment', name)
    t.equal(d.spec.replicas, 2, `${name}: two replicas`)
    const pod = d.spec.template.spec
    t.equal(pod.serviceAccountName, name)
    t.match(pod.securityContext, { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } })
    const c = pod.containers[0]!
    t.match(c.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      runAsNonRoot: true,
    })
    t.equal(c.readinessProbe.httpGet.path, '/readyz')
    t.equal(c.livenessProbe.httpGet.path, '/healthz')
    t.equal(c.image, 'template-sync:0.1.0')
    t.ok(c.resources)
    t.equal(
      pod.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm.topologyKey,
      'kubernetes.io/hostname',
    )
  }
  const pdb = find<Manifest & { spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } } }>(
    ms,
    'PodDisruptionBudget',
    'template-sync-webhook',
  )
  t.equal(pdb.spec.minAvailable, 1)
  t.equal(pdb.spec.selector.matchLabels['app.kubernetes.io/component'], 'webhook')
  const svc = find<Manifest & { spec: { ports: { port: number; targetPort: string }[]; selector: Record<string, string> } }>(
    ms,
    'Service',
    'template-sync-webhook',
  )
  t.strictSame(
    svc.spec.ports.map((p) => [p.port, p.targetPort]),
    [[443, 'webhook']],
  )
  t.equal(svc.spec.selector['app.kubernetes.io/component'], 'webhook')
})

t.test('default rendering: process flags follow the CLI contract', async (t) => {
  const ms = render()
  const webhook = find<Deployment>(ms, 'Deployment', 'template-sync-webhook').spec.template.spec
  const wargs = webhook.containers[0]!.args
  t.equal(wargs[0], 'webhook')
  t.strictSame(argValues(wargs, '--cert-dir'), ['/tls'])
  t.strictSame(argValues(wargs, '--port'), ['9443'])
  t.strictSame(argValues(wargs, '--health-port'), ['8081'])
  t.strictSame(argValues(wargs, '--operator-usernames'), ['system:serviceaccount:template-sync:template-sync-reconciler'])
  t.strictSame(argValues(wargs, '--log-level'), ['info'])
  t.ok(wargs.includes('--self-managed-certs'))
  t.strictSame(argValues(wargs, '--cert-secret'), ['template-sync/template-sync-webhook-tls'])
  t.strictSame(argValues(wargs, '--webhook-configuration'), ['template-sync'])
  t.strictSame(argValues(wargs, '--service'), ['template-sync/template-sync-webhook'])
  // The webhook's own flag parser must accept exactly what the chart passes.
  const wc = parseWebhookConfig(wargs.slice(1), {})
  t.equal(wc.port, 9443)
  t.equal(wc.healthPort, 8081)
  t.strictSame(wc.operatorUsernames, ['system:serviceaccount:template-sync:template-sync-reconciler'])
  t.strictSame(wc.selfManaged, {
    secretNamespace: 'template-sync',
    secretName: 'template-sync-webhook-tls',
    webhookConfigurationName: 'template-sync',
    serviceNamespace: 'template-sync',
    serviceName: 'template-sync-webhook',
  })
  t.strictSame(
    webhook.containers[0]!.ports.map((p) => [p.name, p.containerPort]),
    [
      ['webhook', 9443],
      ['health', 8081],
    ],
  )
  t.strictSame(webhook.containers[0]!.volumeMounts, [{ name: 'tls', mountPath: '/tls', readOnly: false }])
  t.ok(webhook.volumes?.[0]?.emptyDir, 'self-managed: the webhook writes its own files into an emptyDir')

  const reconciler = find<Deployment>(ms, 'Deployment', 'template-sync-reconciler').spec.template.spec
  const rargs = reconciler.containers[0]!.args
  t.equal(rargs[0], 'reconciler')
  // The reconciler's own flag parser must accept exactly what the chart passes.
  const rc = parseReconcilerConfig(rargs.slice(1), {})
  t.equal(rc.healthPort, 8082)
  t.equal(rc.leaseNamespace, 'template-sync')
  t.equal(rc.leaseName, 'template-sync-reconciler')
  t.equal(rc.workers, 4)
  t.equal(rc.logLevel, 'info')

  // The default Node flags reach each process in NODE_OPTIONS (the webhook's after the heap
  // limit, 50% of its 256Mi memory limit), and Node accepts them there.
  const nodeOptionsOf = (spec: typeof webhook): string | undefined => spec.containers[0]!.env?.find((e) => e.name === 'NODE_OPTIONS')?.value
  for (const [spec, want] of [
    [webhook, '--max-old-space-size=128 --max-semi-space-size=8'],
    [reconciler, '--max-semi-space-size=16'],
  ] as const) {
    const nodeOptions = nodeOptionsOf(spec)
    t.equal(nodeOptions, want)
    const check = spawnSync(process.execPath, ['-e', 'process.exit(0)'], {
      env: { ...process.env, NODE_OPTIONS: nodeOptions ?? '' },
      encoding: 'utf8',
    })
    t.equal(check.status, 0, `node accepts NODE_OPTIONS=${nodeOptions ?? ''}: ${check.stderr}`)
  }
  const noFlags = find<Deployment>(
    render({ webhook: { nodeOptions: '', resources: { limits: { memory: null } } } }),
    'Deployment',
    'template-sync-webhook',
  ).spec.template.spec
  t.notOk(
    noFlags.containers[0]!.env?.some((e) => e.name === 'NODE_OPTIONS'),
    'an empty nodeOptions and no memory limit set no NODE_OPTIONS',
  )

  const rNoFlags = find<Deployment>(render({ reconciler: { nodeOptions: '' } }), 'Deployment', 'template-sync-reconciler').spec.template
    .spec
  t.notOk(
    rNoFlags.containers[0]!.env?.some((e) => e.name === 'NODE_OPTIONS'),
    'an empty reconciler.nodeOptions sets no NODE_OPTIONS',
  )

  const extra = render({ webhook: { extraOperatorUsernames: ['system:serviceaccount:ops:break-glass'] }, logLevel: 'debug' })
  const eargs = find<Deployment>(extra, 'Deployment', 'template-sync-webhook').spec.template.spec.containers[0]!.args
  t.strictSame(argValues(eargs, '--operator-usernames'), [
    'system:serviceaccount:template-sync:template-sync-reconciler,system:serviceaccount:ops:break-glass',
  ])
  t.strictSame(argValues(eargs, '--log-level'), ['debug'])
})

t.test('default rendering: the webhook configuration (DESIGN decision 8)', async (t) => {
  const hooks = webhooksOf(render())
  t.strictSame(
    hooks.map((h) => [h.name, h.failurePolicy]),
    [
      ['strict.templates.v2.stakater.com', 'Fail'],
      ['scale.templates.v2.stakater.com', 'Fail'],
      ['pods.templates.v2.stakater.com', 'Fail'],
      ['revert.templates.v2.stakater.com', 'Ignore'],
    ],
    'scale and pods fail closed (docs/fail-open-entries.md)',
  )
  for (const h of hooks) {
    t.equal(h.sideEffects, 'None')
    t.strictSame(h.admissionReviewVersions, ['v1'])
    t.equal(h.matchPolicy, 'Equivalent')
    t.strictSame(h.clientConfig.service, { name: 'template-sync-webhook', namespace: 'template-sync', path: '/validate', port: 443 })
    // An Eviction carries no labels: the pods entry leaves out the release namespace too, so the webhook's own pods can be drained.
    t.strictSame(h.namespaceSelector?.matchExpressions, [
      {
        key: 'kubernetes.io/metadata.name',
        operator: 'NotIn',
        values: h.name === 'pods.templates.v2.stakater.com' ? ['kube-system', 'template-sync'] : ['kube-system'],
      },
    ])
    // Only the strict entry judges subresources such as /status (docs/admission-subresources.md).
    if (h.name !== 'strict.templates.v2.stakater.com') {
      for (const r of h.rules)
        t.notOk(
          r.resources.some((x) => x.endsWith('/status') || x === '*/*'),
          `${h.name}: status is never matched`,
        )
    }
    const exempt = h.matchConditions?.find((c) => c.name === 'not-exempt-user')
    t.match(exempt?.expression, /request\.userInfo\.username in \[.*'system:serviceaccount:template-sync:template-sync-reconciler'.*\]/)
    // The garbage collector's updates skip the webhook, its DELETEs do not (docs/security.md).
    t.match(
      exempt?.expression,
      / && !\(request\.userInfo\.username == 'system:serviceaccount:kube-system:generic-garbage-collector' && request\.operation != 'DELETE'\)$/,
    )
    t.notMatch(exempt?.expression, /in \[[^\]]*generic-garbage-collector/)
  }
  const [strict, scale, pods, revert] = hooks as [WebhookEntry, WebhookEntry, WebhookEntry, WebhookEntry]
  t.equal(strict.timeoutSeconds, 5)
  t.strictSame(strict.rules, [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], operations: ['UPDATE', 'DELETE'], scope: '*' }])
  t.strictSame(pods.rules, [
    {
      apiGroups: [''],
      apiVersions: ['*'],
      resources: ['pods/eviction', 'pods/binding', 'bindings'],
      operations: ['CREATE'],
      scope: 'Namespaced',
    },
  ])
  t.match(
    strict.matchConditions?.[1]?.expression,
    new RegExp(`oldObject != null.*'${LABEL_INSTANCE_UID}' in oldObject.metadata.labels.*\\['${LABEL_SYNC_MODE}'\\] == 'strict'`),
  )
  t.strictSame(
    scale.rules.map((r) => `${r.apiGroups[0]}/${r.resources[0]}:${r.operations.join(',')}`),
    [
      'apps/deployments/scale:UPDATE',
      'apps/statefulsets/scale:UPDATE',
      'apps/replicasets/scale:UPDATE',
      '/replicationcontrollers/scale:UPDATE',
    ],
  )
  t.equal(scale.matchConditions?.length, 1, 'scale: no label condition (Scale objects carry no labels)')
  t.match(revert.matchConditions?.[1]?.expression, /== 'revert'$/)
})

t.test('default rendering: least-privilege RBAC', async (t) => {
  const ms = render()
  const webhook = rulesOf(ms, 'ClusterRole', 'template-sync-webhook')
  for (const r of webhook) t.strictSame(r.verbs, ['get', 'list', 'watch'], `webhook ClusterRole only reads ${r.resources.join(',')}`)
  t.strictSame(
    webhook.flatMap((r) => r.resources),
    ['templates', 'templateinstances', 'namespaces', 'deployments', 'statefulsets', 'replicasets', 'replicationcontrollers', 'pods'],
  )
  t.strictSame(rulesOf(ms, 'Role', 'template-sync-webhook-certs'), [
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['template-sync-webhook-tls'], verbs: ['get', 'update'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
  ])
  t.strictSame(rulesOf(ms, 'ClusterRole', 'template-sync-webhook-configuration'), [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: ['template-sync'],
      verbs: ['get', 'update', 'patch'],
    },
  ])
  const reconciler = rulesOf(ms, 'ClusterRole', 'template-sync-reconciler')
  t.notOk(
    reconciler.some((r) => r.verbs.includes('*') || r.resources.includes('*') || r.apiGroups.includes('*')),
    'no wildcards',
  )
  t.notOk(
    reconciler.some((r) => r.verbs.includes('delete')),
    'the default grants no delete',
  )
  t.match(
    reconciler.at(-1),
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] },
    'default additionalRules: parameter sources',
  )
  // Tenants: TemplateInstances for namespace admins and editors, reading for viewers; writing Templates is never aggregated.
  const aggregated = (name: string): Record<string, string> =>
    Object.fromEntries(Object.entries(find(ms, 'ClusterRole', name).metadata.labels ?? {}).filter(([k]) => k.includes('aggregate-to')))
  t.strictSame(aggregated('template-sync-instance-editor'), {
    'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
    'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
  })
  t.strictSame(rulesOf(ms, 'ClusterRole', 'template-sync-instance-editor'), [
    {
      apiGroups: ['templates.v2.stakater.com'],
      resources: ['templateinstances'],
      verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'],
    },
  ])
  t.equal(aggregated('template-sync-viewer')['rbac.authorization.k8s.io/aggregate-to-view'], 'true')
  t.strictSame(aggregated('template-sync-template-author'), {})
  t.strictSame(
    render({ rbac: { aggregateToDefaultRoles: false } })
      .filter((m) => m.kind === 'ClusterRole' && /instance-editor|viewer/.test(m.metadata.name))
      .map((m) => m.metadata.name),
    [],
    'aggregation can be turned off',
  )
  t.strictSame(rulesOf(ms, 'Role', 'template-sync-reconciler-leader-election'), [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['template-sync-reconciler'], verbs: ['get', 'update'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  ])
  const added = rulesOf(render(valueSets['additional rules']!), 'ClusterRole', 'template-sync-reconciler')
  t.match(
    added.slice(-2),
    [{ resources: ['configmaps'] }, { apiGroups: ['apps'], resources: ['deployments'] }],
    'additionalRules are appended',
  )
})

t.test('cert-manager mode', async (t) => {
  const ms = render(valueSets['cert-manager']!)
  const kinds = ms.filter((m) => m.apiVersion === 'cert-manager.io/v1').map((m) => `${m.kind}/${m.metadata.name}`)
  t.strictSame(kinds.sort(), [
    'Certificate/template-sync-webhook-ca',
    'Certificate/template-sync-webhook-tls',
    'Issuer/template-sync-ca',
    'Issuer/template-sync-selfsigned',
  ])
  const serving = find<Manifest & { spec: { dnsNames: string[]; secretName: string; issuerRef: { name: string } } }>(
    ms,
    'Certificate',
    'template-sync-webhook-tls',
  )
  t.strictSame(serving.spec.dnsNames, [
    'template-sync-webhook',
    'template-sync-webhook.template-sync',
    'template-sync-webhook.template-sync.svc',
    'template-sync-webhook.template-sync.svc.cluster.local',
  ])
  t.equal(serving.spec.issuerRef.name, 'template-sync-ca')
  const ca = find<Manifest & { spec: { isCA: boolean } }>(ms, 'Certificate', 'template-sync-webhook-ca')
  t.equal(ca.spec.isCA, true)
  const vwc = find(ms, 'ValidatingWebhookConfiguration', 'template-sync')
  t.equal(vwc.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'template-sync/template-sync-webhook-tls')
  const pod = find<Deployment>(ms, 'Deployment', 'template-sync-webhook').spec.template.spec
  t.notOk(pod.containers[0]!.args.includes('--self-managed-certs'))
  t.equal(pod.volumes?.[0]?.secret?.secretName, 'template-sync-webhook-tls')
  t.equal(pod.containers[0]!.volumeMounts?.[0]?.readOnly, true)
  t.notOk(
    ms.some((m) => m.metadata.name === 'template-sync-webhook-certs' || m.metadata.name === 'template-sync-webhook-configuration'),
    'no certificate RBAC',
  )

  const own = render(valueSets['cert-manager with an existing issuer']!)
  t.strictSame(
    own.filter((m) => m.apiVersion === 'cert-manager.io/v1').map((m) => m.kind),
    ['Certificate'],
  )
  t.match(find(own, 'Certificate', 'template-sync-webhook-tls'), {
    spec: { issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' } },
  })
})

t.test('url override and an existing Secret', async (t) => {
  for (const h of webhooksOf(render(valueSets['url override']!))) {
    t.strictSame(h.clientConfig, { url: 'https://127.0.0.1:9443/validate', caBundle }, h.name)
  }
  const ms = render(valueSets['existing secret']!)
  for (const h of webhooksOf(ms)) t.equal(h.clientConfig.caBundle, caBundle)
  const pod = find<Deployment>(ms, 'Deployment', 'template-sync-webhook').spec.template.spec
  t.equal(pod.volumes?.[0]?.secret?.secretName, 'my-webhook-tls')
  t.notOk(pod.containers[0]!.args.includes('--self-managed-certs'))
})

t.test('optional entries and the scale and pods policies', async (t) => {
  const ms = render(valueSets['scale and pods fail open, no revert entry, one replica each']!)
  t.strictSame(
    webhooksOf(ms).map((h) => [h.name, h.failurePolicy]),
    [
      ['strict.templates.v2.stakater.com', 'Fail'],
      ['scale.templates.v2.stakater.com', 'Ignore'],
      ['pods.templates.v2.stakater.com', 'Ignore'],
    ],
    'Ignore can still be chosen',
  )
  t.notOk(ms.some((m) => m.kind === 'PodDisruptionBudget'))
  const noScale = render({ webhook: { scale: { enabled: false } } })
  t.strictSame(
    webhooksOf(noScale).map((h) => h.name),
    ['strict.templates.v2.stakater.com', 'pods.templates.v2.stakater.com', 'revert.templates.v2.stakater.com'],
  )
  const noExclusions = webhooksOf(render({ webhook: { excludedNamespaces: [] } }, 'template-sync', 'platform-system'))
  t.strictSame(
    noExclusions.map((h) => [h.name, h.namespaceSelector?.matchExpressions[0]?.values]),
    [
      ['strict.templates.v2.stakater.com', undefined],
      ['scale.templates.v2.stakater.com', undefined],
      ['pods.templates.v2.stakater.com', ['platform-system']],
      ['revert.templates.v2.stakater.com', undefined],
    ],
    'with no namespace excluded, the pods entry still leaves out the release namespace',
  )
})

/** NOTES.txt as `helm install` prints it; --dry-run=client installs nothing, but helm still reads the server version and kinds. */
function notes(values: object): string {
  const r = helm(bin, ['install', 'template-sync', chartDir, '--namespace', 'template-sync', '--dry-run=client', '-f', valuesFile(values)])
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout.slice(r.stdout.indexOf('NOTES:'))
}

t.test('NOTES.txt tells which certificate mode and entries are in use', async (t) => {
  const def = notes({})
  t.match(def, /Self-managed: the webhook keeps a CA and serving certificate in Secret template-sync-webhook-tls/)
  t.match(def, /strict\s+UPDATE\/DELETE .* failurePolicy Fail/)
  t.match(def, /scale\s+\/scale of deployments, statefulsets, replicasets, replicationcontrollers; failurePolicy Fail/)
  t.match(def, /pods\s+evictions and annotating bindings of rendered Pods, outside namespace template-sync; failurePolicy Fail/)
  t.match(def, /the scales and evictions of entries with failurePolicy Fail wait,\s+cluster-wide \(docs\/fail-open-entries\.md\)/)
  t.match(def, /revert\s+warnings .* failurePolicy Ignore/)
  t.notMatch(
    notes(valueSets['scale and pods fail open, no revert entry, one replica each']!),
    /wait,\s+cluster-wide/,
    'no warning when both entries fail open',
  )
  // (cert-manager mode cannot be dry-run installed here: the test API server has no cert-manager CRDs.)
  t.match(notes(valueSets['existing secret']!), /Secret my-webhook-tls \(yours\)/)
  t.match(notes(valueSets['url override']!), /The API server calls https:\/\/127\.0\.0\.1:9443\/validate instead of the Service/)
})

t.test('the CRDs in crds/ are crdManifests()', async (t) => {
  const fromChart = ['templates.yaml', 'templateinstances.yaml'].map(
    (f) => loadAll(readFileSync(join(chartDir, 'crds', f), 'utf8'))[0] as unknown,
  )
  t.strictSame(fromChart, JSON.parse(JSON.stringify(crdManifests())))
})

// ---- install into the test API server ---------------------------------------

const admin = adminClient()
t.teardown(() => admin.close())

async function ensureCrds(client: KubeClient): Promise<void> {
  for (const crd of crdManifests()) {
    await client.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
      body: crd,
      contentType: CONTENT_APPLY,
      query: { fieldManager: 'template-sync-chart-test', force: true },
    })
  }
  await eventually('CRDs established', async () => {
    for (const crd of crdManifests()) {
      const got = await client.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      )
      if (!got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return undefined
    }
    return true
  })
}

t.test('the default rendering installs into the API server', async (t) => {
  const ns = await freshNamespace(t, admin, 'chart')
  const release = `tsc${process.pid}`
  const ms = render({}, release, ns)
  const mapper = new RestMapper(admin)
  const pathOf = async (m: Manifest, withName: boolean): Promise<string> =>
    resourcePath(await mapper.mapping(m.apiVersion, m.kind), m.metadata.namespace ?? ns, withName ? m.metadata.name : undefined)

  // CRDs from crds/ pass server-side validation too (apply, since other tests may have created them).
  for (const crd of crdManifests()) {
    await admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
      body: crd,
      contentType: CONTENT_APPLY,
      query: { fieldManager: 'template-sync-chart-test', force: true, dryRun: 'All' },
    })
  }
  await ensureCrds(admin)

  for (const m of ms) {
    await t.resolves(
      admin.request('POST', await pathOf(m, false), { body: m, query: { dryRun: 'All', fieldValidation: 'Strict' } }),
      `dry-run ${m.kind}/${m.metadata.name}`,
    )
  }

  const clusterScoped: string[] = []
  const cleanup = async (): Promise<void> => {
    for (const p of clusterScoped.splice(0).reverse()) {
      try {
        await admin.request('DELETE', p)
      } catch (e) {
        if (!(e instanceof KubeApiError && e.code === 404)) throw e
      }
    }
  }
  t.teardown(cleanup)
  for (const m of ms) {
    const created = await admin.request<Manifest>('POST', await pathOf(m, false), { body: m, query: { fieldValidation: 'Strict' } })
    t.equal(created.metadata.name, m.metadata.name, `created ${m.kind}/${m.metadata.name}`)
    if (!(await mapper.mapping(m.apiVersion, m.kind)).namespaced) clusterScoped.push(await pathOf(m, true))
  }

  const vwcName = `${release}-template-sync`
  const stored = await admin.get<{ webhooks: WebhookEntry[] }>(
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${vwcName}`,
  )
  t.strictSame(
    stored.webhooks.map((w) => [w.name, w.matchConditions?.map((c) => c.name)]),
    [
      ['strict.templates.v2.stakater.com', ['not-exempt-user', 'stored-object-is-strict']],
      ['scale.templates.v2.stakater.com', ['not-exempt-user']],
      ['pods.templates.v2.stakater.com', ['not-exempt-user', 'eviction-or-annotating-binding']],
      ['revert.templates.v2.stakater.com', ['not-exempt-user', 'stored-object-is-revert']],
    ],
    'accepted with its CEL matchConditions',
  )

  // The API server compiled the CEL; now it evaluates it. No webhook pod runs
  // here, so a call to the Service fails: under the strict entry (Fail) that
  // shows up as a rejected request, under the others (Ignore) as a pass.
  const cm = (name: string, labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels },
    data: { a: '1' },
  })
  const owned = { [LABEL_INSTANCE_UID]: '00000000-0000-0000-0000-000000000001' }
  const cmPath = (name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`
  await admin.request('POST', cmPath(), { body: cm('strict', { ...owned, [LABEL_SYNC_MODE]: 'strict' }) })
  await admin.request('POST', cmPath(), { body: cm('strict-no-uid', { [LABEL_SYNC_MODE]: 'strict' }) })
  await admin.request('POST', cmPath(), { body: cm('revert', { ...owned, [LABEL_SYNC_MODE]: 'revert' }) })
  await admin.request('POST', cmPath(), { body: cm('plain', {}) })
  const patch = (name: string, value: string): Promise<unknown> =>
    admin.request('PATCH', cmPath(name), { body: { data: { a: value } }, contentType: CONTENT_MERGE })

  const failure = await eventually('the strict entry to reach the (absent) webhook', async () => {
    try {
      await patch('strict', String(Date.now()))
      return undefined
    } catch (e) {
      return e instanceof KubeApiError && /strict\.templates\.v2\.stakater\.com/.test(e.message) ? e : undefined
    }
  })
  t.match(
    failure.message,
    /failed calling webhook "strict\.templates\.v2\.stakater\.com"/,
    'UPDATE of a strict object is sent to the webhook and fails closed',
  )
  await t.rejects(
    admin.request('DELETE', cmPath('strict')),
    /failed calling webhook "strict\.templates/,
    'DELETE (object null, oldObject set) is matched too',
  )
  await t.resolves(patch('strict-no-uid', 'x'), 'a strict label without an owner UID is not sent')
  await t.resolves(patch('revert', 'x'), 'revert objects fail open')
  await t.resolves(patch('plain', 'x'), 'unlabelled objects are never sent')
  await t.resolves(admin.request('DELETE', cmPath('plain')))
  await t.resolves(
    admin.request('POST', cmPath(), { body: cm('created-strict', { ...owned, [LABEL_SYNC_MODE]: 'strict' }) }),
    'CREATE is never sent',
  )

  // /scale of a Deployment: matched without labels, fails closed.
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: ns, labels: { ...owned, [LABEL_SYNC_MODE]: 'strict' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'example.invalid/c:1' }] } },
    },
  }
  await admin.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deploy })
  await t.rejects(
    admin.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`, {
      body: { spec: { replicas: 2 } },
      contentType: CONTENT_MERGE,
    }),
    /failed calling webhook "scale\.templates\.v2\.stakater\.com"/,
    'scale is refused while the webhook is unreachable (failurePolicy Fail)',
  )

  // Evictions: matched without labels and fail closed, except in the release namespace (here `ns`).
  const elsewhere = await freshNamespace(t, admin, 'chart-pods')
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'example.invalid/c:1' }] },
  })
  const evict = (namespace: string, name: string): Promise<unknown> =>
    admin.request('POST', `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
    })
  for (const where of [ns, elsewhere]) await admin.request('POST', `/api/v1/namespaces/${where}/pods`, { body: pod('p') })
  await t.rejects(
    evict(elsewhere, 'p'),
    /failed calling webhook "pods\.templates\.v2\.stakater\.com"/,
    'an eviction is refused while the webhook is unreachable (failurePolicy Fail)',
  )
  await t.resolves(evict(ns, 'p'), "an eviction in the release namespace is never sent: the webhook's own pods can always be drained")

  // The reconciler's own service account is exempt by matchCondition: give it
  // write access to ConfigMaps in this namespace only for this check.
  const sa = `${release}-template-sync-reconciler`
  await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch', 'update'] }],
    },
  })
  await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm-writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    },
  })
  const token = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  })
  const { KubeConfig } = await import('@kubernetes/client-node')
  const { KubeClient } = await import('../../src/kube/client.ts')
  const { clusterInfo } = await import('./helpers/cluster.ts')
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: admin.server, caFile: clusterInfo().caCert, skipTLSVerify: false }],
    users: [{ name: 'reconciler', token: token.status.token }],
    contexts: [{ name: 'test', cluster: 'test', user: 'reconciler' }],
    currentContext: 'test',
  })
  const asReconciler = new KubeClient(kc, 'chart-test-reconciler')
  t.teardown(() => asReconciler.close())
  await eventually('the RoleBinding to take effect', async () => {
    try {
      await asReconciler.request('PATCH', cmPath('strict'), { body: { data: { a: 'by-reconciler' } }, contentType: CONTENT_MERGE })
      return true
    } catch (e) {
      if (e instanceof KubeApiError && e.code === 403) return undefined
      throw e
    }
  })
  t.pass('the reconciler updates a strict object without a webhook call')

  await cleanup()
})

// ---- monitoring (docs/observability.md) ---------------------------------------

interface Relabeling {
  sourceLabels?: string[]
  targetLabel: string
  replacement?: string
}
interface ScrapeEndpoint {
  port: string
  path: string
  relabelings: Relabeling[]
}
interface AlertRule {
  alert: string
  expr: string
  for?: string
  labels: Record<string, string>
  annotations: Record<string, string>
}
type PrometheusRule = Manifest & { spec: { groups: { name: string; rules: AlertRule[] }[] } }

const jobRelabeling: Relabeling = {
  sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_component'],
  targetLabel: 'job',
  replacement: 'template-sync-$1',
}

t.test('monitoring: one scrape object reaches both processes on their health ports, as jobs <fullname>-<component>', async (t) => {
  const ms = render(MONITORING)
  const svc = find<
    Manifest & { spec: { clusterIP: string; selector: Record<string, string>; ports: { name: string; targetPort: string }[] } }
  >(ms, 'Service', 'template-sync-metrics')
  t.equal(svc.spec.clusterIP, 'None', 'headless: every pod is a target')
  t.strictSame(
    svc.spec.ports.map((p) => [p.name, p.targetPort]),
    [['metrics', 'health']],
  )
  for (const name of ['template-sync-webhook', 'template-sync-reconciler']) {
    const pod = find<Deployment & { spec: { template: { metadata: { labels: Record<string, string> } } } }>(ms, 'Deployment', name).spec
      .template
    t.ok(
      Object.entries(svc.spec.selector).every(([k, v]) => pod.metadata.labels[k] === v),
      `the Service selects the pods of ${name}`,
    )
    t.ok(
      pod.spec.containers[0]?.ports.some((p) => p.name === 'health'),
      `${name} names its metrics port health`,
    )
  }
  const sm = find<Manifest & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: ScrapeEndpoint[] } }>(
    ms,
    'ServiceMonitor',
    'template-sync',
  )
  t.equal(sm.metadata.labels?.release, 'kube-prometheus-stack', 'the labels Prometheus selects by')
  t.ok(
    Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => svc.metadata.labels?.[k] === v),
    'the ServiceMonitor selects the metrics Service',
  )
  t.notOk(
    ms.some(
      (m) =>
        m.kind === 'Service' &&
        m.metadata.name === 'template-sync-webhook' &&
        m.metadata.labels?.['app.kubernetes.io/component'] === 'metrics',
    ),
    'and not the webhook Service',
  )
  t.match(sm.spec.endpoints, [{ port: 'metrics', path: '/metrics', relabelings: [jobRelabeling] }])
  t.notOk(
    ms.some((m) => m.kind === 'PodMonitor'),
    'no PodMonitor beside it',
  )

  const pm = render(valueSets['monitoring: PodMonitor and alerts']!)
  const podMonitor = find<
    Manifest & { spec: { podMetricsEndpoints: ScrapeEndpoint[]; selector: { matchExpressions: { values: string[] }[] } } }
  >(pm, 'PodMonitor', 'template-sync')
  t.match(podMonitor.spec.podMetricsEndpoints, [{ port: 'health', path: '/metrics', relabelings: [jobRelabeling] }])
  t.strictSame(podMonitor.spec.selector.matchExpressions[0]?.values, ['webhook', 'reconciler'])
  t.notOk(
    pm.some((m) => m.metadata.name === 'template-sync-metrics'),
    'a PodMonitor needs no Service',
  )
})

t.test('monitoring: the dashboard ConfigMap carries the dashboard file for the sidecar', async (t) => {
  const cm = find<Manifest & { data: Record<string, string> }>(render(MONITORING), 'ConfigMap', 'template-sync-dashboard')
  t.equal(cm.metadata.labels?.grafana_dashboard, '1')
  t.equal(cm.metadata.annotations?.grafana_folder, 'Platform')
  t.equal(cm.metadata.namespace, 'template-sync')
  const file = readFileSync(join(chartDir, 'dashboards/template-sync.json'), 'utf8')
  t.strictSame(JSON.parse(cm.data['template-sync.json'] ?? ''), JSON.parse(file), 'the dashboard file, unchanged')
  const elsewhere = find(
    render({ metrics: { dashboard: { enabled: true, namespace: 'grafana' } } }),
    'ConfigMap',
    'template-sync-dashboard',
  )
  t.equal(elsewhere.metadata.namespace, 'grafana', 'where the sidecar watches')
})

t.test('monitoring: the rendered PrometheusRule passes promtool check rules, and every alert has a runbook', async (t) => {
  const promtool = await binaryPath('promtool')
  const rule = find<PrometheusRule>(render(MONITORING), 'PrometheusRule', 'template-sync')
  const file = valuesFile({ groups: rule.spec.groups })
  const r = spawnSync(promtool, ['check', 'rules', '--lint=all', '--lint-fatal', file], { encoding: 'utf8' })
  t.equal(r.status, 0, `promtool check rules: ${r.stdout}${r.stderr}`)
  const rules = rule.spec.groups.flatMap((g) => g.rules)
  t.match(r.stdout, `SUCCESS: ${rules.length} rules found`)
  const broken = valuesFile({ groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum(rate(x[5m])' }] }] })
  t.not(spawnSync(promtool, ['check', 'rules', broken], { encoding: 'utf8' }).status, 0, 'promtool rejects a broken expression')

  const runbooks = readFileSync(join(root, 'docs/observability.md'), 'utf8')
  t.equal(rules.length, 12)
  for (const a of rules) {
    t.match(a.labels, { severity: /^(critical|warning)$/, team: 'platform' }, `${a.alert}: severity and the extra labels`)
    t.ok(a.annotations.summary, `${a.alert}: summary`)
    t.match(a.annotations.description, `Runbook: docs/observability.md#${a.alert.toLowerCase()}`)
    t.equal(a.annotations.runbook_url, `https://runbooks.example.com/template-sync#${a.alert.toLowerCase()}`)
    t.match(runbooks, new RegExp(`^### ${a.alert}$`, 'm'), `${a.alert} has a runbook section`)
  }
  const strictDown = rules.find((a) => a.alert === 'TemplateSyncWebhookDown')
  t.equal(strictDown?.labels.severity, 'critical', 'the strict entry fails closed: a webhook outage pages')
  t.match(strictDown?.expr, 'job="template-sync-webhook"', 'the job the monitors set')
})

const MONITORING_CRDS = ['servicemonitors', 'podmonitors', 'prometheusrules']

/** The Prometheus Operator's CRDs from test/cluster/build.sh monitoring-crds, once per run of this file. */
let monitoringCrds: Promise<void> | undefined
function ensureMonitoringCrds(): Promise<void> {
  monitoringCrds ??= (async () => {
    const dir = await binaryPath('monitoring-crds')
    for (const plural of MONITORING_CRDS) {
      const crd = loadAll(readFileSync(join(dir, `monitoring.coreos.com_${plural}.yaml`), 'utf8'))[0] as Manifest
      await admin.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, {
        body: crd,
        contentType: CONTENT_APPLY,
        query: { fieldManager: 'template-sync-chart-test', force: true },
      })
    }
    await eventually('monitoring.coreos.com served', async () => {
      const list = await admin.getOrUndefined<{ resources: { name: string }[] }>('/apis/monitoring.coreos.com/v1')
      return MONITORING_CRDS.every((p) => list?.resources.some((r) => r.name === p)) ? true : undefined
    })
  })()
  return monitoringCrds
}
t.teardown(async () => {
  if (monitoringCrds === undefined) return
  for (const plural of MONITORING_CRDS)
    await admin.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.monitoring.coreos.com`).catch(() => {})
})

t.test("monitoring: the objects pass the API server's validation against the Prometheus Operator's CRDs", async (t) => {
  await ensureMonitoringCrds()
  const ns = await freshNamespace(t, admin, 'chart-mon')
  const mapper = new RestMapper(admin)
  const monitoring = (ms: Manifest[]): Manifest[] =>
    ms.filter(
      (m) => m.apiVersion === 'monitoring.coreos.com/v1' || m.metadata.name.endsWith('-metrics') || m.metadata.name.endsWith('-dashboard'),
    )
  const objects = [
    ...monitoring(render(MONITORING, 'tsmon', ns)),
    ...monitoring(render(valueSets['monitoring: PodMonitor and alerts']!, 'tsmon', ns)).filter((m) => m.kind === 'PodMonitor'),
  ]
  t.strictSame(objects.map((m) => m.kind).sort(), ['ConfigMap', 'PodMonitor', 'PrometheusRule', 'Service', 'ServiceMonitor'])
  for (const m of objects) {
    const path = resourcePath(await mapper.mapping(m.apiVersion, m.kind), ns)
    await t.resolves(
      admin.request('POST', path, { body: m, query: { dryRun: 'All', fieldValidation: 'Strict' } }),
      `dry-run ${m.kind}/${m.metadata.name}`,
    )
  }
  const bad = structuredClone(objects.find((m) => m.kind === 'ServiceMonitor')) as Manifest & { spec: { endpoints: { scheme: string }[] } }
  if (bad.spec.endpoints[0]) bad.spec.endpoints[0].scheme = 'gopher'
  await t.rejects(
    admin.request('POST', resourcePath(await mapper.mapping(bad.apiVersion, bad.kind), ns), { body: bad, query: { dryRun: 'All' } }),
    'the CRD schema is enforced',
  )
})

t.test('NOTES.txt says what monitoring is on and how to turn it on', async (t) => {
  await ensureMonitoringCrds()
  const off = notes({})
  t.match(off, /Monitoring \(docs\/observability\.md\): off/)
  t.match(off, /--set metrics\.serviceMonitor\.enabled=true,metrics\.prometheusRule\.enabled=true,metrics\.dashboard\.enabled=true/)
  const on = notes(MONITORING)
  t.match(on, /ServiceMonitor template-sync scrapes jobs template-sync-webhook and template-sync-reconciler/)
  t.match(on, /PrometheusRule template-sync: 12 alerts/)
  t.match(on, /ConfigMap template-sync-dashboard in namespace template-sync/)
  t.notMatch(on, /--set metrics\./, 'nothing left to turn on')
})
