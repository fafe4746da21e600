// The seam between the reconciler and the render package: what a reconcile
// needs from parameter resolution, the namespace policy, rendering and the
// ownership stamp. The production implementation wires src/render; tests of
// the reconcile flow use the same one against the real API server.

import type { Template } from '../api/template.ts'
import type { TemplateInstance, ResolvedParameter } from '../api/templateinstance.ts'
import type { SyncMode } from '../api/names.ts'
import type { IdentifiedObject, SourceRef } from '../api/meta.ts'

export type ParameterOutcome =
  | {
      ok: true
      values: Record<string, unknown>
      resolved: ResolvedParameter[]
      sources: SourceRef[]
      /** exposeInStatus parameters whose value came from a Secret, and so is not in `resolved`. */
      withheld: string[]
      /** Values read from Secrets: redacted from every message, status field and log (src/render/redact.ts). */
      secretValues: unknown[]
    }
  | { ok: false; reason: string; message: string; sources: SourceRef[] }

/** A kind by apiVersion; `detail` says why discovery did not find it when it was not a plain miss. */
export interface KindRef {
  readonly apiVersion: string
  readonly kind: string
  readonly detail?: string
}

/**
 * The render step's result. Everything after it (stamp, dry-run gate, apply,
 * prune, drift protection, outputs) sees only the objects, never their source.
 * A failure may ask to be retried (a chart repository that did not answer).
 * `unserved` lists rendered kinds the API server does not serve: their scope
 * is unknown, so their objects were not checked against the grants, and
 * nothing of the render may be applied while the list is not empty.
 */
export type RenderOutcome =
  | { ok: true; objects: IdentifiedObject[]; unserved?: readonly KindRef[] }
  | { ok: false; reason: string; message: string; retryAfterMs?: number }

export type PolicyOutcome = { allowed: true } | { allowed: false; reason: string; message: string }

export interface OwnerIdentity {
  name: string
  namespace: string
  uid: string
}

export interface RenderPipeline {
  checkTargetNamespace(template: Template, namespace: string, namespaceLabels: Record<string, string> | undefined): PolicyOutcome
  resolveParameters(template: Template, instance: TemplateInstance): Promise<ParameterOutcome>
  render(template: Template, instance: TemplateInstance, values: Record<string, unknown>): Promise<RenderOutcome>
  /** `template`: the Template being rendered, recorded on the object for the webhook. */
  stamp(obj: IdentifiedObject, owner: OwnerIdentity, mode: SyncMode, template: { namespace: string; name: string }): IdentifiedObject
  /** Discovery of an API group changed (a CRD or an APIService): what the render knows of its kinds is stale. */
  discoveryChanged(group: string): void
}

export type TemplateCheck = { ok: true } | { ok: false; reason: string; message: string }

/**
 * A dry render's result; a failure that makes the spec invalid (a chart's
 * values schema, the render time limit) belongs on Valid.
 */
export type DryRunCheck = { ok: true } | { ok: false; reason: string; message: string; condition: 'Valid' | 'DryRunRendered' } | 'skipped'

/**
 * Whether a Template's external source (spec.helm's chart) can be fetched.
 * `condition` says where a failure belongs: SourceAccessible (the repository
 * did not answer as a repository) or Valid (it answered: no such chart or
 * version, a bad archive). Failures are checked again after retryAfterMs.
 */
export type SourceCheck =
  | { ok: true; message: string }
  | { ok: false; condition: 'SourceAccessible' | 'Valid'; message: string; retryAfterMs: number }

export interface TemplateValidator {
  /** Parses the body (gotemplate or valuesTemplate, off this thread) and every ignoreFields entry (Valid). */
  validate(template: Template): Promise<TemplateCheck>
  /** Fetches an external source (SourceAccessible); undefined for Templates without one (gotemplate). */
  checkSource(template: Template): Promise<SourceCheck | undefined>
  /** Renders with the literal defaults when every parameter has one (DryRunRendered); 'skipped' otherwise. */
  dryRun(template: Template): Promise<DryRunCheck>
}
