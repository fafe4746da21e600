// The seam between parameter resolution (pure) and the cluster reads it
// needs. The reconciler implements ParameterSources over its caches or the
// API; tests pass a fake.

import type { ObjectFieldRef } from '../api/templateinstance.ts'
import type { ParamValue } from './types.ts'

/**
 * The source cannot give a value: object or key missing, kind unknown,
 * JSONPath without a match. A definite answer, so the instance's defaultValue
 * applies. The message names what was missing and never carries a value.
 * Anything else a source throws (a timeout, a 500) is not a SourceError and
 * propagates, so the reconcile is retried instead of settling on a default.
 */
export class SourceError extends Error {
  override readonly name = 'SourceError'
  readonly code = 'PARAMETER_SOURCE_UNRESOLVED'
}

export interface ParameterSources {
  /**
   * How the API scopes a kind: true namespaced, false cluster-scoped,
   * undefined when it does not serve the kind (or the apiVersion is invalid).
   * The tenancy check (grants.ts) needs it before an objectFieldRef is read.
   */
  namespaced(apiVersion: string, kind: string): Promise<boolean | undefined>
  /** data[key] of the Secret, base64-decoded. */
  secretValue(namespace: string, name: string, key: string): Promise<string>
  /** data[key] of the ConfigMap. */
  configMapValue(namespace: string, name: string, key: string): Promise<string>
  /**
   * GET (ref.name set) or LIST (ref.name absent) and evaluate ref.jsonPath
   * with evaluateObjectField. `defaultNamespace` is the TemplateInstance's
   * namespace, for a GET of a namespaced kind whose ref names none; a LIST
   * without a namespace covers every namespace.
   */
  objectField(ref: ObjectFieldRef, defaultNamespace: string): Promise<ParamValue>
}
