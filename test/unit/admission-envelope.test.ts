import t from 'tap'
import type { Decision } from '../../src/admission/decision.ts'
import { parseReview, toResponse } from '../../src/admission/envelope.ts'

function body(request: Record<string, unknown> = {}, top: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
      name: 'web',
      namespace: 'team-a',
      operation: 'UPDATE',
      userInfo: { username: 'alice', uid: 'u1', groups: ['system:authenticated'], extra: { scopes: ['a'] } },
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } },
      oldObject: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } },
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
      ...request,
    },
    ...top,
  }
}

t.test('a well-formed review parses into a typed request', async (t) => {
  const parsed = parseReview(body())
  t.equal(parsed.ok, true)
  if (!parsed.ok) return
  const req = parsed.review.request
  t.equal(req.uid, '705ab4f5-6393-11e8-b7cc-42010a800002')
  t.equal(req.operation, 'UPDATE')
  t.strictSame(req.kind, { group: 'apps', version: 'v1', kind: 'Deployment' })
  t.strictSame(req.userInfo, { username: 'alice', uid: 'u1', groups: ['system:authenticated'], extra: { scopes: ['a'] } })
  t.equal(req.dryRun, false)
  t.match(req.oldObject, { spec: { replicas: 1 } })
})

t.test('optional parts may be absent or null', async (t) => {
  const parsed = parseReview(
    body({ operation: 'DELETE', object: null, subResource: '', requestKind: null, namespace: undefined, dryRun: null, options: null }),
  )
  t.equal(parsed.ok, true)
  if (!parsed.ok) return
  t.equal(parsed.review.request.object, null)
  t.equal(parsed.review.request.subResource, undefined, 'empty subresource means the main resource')
  t.equal(parsed.review.request.namespace, undefined)
})

t.test('unknown fields are dropped from the request', async (t) => {
  const parsed = parseReview(body({ surprise: 1 }))
  t.equal(parsed.ok, true)
  if (parsed.ok) t.notOk('surprise' in parsed.review.request)
})

interface Bad {
  name: string
  input: unknown
  error: RegExp
}

const bad: Bad[] = [
  { name: 'not an object', input: 'hello', error: /body must be a JSON object, got a string/ },
  { name: 'null', input: null, error: /body must be a JSON object, got null/ },
  { name: 'an array', input: [], error: /got an array/ },
  {
    name: 'wrong apiVersion',
    input: body({}, { apiVersion: 'admission.k8s.io/v1beta1' }),
    error: /apiVersion must be admission\.k8s\.io\/v1, got "admission\.k8s\.io\/v1beta1"/,
  },
  {
    name: 'missing apiVersion',
    input: body({}, { apiVersion: undefined }),
    error: /apiVersion must be admission\.k8s\.io\/v1, got nothing/,
  },
  { name: 'wrong kind', input: body({}, { kind: 'TokenReview' }), error: /kind must be AdmissionReview/ },
  { name: 'missing request', input: body({}, { request: undefined }), error: /request is missing/ },
  { name: 'request not an object', input: body({}, { request: 5 }), error: /request must be an object, got a number/ },
  { name: 'missing uid', input: body({ uid: undefined }), error: /request\.uid must be a string/ },
  { name: 'empty uid', input: body({ uid: '' }), error: /request\.uid must not be empty/ },
  {
    name: 'unknown operation',
    input: body({ operation: 'PATCH' }),
    error: /request\.operation must be one of CREATE, UPDATE, DELETE, CONNECT, got "PATCH"/,
  },
  { name: 'operation not a string', input: body({ operation: 1 }), error: /request\.operation must be one of .*got a number/ },
  { name: 'missing kind', input: body({ kind: undefined }), error: /request\.kind must be an object/ },
  { name: 'kind without version', input: body({ kind: { group: '', kind: 'X' } }), error: /request\.kind\.version must be a string/ },
  { name: 'resource wrong type', input: body({ resource: 'deployments' }), error: /request\.resource must be an object/ },
  { name: 'missing userInfo', input: body({ userInfo: undefined }), error: /request\.userInfo must be an object/ },
  { name: 'username not a string', input: body({ userInfo: { username: 5 } }), error: /request\.userInfo\.username must be a string/ },
  {
    name: 'groups not strings',
    input: body({ userInfo: { username: 'a', groups: [1] } }),
    error: /request\.userInfo\.groups must be a list of strings/,
  },
  { name: 'UPDATE without oldObject', input: body({ oldObject: null }), error: /request\.oldObject is required for UPDATE/ },
  {
    name: 'DELETE without oldObject',
    input: body({ operation: 'DELETE', oldObject: undefined }),
    error: /request\.oldObject is required for DELETE/,
  },
  { name: 'UPDATE without object', input: body({ object: null }), error: /request\.object is required for UPDATE/ },
  { name: 'object not an object', input: body({ object: [1] }), error: /request\.object must be an object or null, got an array/ },
  {
    name: 'metadata not an object',
    input: body({ oldObject: { metadata: 'x' } }),
    error: /request\.oldObject\.metadata must be an object/,
  },
  { name: 'dryRun not a boolean', input: body({ dryRun: 'true' }), error: /request\.dryRun must be a boolean/ },
  { name: 'name not a string', input: body({ name: 5 }), error: /request\.name must be a string/ },
]

for (const b of bad) {
  t.test(`rejects ${b.name}`, async (t) => {
    const parsed = parseReview(b.input)
    t.equal(parsed.ok, false)
    if (!parsed.ok) t.match(parsed.error, b.error)
  })
}

t.test('a long bad value is shortened in the error', async (t) => {
  const parsed = parseReview(body({}, { apiVersion: 'x'.repeat(500) }))
  t.equal(parsed.ok, false)
  if (!parsed.ok) t.ok(parsed.error.length < 200)
})

t.test('toResponse for an allow', async (t) => {
  const d: Decision = { allowed: true, reason: 'NotManaged', message: 'not managed' }
  t.strictSame(toResponse('u1', d), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'u1', allowed: true },
  })
})

t.test('toResponse for a warned allow', async (t) => {
  const d: Decision = { allowed: true, reason: 'SyncRevert', warnings: ['this change will be reverted by TemplateInstance a/b'] }
  t.strictSame(toResponse('u1', d).response, {
    uid: 'u1',
    allowed: true,
    warnings: ['this change will be reverted by TemplateInstance a/b'],
  })
})

t.test('toResponse for a denial: 403, message, audit annotations', async (t) => {
  const d: Decision = {
    allowed: false,
    reason: 'ProtectedObjectDeleted',
    message: 'ConfigMap a/b is managed by TemplateInstance a/c',
    auditAnnotations: { reason: 'ProtectedObjectDeleted', instance: 'a/c' },
  }
  const review = toResponse('u2', d)
  t.strictSame(review.response, {
    uid: 'u2',
    allowed: false,
    status: { status: 'Failure', code: 403, reason: 'Forbidden', message: 'ConfigMap a/b is managed by TemplateInstance a/c' },
    auditAnnotations: { reason: 'ProtectedObjectDeleted', instance: 'a/c' },
  })
  t.not(review.response?.auditAnnotations, d.auditAnnotations, 'the response owns its copy')
})
