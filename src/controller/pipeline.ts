// The seam between the reconciler and the render package: what a reconcile
// needs from parameter resolution, the namespace policy, rendering and the
// ownership stamp. The production implementation wires src/render; tests of
// the reconcile flow use the same one against the real API server.

import type { Template } from '../api/template.ts'
import type { TemplateInstance, ResolvedParameter } from '../api/templateinstance.ts'
import type { SyncMode } from '../api/names.ts'
import type { KubeObject } from '../kube/objects.ts'

/** An object a parameter reads; watched so that a change re-reconciles the instance. */
export interface SourceRef {
  apiVersion: string
  kind: string
  namespace?: string
  name?: string
}

export type ParameterOutcome =
  | { ok: true; values: Record<string, unknown>; resolved: ResolvedParameter[]; sources: SourceRef[] }
  | { ok: false; reason: string; message: string; sources: SourceRef[] }

export type RenderOutcome = { ok: true; objects: KubeObject[] } | { ok: false; reason: string; message: string }

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
  stamp(obj: KubeObject, owner: OwnerIdentity, mode: SyncMode): KubeObject
}

export type TemplateCheck = { ok: true } | { ok: false; reason: string; message: string }

export interface TemplateValidator {
  /** Parses the body and every ignoreFields entry (Valid). */
  validate(template: Template): TemplateCheck
  /** Renders with the literal defaults when every parameter has one (DryRunRendered); 'skipped' otherwise. */
  dryRun(template: Template): TemplateCheck | 'skipped'
}
