// The people of a real cluster, for tests that act as them (docs/security.md):
// a platform team that writes Templates in its namespace, and two consumer
// teams, each the built-in `admin` of its own namespace, who create
// TemplateInstances there. Every request of a tenant goes through the real
// API server's authorization as that user (impersonation by the admin
// client), never as cluster-admin.

import tap from 'tap'
import { API_VERSION } from '../../../src/api/names.ts'
import type { TemplateSpec } from '../../../src/api/template.ts'
import type { TemplateInstanceSpec } from '../../../src/api/templateinstance.ts'
import { CONTENT_JSON_PATCH, type KubeClient } from '../../../src/kube/client.ts'
import { KubeApiError } from '../../../src/kube/errors.ts'
import { RestMapper } from '../../../src/kube/discovery.ts'
import { applyManifest, renderTenantRoles } from '../../../src/cli/local-system.ts'
import { adminClient, eventually, freshNamespace, type TestLike } from './cluster.ts'
import { instancePath, templatePath } from './operator.ts'

export interface Tenant {
  /** The user's name as the API server sees it. */
  readonly user: string
  /** The namespace where the user is admin. */
  readonly namespace: string
  /** A client that acts as the user. */
  readonly client: KubeClient
}

export interface Tenancy {
  /** Admin of its namespace and bound to the chart's template-author role there. */
  readonly platform: Tenant
  readonly teamA: Tenant
  readonly teamB: Tenant
}

let rolesInstalled: Promise<void> | undefined

/**
 * The chart's aggregated tenant roles (rbac-tenants.yaml), once per test
 * process, and removed when its tests end: left behind without Helm's
 * ownership labels, they would make a later `helm install` of the chart fail.
 */
export function installTenantRoles(admin: KubeClient): Promise<void> {
  rolesInstalled ??= (async () => {
    const mapper = new RestMapper(admin)
    const roles = await renderTenantRoles()
    // A client of its own: the test's may be closed by an earlier teardown.
    tap.teardown(async () => {
      const own = adminClient()
      try {
        for (const role of roles) {
          await own.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role.metadata.name}`).catch((e: unknown) => {
            if (!(e instanceof KubeApiError && e.code === 404)) throw e
          })
        }
      } finally {
        own.close()
      }
    })
    for (const role of roles) await applyManifest(admin, mapper, role)
  })()
  return rolesInstalled
}

let seq = 0

/**
 * Three fresh namespaces and their people. Templates and TemplateInstances
 * CRDs must be installed. The users are unique to this call, so no test sees
 * another test's grants.
 */
export async function tenancy(t: TestLike, admin: KubeClient): Promise<Tenancy> {
  await installTenantRoles(admin)
  const tag = `${process.pid}-${seq++}`
  const make = async (role: string, prefix: string, clusterRoles: readonly string[]): Promise<Tenant> => {
    const namespace = await freshNamespace(t, admin, prefix)
    const user = `${role}-${tag}`
    for (const cr of clusterRoles) {
      await admin.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: `${user}-${cr}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: cr },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
        },
      })
    }
    return { user, namespace, client: admin.as({ user, groups: ['system:authenticated'] }, `tenant-${role}`) }
  }
  const platform = await make('platform', 'platform', ['admin', 'template-sync-template-author'])
  const teamA = await make('alice', 'team-a', ['admin'])
  const teamB = await make('bob', 'team-b', ['admin'])
  // The aggregation controller adds our rules to `admin` shortly after the roles appear.
  for (const who of [teamA, teamB])
    await eventually(`${who.user} may create TemplateInstances in ${who.namespace}`, () =>
      can(who.client, { verb: 'create', group: 'templates.v2.stakater.com', resource: 'templateinstances', namespace: who.namespace }),
    )
  await eventually(`${platform.user} may create Templates in ${platform.namespace}`, () =>
    can(platform.client, { verb: 'create', group: 'templates.v2.stakater.com', resource: 'templates', namespace: platform.namespace }),
  )
  return { platform, teamA, teamB }
}

interface Access {
  readonly verb: string
  readonly group: string
  readonly resource: string
  readonly namespace?: string
  readonly name?: string
}

/** true when the client's user may do it (SelfSubjectAccessReview), else undefined (for eventually). */
export async function can(client: KubeClient, a: Access): Promise<true | undefined> {
  const review = await client.request<{ status?: { allowed?: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: a } } },
  )
  return review.status?.allowed === true ? true : undefined
}

/** The API error a tenant's request fails with; fails the test when the request succeeds. */
export async function refused(what: string, fn: () => Promise<unknown>): Promise<KubeApiError> {
  try {
    await fn()
  } catch (e) {
    if (e instanceof KubeApiError) return e
    throw e
  }
  throw new Error(`${what}: expected the API server to refuse it, but it succeeded`)
}

/** The platform team publishes a Template that team-a may use. */
export async function publish(who: Tenancy, name: string, spec: TemplateSpec): Promise<void> {
  await who.platform.client.request('POST', templatePath(who.platform.namespace), {
    body: {
      apiVersion: API_VERSION,
      kind: 'Template',
      metadata: { name },
      spec: { targetNamespaces: { explicit: { allow: { literal: [who.teamA.namespace] } } }, ...spec },
    },
  })
}

/** Team-a's admin creates an instance of a platform Template. */
export async function instantiate(
  who: Tenancy,
  name: string,
  template: string,
  parameters?: TemplateInstanceSpec['parameters'],
): Promise<void> {
  await who.teamA.client.request('POST', instancePath(who.teamA.namespace), {
    body: {
      apiVersion: API_VERSION,
      kind: 'TemplateInstance',
      metadata: { name },
      spec: { templateRef: { name: template, namespace: who.platform.namespace }, ...(parameters ? { parameters } : {}) },
    },
  })
}

/**
 * Deletes an instance without its cleanup, as its author can: our finalizer
 * removed, then the instance deleted on the condition that nothing changed in
 * between (the reconciler puts the finalizer back on every instance, so the
 * two are tried again until they go through together).
 */
export async function deleteWithoutCleanup(client: KubeClient, ns: string, name: string): Promise<void> {
  await eventually(`${ns}/${name} deleted without cleanup`, async () => {
    const live = await client.get<{ metadata: { resourceVersion: string; finalizers?: string[] } }>(instancePath(ns, name))
    const kept = (live.metadata.finalizers ?? []).filter((f) => !f.startsWith('templates.v2'))
    const patched = await client.request<{ metadata: { resourceVersion: string } }>('PATCH', instancePath(ns, name), {
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: live.metadata.resourceVersion },
        { op: 'replace', path: '/metadata/finalizers', value: kept },
      ],
      contentType: CONTENT_JSON_PATCH,
    })
    await client.request('DELETE', instancePath(ns, name), {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: patched.metadata.resourceVersion } },
    })
    return true
  })
}
