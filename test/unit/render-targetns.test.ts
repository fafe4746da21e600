import t from 'tap'
import type { TargetNamespaces, Template } from '../../src/api/template.ts'
import { checkTargetNamespace } from '../../src/render/targetns.ts'

function template(targetNamespaces?: TargetNamespaces): Template {
  const spec: Template['spec'] = { gotemplate: '' }
  if (targetNamespaces !== undefined) spec.targetNamespaces = targetNamespaces
  return { metadata: { name: 'web-cfg', namespace: 'platform' }, spec }
}

interface Case {
  readonly name: string
  readonly policy?: TargetNamespaces
  readonly namespace: string
  readonly labels?: Record<string, string>
  readonly allowed: boolean
  readonly detail?: RegExp
}

const tenant = { kind: 'tenant' }

const cases: Case[] = [
  { name: 'no policy: the Template namespace may instantiate', namespace: 'platform', allowed: true },
  { name: 'no policy: another namespace may not', namespace: 'team-a', labels: tenant, allowed: false },
  { name: 'an empty policy keeps the default (own namespace)', policy: {}, namespace: 'platform', allowed: true },
  {
    name: 'an empty policy keeps the default (others refused)',
    policy: { explicit: { allow: { literal: [] } } },
    namespace: 'team-a',
    allowed: false,
  },
  {
    name: 'a listed namespace is allowed',
    policy: { explicit: { allow: { literal: ['team-a', 'team-b'] } } },
    namespace: 'team-b',
    allowed: true,
  },
  {
    name: 'an unlisted namespace is refused',
    policy: { explicit: { allow: { literal: ['team-a'] } } },
    namespace: 'team-c',
    allowed: false,
  },
  {
    name: 'with a policy, the Template namespace needs to be admitted too',
    policy: { explicit: { allow: { literal: ['team-a'] } } },
    namespace: 'platform',
    allowed: false,
  },
  { name: '"*" admits every namespace', policy: { explicit: { allow: { literal: ['*'] } } }, namespace: 'anything', allowed: true },
  {
    name: '"*" wins before an invalid selector is looked at',
    policy: { explicit: { allow: { literal: ['*'] } }, selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] } },
    namespace: 'team-a',
    allowed: true,
  },
  {
    name: 'a matching selector admits',
    policy: { selector: { matchLabels: tenant } },
    namespace: 'team-a',
    labels: { kind: 'tenant', x: 'y' },
    allowed: true,
  },
  {
    name: 'a selector that does not match refuses',
    policy: { selector: { matchLabels: tenant } },
    namespace: 'team-a',
    labels: { kind: 'system' },
    allowed: false,
  },
  {
    name: 'list OR selector: admitted by the list only',
    policy: { explicit: { allow: { literal: ['shared-tools'] } }, selector: { matchLabels: tenant } },
    namespace: 'shared-tools',
    labels: {},
    allowed: true,
  },
  {
    name: 'list OR selector: admitted by the selector only',
    policy: { explicit: { allow: { literal: ['shared-tools'] } }, selector: { matchLabels: tenant } },
    namespace: 'team-a',
    labels: tenant,
    allowed: true,
  },
  {
    name: 'list OR selector: admitted by neither',
    policy: { explicit: { allow: { literal: ['shared-tools'] } }, selector: { matchLabels: tenant } },
    namespace: 'team-a',
    labels: {},
    allowed: false,
  },
  { name: 'an empty selector admits every namespace', policy: { selector: {} }, namespace: 'team-z', labels: {}, allowed: true },
  {
    name: 'matchExpressions are evaluated',
    policy: { selector: { matchExpressions: [{ key: 'kind', operator: 'In', values: ['tenant', 'shared'] }] } },
    namespace: 'team-a',
    labels: { kind: 'shared' },
    allowed: true,
  },
  {
    name: 'unreadable namespace labels: the selector matches nothing',
    policy: { selector: { matchLabels: tenant } },
    namespace: 'team-a',
    allowed: false,
    detail: /its labels could not be read/,
  },
  {
    name: 'unreadable namespace labels: literals still apply',
    policy: { explicit: { allow: { literal: ['team-a'] } }, selector: { matchLabels: tenant } },
    namespace: 'team-a',
    allowed: true,
  },
  {
    name: 'an invalid selector refuses and says why',
    policy: { selector: { matchExpressions: [{ key: 'kind', operator: 'In', values: [] }] } },
    namespace: 'team-a',
    labels: tenant,
    allowed: false,
    detail: /spec\.targetNamespaces\.selector is invalid: matchExpressions\[0\]: operator In needs at least one value/,
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    const verdict = checkTargetNamespace(template(c.policy), c.namespace, c.labels)
    t.equal(verdict.allowed, c.allowed)
    if (!verdict.allowed) {
      t.equal(verdict.reason, 'NamespaceNotPermitted')
      t.match(verdict.message, `Namespace ${c.namespace} is not permitted to instantiate Template platform/web-cfg`)
      t.match(verdict.message, /Check the Template's spec\.targetNamespaces$/)
      if (c.detail !== undefined) t.match(verdict.message, c.detail)
    }
  })
}

t.test('a null selector from YAML counts as absent', async (t) => {
  const policy = { explicit: { allow: { literal: ['team-a'] } }, selector: null } as unknown as TargetNamespaces
  t.same(checkTargetNamespace(template(policy), 'team-a', undefined), { allowed: true })
  t.equal(checkTargetNamespace(template(policy), 'team-b', {}).allowed, false)
})
