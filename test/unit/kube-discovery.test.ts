// Discovery and the error classes the pass acts on: a kind the API server
// does not serve (told apart from a missing object), a write refused for its
// size, and how the REST mapper forgets a group whose discovery changed.

import t from 'tap'
import type { KubeClient } from '../../src/kube/client.ts'
import { isKindNotServed, KIND_NOT_SERVED, RestMapper, UnknownKindError } from '../../src/kube/discovery.ts'
import { isTooLarge, KubeApiError } from '../../src/kube/errors.ts'

/** A discovery client: the group/versions it serves, counting its requests. */
function discovery(served: Record<string, { kind: string; name: string }[]>, fails?: Record<string, KubeApiError>) {
  const gets: string[] = []
  const client = {
    async get(path: string) {
      gets.push(path)
      const failure = fails?.[path]
      if (failure) throw failure
      const resources = served[path]
      if (!resources) throw KubeApiError.fromResponse('GET', path, 404, '404 page not found')
      return { resources: resources.map((r) => ({ ...r, namespaced: true, verbs: ['get'] })) }
    },
  } as unknown as KubeClient
  return { client, gets, served }
}

t.test('a group/version the API server does not serve is a plain miss; another discovery failure keeps its error', async (t) => {
  const d = discovery(
    {},
    { '/apis/down.example.com/v1': new KubeApiError('GET', '/apis/down.example.com/v1', 503, 'ServiceUnavailable', 'down') },
  )
  const mapper = new RestMapper(d.client)
  const miss = await mapper.mapping('w.example.com/v1', 'Widget').catch((e: unknown) => e)
  t.type(miss, UnknownKindError)
  t.same(miss instanceof UnknownKindError && [miss.apiVersion, miss.kind, miss.detail], ['w.example.com/v1', 'Widget', KIND_NOT_SERVED])
  const down = await mapper.mapping('down.example.com/v1', 'Thing').catch((e: unknown) => e)
  t.equal(down instanceof UnknownKindError && down.detail, 'GET /apis/down.example.com/v1: 503 ServiceUnavailable: down')
})

t.test('invalidateGroup forgets every version of that group and nothing else', async (t) => {
  const d = discovery({
    '/apis/w.example.com/v1': [{ kind: 'Widget', name: 'widgets' }],
    '/apis/w.example.com/v2': [{ kind: 'Widget', name: 'widgets' }],
    '/apis/apps/v1': [{ kind: 'Deployment', name: 'deployments' }],
    '/api/v1': [{ kind: 'ConfigMap', name: 'configmaps' }],
  })
  const mapper = new RestMapper(d.client)
  for (const [v, k] of [
    ['w.example.com/v1', 'Widget'],
    ['w.example.com/v2', 'Widget'],
    ['apps/v1', 'Deployment'],
    ['v1', 'ConfigMap'],
  ] as const)
    await mapper.mapping(v, k)
  mapper.invalidateGroup('w.example.com')
  t.equal(mapper.cached('w.example.com/v1', 'Widget'), undefined)
  t.equal(mapper.cached('w.example.com/v2', 'Widget'), undefined)
  t.ok(mapper.cached('apps/v1', 'Deployment'), 'another group stays')
  mapper.invalidateGroup('')
  t.equal(mapper.cached('v1', 'ConfigMap'), undefined, '"" is the core group')
  t.ok(mapper.cached('apps/v1', 'Deployment'))
})

t.test('a kind added to a cached group/version is found at once after invalidateGroup', async (t) => {
  const d = discovery({ '/apis/w.example.com/v1': [{ kind: 'Widget', name: 'widgets' }] })
  const mapper = new RestMapper(d.client)
  await mapper.mapping('w.example.com/v1', 'Widget')
  d.served['/apis/w.example.com/v1']?.push({ kind: 'Gadget', name: 'gadgets' })
  await t.rejects(mapper.mapping('w.example.com/v1', 'Gadget'), UnknownKindError, 'a miss within 2 s of the last read is not read again')
  mapper.invalidateGroup('w.example.com')
  t.equal((await mapper.mapping('w.example.com/v1', 'Gadget')).resource, 'gadgets')
})

t.test('a kind not served, told apart from a missing object or namespace', async (t) => {
  const rows: [string, unknown, boolean][] = [
    ['discovery miss', new UnknownKindError('w.example.com/v1', 'Widget', KIND_NOT_SERVED), true],
    [
      '404 without a Status ("404 page not found")',
      KubeApiError.fromResponse('PATCH', '/apis/w.example.com/v1/x', 404, '404 page not found'),
      true,
    ],
    [
      '404 Status NotFound (a missing namespace)',
      KubeApiError.fromResponse(
        'PATCH',
        '/api/v1/namespaces/x/configmaps/c',
        404,
        JSON.stringify({ reason: 'NotFound', message: 'namespaces "x" not found' }),
      ),
      false,
    ],
    ['403', new KubeApiError('GET', '/x', 403, 'Forbidden', 'no'), false],
    ['not an API error', new Error('socket hang up'), false],
  ]
  for (const [name, e, want] of rows) t.equal(isKindNotServed(e), want, name)
})

t.test('a write refused for its size', async (t) => {
  const status = (code: number, reason: string, message: string): KubeApiError =>
    new KubeApiError('PATCH', '/apis/templates.v2.stakater.com/v2alpha1/namespaces/a/templateinstances/i/status', code, reason, message)
  const rows: [string, KubeApiError | Error, boolean][] = [
    ['413 from the API server', status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'), true],
    [
      '500 ResourceExhausted from the storage layer',
      status(
        500,
        'InternalError',
        'rpc error: code = ResourceExhausted desc = trying to send message larger than max (2097322 vs. 2097152)',
      ),
      true,
    ],
    ['500 etcd request too large', status(500, 'InternalError', 'etcdserver: request is too large'), true],
    ['another 500', status(500, 'InternalError', 'Internal error occurred: connection refused'), false],
    ['422 Invalid', status(422, 'Invalid', 'status.conditions: Too many: 40: must have at most 32 items'), false],
    ['not an API error', new Error('too large'), false],
  ]
  for (const [name, e, want] of rows) t.equal(isTooLarge(e), want, name)
})
