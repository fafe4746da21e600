// How each subresource is judged. A subresource that can change what a
// Template rendered is a way around strict unless it is judged, so the rule
// for an unknown subresource is the strictest one: compare both objects in
// full. docs/admission-subresources.md explains every row; the integration
// test test/integration/webhook-subresources.test.ts walks the API server's
// discovery and fails on any subresource this list does not name.

import type { AdmissionRequest } from './types.ts'

export type SubresourceHandling =
  /** Both objects are the parent kind: judged like an UPDATE of the object (status is never compared). */
  | 'object'
  /** autoscaling/v1 Scale objects: judged on spec.replicas, ownership read from the cached target. */
  | 'scale'
  /** CREATE of an Eviction: judged as the DELETE of the cached Pod. */
  | 'eviction'
  /** CREATE of a Binding: judged on the annotations it copies onto the cached Pod. */
  | 'binding'
  /** Changes nothing stored that a Template renders. */
  | 'exempt'

export interface SubresourceRule {
  /** API group; "*" for any. */
  readonly group: string
  /** Plural resource; "*" for any. */
  readonly resource: string
  /** Subresource; "" for a main resource that writes into another object. */
  readonly subresource: string
  readonly handling: SubresourceHandling
  /** Why, for docs and for the discovery test's failure messages. */
  readonly why: string
}

const rule = (group: string, resource: string, subresource: string, handling: SubresourceHandling, why: string): SubresourceRule =>
  Object.freeze({ group, resource, subresource, handling, why })

/** Specific rules first; the first match wins. */
export const SUBRESOURCE_RULES: readonly SubresourceRule[] = Object.freeze([
  rule('', 'pods', 'eviction', 'eviction', 'an Eviction deletes the Pod without a DELETE request'),
  rule('', 'pods', 'binding', 'binding', 'a Binding sets the node of an unscheduled Pod and copies its own annotations onto the Pod'),
  rule('', 'bindings', '', 'binding', 'the older form of pods/binding, with the same effect'),
  rule('', 'pods', 'ephemeralcontainers', 'object', 'adds ephemeral containers to the Pod spec, which can never be removed'),
  rule('', 'pods', 'resize', 'object', 'changes container resources in the Pod spec'),
  rule('', 'namespaces', 'finalize', 'object', 'writes spec.finalizers, and the API server keeps metadata changes made through it'),
  rule(
    'certificates.k8s.io',
    'certificatesigningrequests',
    'approval',
    'object',
    'writes the approval conditions, and the API server keeps metadata changes made through it',
  ),
  rule('', 'serviceaccounts', 'token', 'exempt', 'mints a token for the ServiceAccount; nothing stored changes'),
  rule('', 'pods', 'log', 'exempt', 'reads container logs'),
  rule('', 'pods', 'exec', 'exempt', 'runs a command in a container (CONNECT); the Pod object does not change'),
  rule('', 'pods', 'attach', 'exempt', 'attaches to a container (CONNECT); the Pod object does not change'),
  rule('', 'pods', 'portforward', 'exempt', 'forwards a port (CONNECT); the Pod object does not change'),
  rule('*', '*', 'proxy', 'exempt', 'proxies HTTP to the object (CONNECT); the object does not change'),
  rule('*', '*', 'scale', 'scale', 'changes spec.replicas of the scaled object'),
  rule(
    '*',
    '*',
    'status',
    'object',
    'status is never compared, but for most kinds the API server keeps metadata changes made through /status ' +
      '(annotations of a Deployment, labels and annotations of a Pod)',
  ),
])

const matches = (r: SubresourceRule, group: string, resource: string, subresource: string): boolean =>
  r.subresource === subresource && (r.group === '*' || r.group === group) && (r.resource === '*' || r.resource === resource)

/** The rule naming this (group, resource, subresource), if any. */
export function subresourceRule(group: string, resource: string, subresource: string): SubresourceRule | undefined {
  for (const r of SUBRESOURCE_RULES) if (matches(r, group, resource, subresource)) return r
  return undefined
}

/**
 * How a request is judged. A main resource is 'object' unless a rule says it
 * writes into another object; a subresource no rule names is 'object' too, so
 * that it is compared in full rather than let through.
 */
export function handlingOf(req: Pick<AdmissionRequest, 'resource' | 'subResource'>): SubresourceHandling {
  return subresourceRule(req.resource.group, req.resource.resource, req.subResource ?? '')?.handling ?? 'object'
}
