// Tenancy scope: an instance reads parameter sources and renders objects in
// its own namespace; anything beyond it (another namespace, every namespace,
// a cluster-scoped kind) needs a grant in the Template, which the platform
// team writes (docs/tenancy-grants.md). A parameter value is never a grant:
// the checks run on what the instance asks for and what the render produced.
// Pure: the API's scope knowledge comes in as data.

import type { ResourceGrant, Template } from '../api/template.ts'
import { parseApiVersion } from '../api/identity.ts'

/** One read or write, as the grants see it. */
export interface Access {
  /** API group; "" for the core group. */
  readonly group: string
  readonly kind: string
  /**
   * A namespace, ALL_NAMESPACES for a LIST across every namespace, or
   * undefined for a cluster-scoped kind.
   */
  readonly namespace: string | undefined
  /** Undefined for a LIST. */
  readonly name: string | undefined
}

export const ALL_NAMESPACES = '*'

/** Whether one grant covers the access. */
export function grantCovers(g: ResourceGrant, a: Access): boolean {
  const group = g.apiGroup ?? ''
  if (group !== '*' && group !== a.group) return false
  if (g.kind !== '*' && g.kind !== a.kind) return false
  if (a.namespace === undefined) {
    if (g.namespace !== undefined) return false
  } else if (g.namespace === undefined || (g.namespace !== ALL_NAMESPACES && g.namespace !== a.namespace)) {
    return false
  }
  const names = g.names ?? []
  if (names.length === 0) return true
  return a.name !== undefined && names.includes(a.name)
}

/** In the instance's namespace (never a LIST beyond it), or covered by a grant. */
export function accessAllowed(grants: readonly ResourceGrant[] | undefined, a: Access, instanceNamespace: string): boolean {
  if (a.namespace !== undefined && a.namespace !== ALL_NAMESPACES && a.namespace === instanceNamespace) return true
  return (grants ?? []).some((g) => isGrant(g) && grantCovers(g, a))
}

/** Entries of a stored Template may predate the schema: anything without a string kind grants nothing. */
function isGrant(g: unknown): g is ResourceGrant {
  return typeof g === 'object' && g !== null && typeof (g as ResourceGrant).kind === 'string'
}

/** The access in words, for messages: `Secret victim/db`, `every v1 Secret in every namespace`. */
export function describeAccess(a: Access): string {
  const kind = a.group === '' ? a.kind : `${a.kind}.${a.group}`
  if (a.name !== undefined) return a.namespace === undefined ? `${kind} ${a.name} (cluster-scoped)` : `${kind} ${a.namespace}/${a.name}`
  if (a.namespace === undefined) return `every ${kind} (cluster-scoped)`
  return a.namespace === ALL_NAMESPACES ? `every ${kind} in every namespace` : `every ${kind} in namespace ${a.namespace}`
}

function templateName(t: Pick<Template, 'metadata'>): string {
  return `${t.metadata?.namespace ?? ''}/${t.metadata?.name ?? ''}`
}

/** Why an access outside the instance namespace is refused, naming the grant list that would allow it. */
export function refusal(template: Pick<Template, 'metadata'>, a: Access, instanceNamespace: string, list: keyof GrantLists): string {
  const where =
    a.namespace === undefined
      ? ''
      : a.namespace === ALL_NAMESPACES
        ? `, beyond namespace ${instanceNamespace}`
        : `, outside namespace ${instanceNamespace}`
  return `${describeAccess(a)}${where}; Template ${templateName(template)} does not grant it (spec.grants.${list})`
}

type GrantLists = NonNullable<Template['spec']['grants']>

/** The access of one rendered object; `namespaced` as the API scopes its kind (undefined: the API does not know it). */
export function objectAccess(
  obj: { readonly apiVersion: string; readonly kind: string; readonly metadata: { readonly name: string; readonly namespace?: string } },
  namespaced: boolean | undefined,
): Access | undefined {
  if (namespaced === undefined) return undefined
  const group = parseApiVersion(obj.apiVersion).group
  return { group, kind: obj.kind, namespace: namespaced ? obj.metadata.namespace : undefined, name: obj.metadata.name }
}

export interface ScopedObject {
  readonly object: {
    readonly apiVersion: string
    readonly kind: string
    readonly metadata: { readonly name: string; readonly namespace?: string }
  }
  readonly namespaced: boolean | undefined
}

/**
 * The first rendered object the instance may not apply, in words; undefined
 * when every object stays in the instance namespace or is granted. An object
 * of a kind the API does not know can only be checked by its namespace, so it
 * must name the instance namespace.
 */
export function objectScopeProblem(
  template: Pick<Template, 'metadata' | 'spec'>,
  instanceNamespace: string,
  objects: readonly ScopedObject[],
): string | undefined {
  const grants = template.spec.grants?.objects
  for (const [i, o] of objects.entries()) {
    const access = objectAccess(o.object, o.namespaced)
    if (access === undefined) {
      if (o.object.metadata.namespace === instanceNamespace) continue
      return (
        `rendered object ${i + 1} (${o.object.apiVersion} ${o.object.kind} ${o.object.metadata.name}): the API server does not ` +
        `serve this kind, so it cannot be checked to stay in namespace ${instanceNamespace}; set metadata.namespace to it, or install the kind`
      )
    }
    if (!accessAllowed(grants, access, instanceNamespace))
      return `rendered object ${i + 1}: ${refusal(template, access, instanceNamespace, 'objects')}`
  }
  return undefined
}
