// Measures compare against lodash isEqual on the same pair of Deployments:
// compare must stay close to a plain deep-equal walk, since it runs on every
// admission request and every drift check.
//
// Two pairs are timed. "update" differs in a few fields late in the object
// (replicas, one env value, one image, status), the way an edit looks to the
// webhook; isEqual stops at the first difference, compare walks everything
// that is not ignored. "equal" has the same content in separate objects, the
// reconciler's common case after convergence, where both walk everything.
// The last line is machine-readable JSON for the "update" pair.

import isEqual from 'lodash/isEqual.js'
import { compileIgnoreFields } from '../src/fieldpath/compile.ts'
import { compare } from '../src/drift/compare.ts'

const env = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}-${'x'.repeat(i % 7)}` }))

function deployment(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'checkout',
      namespace: 'shop',
      uid: '5b0f3c1e-2a44-4d7b-9a61-0c4b1f8e2d19',
      resourceVersion: '184467',
      generation: 7,
      creationTimestamp: '2025-01-14T09:21:07Z',
      labels: {
        app: 'checkout',
        'app.kubernetes.io/name': 'checkout',
        'app.kubernetes.io/part-of': 'shop',
        'templates.v2.stakater.com/instance': 'checkout',
        'templates.v2.stakater.com/instance-uid': '0d7e0c55-8b0e-4f6b-a9f6-3a5f4e7b1c22',
        'templates.v2.stakater.com/instance-name': 'checkout',
        'templates.v2.stakater.com/instance-namespace': 'shop',
        'templates.v2.stakater.com/sync-mode': 'strict',
      },
      annotations: {
        'templates.v2.stakater.com/instance-ref': 'shop/checkout',
        'deployment.kubernetes.io/revision': '7',
      },
      managedFields: [
        {
          manager: 'template-sync',
          operation: 'Apply',
          apiVersion: 'apps/v1',
          time: '2025-01-14T09:21:07Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {}, 'f:templates.v2.stakater.com/instance': {} } },
            'f:spec': {
              'f:replicas': {},
              'f:selector': {},
              'f:template': {
                'f:metadata': { 'f:labels': { 'f:app': {} } },
                'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:env': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {} } } },
              },
            },
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'apps/v1',
          time: '2025-01-14T09:22:41Z',
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: {
            'f:status': {
              'f:availableReplicas': {},
              'f:conditions': {},
              'f:observedGeneration': {},
              'f:readyReplicas': {},
              'f:replicas': {},
              'f:updatedReplicas': {},
            },
          },
        },
      ],
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: 'checkout' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'checkout', tier: 'web' } },
        spec: {
          serviceAccountName: 'checkout',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'app',
              image: 'registry.example.com/shop/checkout:1.8.2',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env: env(14),
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
              readinessProbe: {
                httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' },
                periodSeconds: 10,
                timeoutSeconds: 1,
                successThreshold: 1,
                failureThreshold: 3,
              },
              livenessProbe: {
                httpGet: { path: '/live', port: 'http', scheme: 'HTTP' },
                periodSeconds: 20,
                timeoutSeconds: 1,
                successThreshold: 1,
                failureThreshold: 3,
              },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'config', mountPath: '/etc/checkout', readOnly: true },
              ],
            },
            {
              name: 'proxy',
              image: 'registry.example.com/infra/proxy:2.3.0',
              imagePullPolicy: 'IfNotPresent',
              args: ['--upstream=http://127.0.0.1:8080', '--listen=:8443', '--tls-cert=/tls/tls.crt', '--tls-key=/tls/tls.key'],
              ports: [{ name: 'https', containerPort: 8443, protocol: 'TCP' }],
              env: env(4),
              resources: { requests: { cpu: '20m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [{ name: 'tls', mountPath: '/tls', readOnly: true }],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: {} },
            { name: 'config', configMap: { name: 'checkout-config', defaultMode: 420 } },
            { name: 'tls', secret: { secretName: 'checkout-tls', defaultMode: 420 } },
          ],
        },
      },
    },
    status: {
      observedGeneration: 7,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
          lastUpdateTime: '2025-01-14T09:22:41Z',
          lastTransitionTime: '2025-01-14T09:22:41Z',
        },
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: 'ReplicaSet "checkout-6d8f9c7b5" has successfully progressed.',
          lastUpdateTime: '2025-01-14T09:22:41Z',
          lastTransitionTime: '2025-01-14T09:21:07Z',
        },
      ],
    },
  }
}

type Json = Record<string, any>

const before = deployment()
const updated: Json = structuredClone(before)
updated['spec'].replicas = 5
updated['spec'].template.spec.containers[0].env[9].value = 'edited'
updated['spec'].template.spec.containers[1].image = 'registry.example.com/infra/proxy:2.4.0'
updated['status'].readyReplicas = 4
const equalCopy = structuredClone(before)

const ignore = compileIgnoreFields(['metadata.annotations', 'spec.replicas', 'spec.template.spec.containers[*].env'])

let sink = 0
function timeCompare(a: unknown, b: unknown, n: number): number {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < n; i++) sink += compare(a, b, ignore).length
  return Number(process.hrtime.bigint() - t0)
}
function timeIsEqual(a: unknown, b: unknown, n: number): number {
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < n; i++) sink += isEqual(a, b) ? 1 : 0
  return Number(process.hrtime.bigint() - t0)
}

interface Result {
  readonly compareOps: number
  readonly isEqualOps: number
  readonly ratio: number
}

function run(label: string, a: unknown, b: unknown): Result {
  const perRound = 2_000
  for (let i = 0; i < 10; i++) {
    timeCompare(a, b, perRound)
    timeIsEqual(a, b, perRound)
  }
  let cmpNs = 0
  let eqNs = 0
  const rounds = 40
  // Interleaved and alternating which goes first, so drift in machine load hits both alike.
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      cmpNs += timeCompare(a, b, perRound)
      eqNs += timeIsEqual(a, b, perRound)
    } else {
      eqNs += timeIsEqual(a, b, perRound)
      cmpNs += timeCompare(a, b, perRound)
    }
  }
  const n = rounds * perRound
  const result = { compareOps: Math.round(n / (cmpNs / 1e9)), isEqualOps: Math.round(n / (eqNs / 1e9)), ratio: cmpNs / eqNs }
  console.log(
    `${label.padEnd(7)} compare ${result.compareOps.toLocaleString('en')} ops/s  isEqual ${result.isEqualOps.toLocaleString('en')} ops/s  ratio (compare time / isEqual time) ${result.ratio.toFixed(2)}`,
  )
  return result
}

console.log(`object size ${JSON.stringify(before).length} bytes; changes reported for the update pair:`)
for (const c of compare(before, updated, ignore)) console.log(`  ${c.kind} ${c.path}`)
run('equal', before, equalCopy)
const main = run('update', before, updated)
if (sink < 0) console.log(sink)
console.log(
  JSON.stringify({ bench: 'drift', compare_ops: main.compareOps, isEqual_ops: main.isEqualOps, ratio: Number(main.ratio.toFixed(3)) }),
)
