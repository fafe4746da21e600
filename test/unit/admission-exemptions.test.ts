import t from 'tap'
import type { AdmissionLookups } from '../../src/admission/decision.ts'
import {
  byGarbageCollector,
  byNamespaceController,
  byOperatorIdentity,
  byTerminatingNamespace,
  byUnguardedOperation,
  byUnguardedSubresource,
  firstExemption,
  GARBAGE_COLLECTOR,
  NAMESPACE_CONTROLLER,
  REQUEST_EXEMPTIONS,
  type RequestFacts,
} from '../../src/admission/exemptions.ts'
import type { AdmissionRequest } from '../../src/admission/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'

const OPERATOR = 'system:serviceaccount:template-sync:template-sync'
const pods = { group: '', version: 'v1', resource: 'pods' }

function facts(patch: Partial<AdmissionRequest> = {}, terminating: string[] = []): RequestFacts {
  const req: AdmissionRequest = {
    uid: 'u',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'team-a',
    operation: 'UPDATE',
    userInfo: { username: 'bob' },
    object: { metadata: { name: 'cm' } },
    oldObject: { metadata: { name: 'cm' } },
    ...patch,
  }
  const lookups: AdmissionLookups = {
    getInstance: () => undefined,
    getTemplate: () => undefined,
    getIgnore: () => compileIgnoreFields([]),
    isNamespaceTerminating: (n) => terminating.includes(n),
  }
  return { req, lookups, config: { operatorUsernames: [OPERATOR] } }
}

t.test('the exemptions run in a fixed, documented order', async (t) => {
  t.strictSame(REQUEST_EXEMPTIONS, [
    byOperatorIdentity,
    byUnguardedOperation,
    byUnguardedSubresource,
    byNamespaceController,
    byGarbageCollector,
    byTerminatingNamespace,
  ])
  t.ok(Object.isFrozen(REQUEST_EXEMPTIONS))
})

t.test('the first matching exemption wins', async (t) => {
  t.equal(firstExemption(facts({ operation: 'CREATE', userInfo: { username: OPERATOR } })), 'OperatorIdentity')
  t.equal(firstExemption(facts({ operation: 'CREATE', subResource: 'status' })), 'OperationNotGuarded')
  t.equal(
    firstExemption(facts({ userInfo: { username: NAMESPACE_CONTROLLER } }, ['team-a'])),
    'NamespaceController',
    'identity before namespace state',
  )
  t.equal(firstExemption(facts()), undefined, 'an ordinary update is not exempt')
})

interface Row {
  name: string
  check: (f: RequestFacts) => string | undefined
  yes: RequestFacts
  no: RequestFacts[]
}

const rows: Row[] = [
  {
    name: 'operator identity: exact username only',
    check: byOperatorIdentity,
    yes: facts({ userInfo: { username: OPERATOR } }),
    no: [
      facts({ userInfo: { username: `${OPERATOR}x` } }),
      facts({ userInfo: { username: 'system:serviceaccount:template-sync' } }),
      facts({ userInfo: {} }),
      facts({ userInfo: { username: '', groups: [OPERATOR] } }),
    ],
  },
  {
    name: 'CREATE and CONNECT are not guarded, except a CREATE that evicts or binds a Pod',
    check: byUnguardedOperation,
    yes: facts({ operation: 'CONNECT' }),
    no: [
      facts({ operation: 'UPDATE' }),
      facts({ operation: 'DELETE' }),
      facts({ operation: 'CREATE', resource: pods, subResource: 'eviction' }),
      facts({ operation: 'CREATE', resource: pods, subResource: 'binding' }),
      facts({ operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'bindings' } }),
    ],
  },
  {
    name: 'subresources that change nothing rendered',
    check: byUnguardedSubresource,
    yes: facts({ resource: pods, subResource: 'exec' }),
    no: [
      facts({ subResource: 'status' }),
      facts({ subResource: 'scale' }),
      facts({ resource: pods, subResource: 'ephemeralcontainers' }),
      facts({ resource: pods, subResource: 'resize' }),
      facts({ resource: pods, subResource: 'eviction' }),
      facts({ subResource: 'made-up' }),
      facts(),
    ],
  },
  {
    name: 'namespace controller by exact username',
    check: byNamespaceController,
    yes: facts({ userInfo: { username: NAMESPACE_CONTROLLER } }),
    no: [facts({ userInfo: { username: 'system:kube-controller-manager' } })],
  },
  {
    name: 'garbage collector by exact username',
    check: byGarbageCollector,
    yes: facts({ userInfo: { username: GARBAGE_COLLECTOR } }),
    no: [facts({ userInfo: { username: 'system:serviceaccount:kube-system:generic-garbage-collector-x' } })],
  },
  {
    name: 'terminating namespace of the object',
    check: byTerminatingNamespace,
    yes: facts({}, ['team-a']),
    no: [facts({}, ['team-b']), facts({ namespace: '' }, ['']), facts({ namespace: undefined }, ['team-a'])],
  },
]

for (const r of rows) {
  t.test(r.name, async (t) => {
    t.type(r.check(r.yes), 'string', 'matches')
    for (const [i, f] of r.no.entries()) t.equal(r.check(f), undefined, `does not match case ${i}`)
  })
}

t.test('CREATE is not guarded', async (t) => {
  t.equal(byUnguardedOperation(facts({ operation: 'CREATE' })), 'OperationNotGuarded')
})

t.test('an object being deleted is not exempt by itself', async (t) => {
  t.equal(firstExemption(facts({ oldObject: { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } } })), undefined)
})

t.test('the unguarded subresources: tokens, logs, exec, attach, port-forward, proxies', async (t) => {
  for (const [resource, sub] of [
    ['serviceaccounts', 'token'],
    ['pods', 'log'],
    ['pods', 'exec'],
    ['pods', 'attach'],
    ['pods', 'portforward'],
    ['pods', 'proxy'],
    ['services', 'proxy'],
    ['nodes', 'proxy'],
  ] as const) {
    t.equal(
      byUnguardedSubresource(facts({ resource: { group: '', version: 'v1', resource }, subResource: sub })),
      'SubresourceNotGuarded',
      `${resource}/${sub}`,
    )
  }
})
