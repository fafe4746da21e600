// The cluster's components and a strict object (docs/writers.md): a component,
// known by its userInfo, may write what the Template does not render (a
// Deployment's revision annotation and status, a claim's binding), nothing it
// renders and no ownership key; anyone else may write neither. What the
// Template renders is read from our Apply entry in the stored managedFields,
// also when the webhook's body reader kept them as text.

import t from 'tap'
import type { KubeObject, ManagedFieldsEntry } from '../../src/api/meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  ANNOTATION_RENDERED_VERSION,
  ANNOTATION_TEMPLATE_REF,
  LABEL_INSTANCE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
} from '../../src/api/names.ts'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { decide } from '../../src/admission/decide.ts'
import type { AdmissionLookups, Decision } from '../../src/admission/decision.ts'
import type { AdmissionRequest } from '../../src/admission/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { parseJsonBody } from '../../src/webhook/json-body.ts'

const DEPLOYMENT_CONTROLLER = 'system:serviceaccount:kube-system:deployment-controller'
const lookups: AdmissionLookups = {
  getInstance: (ns, name) =>
    ns === 'team-a' && name === 'web'
      ? ({
          metadata: { name: 'web', namespace: 'team-a', uid: 'i' },
          spec: { templateRef: { name: 't', namespace: 'platform' } },
        } as TemplateInstance)
      : undefined,
  getTemplate: () => ({ metadata: { name: 't', namespace: 'platform' }, spec: { gotemplate: 'x', sync: { mode: 'strict' } } }) as Template,
  getIgnore: () => compileIgnoreFields([]),
  isNamespaceTerminating: () => false,
}

const ours: ManagedFieldsEntry = {
  manager: 'template-sync',
  operation: 'Apply',
  apiVersion: 'apps/v1',
  fieldsV1: {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
    },
  },
}

function deployment(edit: (d: Record<string, any>) => void, managedFields: ManagedFieldsEntry[] | undefined): KubeObject {
  const d: Record<string, any> = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'team-a',
      uid: 'd',
      labels: { app: 'web', [LABEL_INSTANCE]: 'web', [LABEL_INSTANCE_UID]: 'i', [LABEL_SYNC_MODE]: 'strict' },
      annotations: {
        [ANNOTATION_INSTANCE_REF]: 'team-a/web',
        [ANNOTATION_TEMPLATE_REF]: 'platform/t',
        [ANNOTATION_RENDERED_VERSION]: 'apps/v1',
      },
      ...(managedFields ? { managedFields } : {}),
    },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
    status: {},
  }
  edit(d)
  return d
}

function request(
  user: string,
  after: (d: Record<string, any>) => void,
  opts: { subResource?: string; managedFields?: ManagedFieldsEntry[] | null } = {},
): AdmissionRequest {
  const fields = opts.managedFields === null ? undefined : (opts.managedFields ?? [ours])
  return {
    uid: 'r',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    ...(opts.subResource ? { subResource: opts.subResource } : {}),
    name: 'web',
    namespace: 'team-a',
    operation: 'UPDATE',
    userInfo: { username: user, groups: ['system:serviceaccounts'] },
    oldObject: deployment(() => {}, fields),
    object: deployment(after, fields),
  }
}

const judge = (req: AdmissionRequest): Decision => decide(req, lookups, { operatorUsernames: ['template-sync'] })
const revision = (d: Record<string, any>): void => {
  d.metadata.annotations['deployment.kubernetes.io/revision'] = '1'
  d.status = { observedGeneration: 1 }
}

t.test('the deployment controller`s status write is allowed; the same write by a person is not', async (t) => {
  t.equal(judge(request(DEPLOYMENT_CONTROLLER, revision, { subResource: 'status' })).reason, 'ComponentWrite')
  const person = judge(request('mallory', revision, { subResource: 'status' }))
  t.equal(person.reason, 'ProtectedFieldChanged')
  t.same(person.changedPaths, ["metadata.annotations['deployment.kubernetes.io/revision']"])
})

t.test('a component may not change what the Template renders, nor an ownership key', async (t) => {
  t.equal(judge(request(DEPLOYMENT_CONTROLLER, (d) => (d.spec.template.spec.containers[0].image = 'x'))).reason, 'ProtectedFieldChanged')
  t.equal(judge(request(DEPLOYMENT_CONTROLLER, (d) => (d.spec.replicas = 5))).reason, 'ProtectedFieldChanged')
  t.equal(judge(request(DEPLOYMENT_CONTROLLER, (d) => (d.metadata.labels[LABEL_SYNC_MODE] = 'off'))).reason, 'ProtectedFieldChanged')
  t.equal(
    judge(
      request(DEPLOYMENT_CONTROLLER, (d) => {
        revision(d)
        d.spec.template.spec.containers[0].image = 'x'
      }),
    ).reason,
    'ProtectedFieldChanged',
    'one rendered field among allowed ones decides',
  )
})

t.test('components are known by userInfo: a kubelet by its group, the scheduler by its name', async (t) => {
  const req = request('system:node:n1', revision)
  t.equal(judge({ ...req, userInfo: { username: 'system:node:n1', groups: ['system:nodes'] } }).reason, 'ComponentWrite')
  t.equal(judge(request('system:kube-scheduler', revision)).reason, 'ComponentWrite')
  t.equal(judge(request('system:serviceaccount:kube-system:my-addon', revision)).reason, 'ProtectedFieldChanged', 'not in the table')
})

t.test('without our Apply entry nothing can be told apart: judged as anyone', async (t) => {
  t.equal(judge(request(DEPLOYMENT_CONTROLLER, revision, { managedFields: null })).reason, 'ProtectedFieldChanged')
})

t.test('the managedFields the body reader kept as text are read on the component path', async (t) => {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: request(DEPLOYMENT_CONTROLLER, revision, { subResource: 'status' }),
  }
  const parsed = parseJsonBody(JSON.stringify(review)) as { request: AdmissionRequest }
  t.equal(parsed.request.oldObject?.metadata?.managedFields, undefined, 'cut out of the parsed objects')
  t.equal(judge(parsed.request).reason, 'ComponentWrite')
  const image = { ...review, request: request(DEPLOYMENT_CONTROLLER, (d) => (d.spec.template.spec.containers[0].image = 'x')) }
  t.equal(judge((parseJsonBody(JSON.stringify(image)) as { request: AdmissionRequest }).request).reason, 'ProtectedFieldChanged')
})
