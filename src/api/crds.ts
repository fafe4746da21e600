// The two CustomResourceDefinitions as data. scripts/gen-crds.ts writes them
// into the Helm chart; a unit test fails when the chart copy is stale.

import {
  CRD_CATEGORIES,
  CRD_TEMPLATE,
  CRD_TEMPLATE_INSTANCE,
  GROUP,
  KIND_TEMPLATE,
  KIND_TEMPLATE_INSTANCE,
  PLURAL_TEMPLATE,
  PLURAL_TEMPLATE_INSTANCE,
  SHORT_NAMES_TEMPLATE,
  SHORT_NAMES_TEMPLATE_INSTANCE,
  VERSION,
} from './names.ts'
import type { JSONSchemaProps } from './schema.ts'
import { templateSchema } from './template-schema.ts'
import { templateInstanceSchema } from './templateinstance-schema.ts'

export interface PrinterColumn {
  name: string
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date'
  jsonPath: string
  description?: string
  /** 0 shows by default; higher only with -o wide. */
  priority?: number
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1'
  kind: 'CustomResourceDefinition'
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  spec: {
    group: string
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] }
    scope: 'Namespaced' | 'Cluster'
    versions: Array<{
      name: string
      served: boolean
      storage: boolean
      schema: { openAPIV3Schema: JSONSchemaProps }
      subresources: { status: Record<string, never> }
      additionalPrinterColumns: PrinterColumn[]
    }>
  }
}

const LABELS = Object.freeze({ 'app.kubernetes.io/name': 'template-sync', 'app.kubernetes.io/part-of': 'template-sync' })

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }

function crd(
  name: string,
  kind: string,
  plural: string,
  shortNames: readonly string[],
  schema: JSONSchemaProps,
  columns: PrinterColumn[],
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, labels: { ...LABELS } },
    spec: {
      group: GROUP,
      names: {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        shortNames: [...shortNames],
        categories: [...CRD_CATEGORIES],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
          additionalPrinterColumns: columns,
        },
      ],
    },
  }
}

export function templateCrd(): CustomResourceDefinition {
  return crd(CRD_TEMPLATE, KIND_TEMPLATE, PLURAL_TEMPLATE, SHORT_NAMES_TEMPLATE, templateSchema, [
    { name: 'Mode', type: 'string', jsonPath: '.spec.sync.mode', description: 'Sync mode: off, revert or strict.' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    AGE,
  ])
}

export function templateInstanceCrd(): CustomResourceDefinition {
  return crd(
    CRD_TEMPLATE_INSTANCE,
    KIND_TEMPLATE_INSTANCE,
    PLURAL_TEMPLATE_INSTANCE,
    SHORT_NAMES_TEMPLATE_INSTANCE,
    templateInstanceSchema,
    // Ready and its reason, and the Synced reason, by default: a fight with
    // another writer (DriftConflict) must not look like the normal frozen
    // state of mode off (Frozen), which a Synced status column could not tell apart.
    [
      { name: 'Template', type: 'string', jsonPath: '.spec.templateRef.name' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      {
        name: 'Reason',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
        description: "Ready condition's reason: Reconciled, or why the instance is not ready.",
      },
      {
        name: 'Sync',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Synced")].reason',
        description: "Synced condition's reason: SyncActive, Frozen, SyncPending, DriftConflict or WatchFailed.",
      },
      AGE,
      { name: 'Template-Namespace', type: 'string', jsonPath: '.spec.templateRef.namespace', priority: 1 },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
      { name: 'Synced', type: 'string', jsonPath: '.status.conditions[?(@.type=="Synced")].status', priority: 1 },
    ],
  )
}

/** Both CRDs, freshly built: callers may change the result without affecting later calls. */
export function crdManifests(): CustomResourceDefinition[] {
  return structuredClone([templateCrd(), templateInstanceCrd()])
}
