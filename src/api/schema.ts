// The OpenAPI v3 subset a structural CRD schema may use, in its wire form
// (x-kubernetes-* keys spelled as the API server reads them), plus the pieces
// both CRDs share. Limits on lists and strings that CEL rules read are set
// here so rule cost stays bounded.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export interface ValidationRule {
  rule: string
  message: string
  /** Field the error is reported on, relative to the schema node. */
  fieldPath?: string
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate'
}

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean'
  description?: string
  format?: string
  properties?: Record<string, JSONSchemaProps>
  additionalProperties?: JSONSchemaProps
  items?: JSONSchemaProps
  required?: string[]
  enum?: JsonValue[]
  default?: JsonValue
  pattern?: string
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  minProperties?: number
  maxProperties?: number
  minimum?: number
  maximum?: number
  'x-kubernetes-preserve-unknown-fields'?: true
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map'
  'x-kubernetes-list-map-keys'?: string[]
  'x-kubernetes-map-type'?: 'atomic' | 'granular'
  'x-kubernetes-validations'?: ValidationRule[]
}

/** Upper bounds shared by schema, CEL cost and code that fills status. */
export const LIMITS = Object.freeze({
  parameters: 128,
  outputs: 16,
  outputFields: 16,
  ignoreFields: 128,
  renderedResources: 500,
  conditions: 32,
  /** Characters of a condition message (metav1.Condition's own bound). */
  conditionMessage: 32768,
  namespaces: 256,
  /** DNS-1123 label: namespaces, label values. */
  dnsLabel: 63,
  /** DNS-1123 subdomain: object names. */
  dnsSubdomain: 253,
  /** Template and instance names end up in label values. */
  instanceName: 63,
  helmReleaseName: 53,
  jsonPath: 1024,
  fieldPath: 1024,
  outputName: 63,
  /** Entries of each Template grant list, and names per entry. */
  grants: 64,
  grantNames: 64,
})

export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'

export function str(description: string, extra: Omit<JSONSchemaProps, 'type' | 'description'> = {}): JSONSchemaProps {
  return { type: 'string', description, ...extra }
}

export function bool(description: string): JSONSchemaProps {
  return { type: 'boolean', description }
}

export function int64(description: string): JSONSchemaProps {
  return { type: 'integer', format: 'int64', minimum: 0, description }
}

export function obj(
  description: string,
  properties: Record<string, JSONSchemaProps>,
  extra: Omit<JSONSchemaProps, 'type' | 'description' | 'properties'> = {},
): JSONSchemaProps {
  return { type: 'object', description, properties, ...extra }
}

export function arr(
  description: string,
  items: JSONSchemaProps,
  extra: Omit<JSONSchemaProps, 'type' | 'description' | 'items'> = {},
): JSONSchemaProps {
  return { type: 'array', description, items, ...extra }
}

/** A list keyed by one required field: names are unique and server-side apply merges by key. */
export function mapList(description: string, key: string, items: JSONSchemaProps, maxItems: number): JSONSchemaProps {
  return arr(description, items, {
    maxItems,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key],
  })
}

export function stringMap(description: string): JSONSchemaProps {
  return { type: 'object', description, additionalProperties: { type: 'string' } }
}

export function labelSelectorSchema(description: string): JSONSchemaProps {
  return obj(
    description,
    {
      matchLabels: stringMap('Labels that must all be present with these values.'),
      matchExpressions: arr(
        'Requirements that must all hold.',
        obj(
          'One label requirement.',
          {
            key: str('Label key.', { minLength: 1 }),
            operator: str('How the key relates to the values.', { enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] }),
            values: arr(
              'Values for In and NotIn; empty for Exists and DoesNotExist.',
              { type: 'string' },
              {
                'x-kubernetes-list-type': 'atomic',
              },
            ),
          },
          { required: ['key', 'operator'] },
        ),
        { 'x-kubernetes-list-type': 'atomic' },
      ),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  )
}

/** metav1.Condition, with the API's own field limits. */
export function conditionsSchema(description: string): JSONSchemaProps {
  return mapList(
    description,
    'type',
    obj(
      'One aspect of the current state.',
      {
        type: str('Condition type in CamelCase.', {
          maxLength: 316,
          pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
        }),
        status: str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
        reason: str('Machine-readable reason in CamelCase.', {
          minLength: 1,
          maxLength: 1024,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
        }),
        message: str('Human-readable detail.', { maxLength: LIMITS.conditionMessage }),
        lastTransitionTime: str('When the status last changed.', { format: 'date-time' }),
        observedGeneration: int64('metadata.generation the condition was computed from.'),
      },
      { required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'] },
    ),
    LIMITS.conditions,
  )
}
