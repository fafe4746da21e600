// openAPIV3Schema of the TemplateInstance CRD, following templateinstance.ts.

import { arr, conditionsSchema, DNS_LABEL_PATTERN, int64, LIMITS, mapList, obj, str, stringMap, type JSONSchemaProps } from './schema.ts'
import { INSTANCE_PHASES } from './templateinstance.ts'

function keyRefSchema(description: string): JSONSchemaProps {
  return obj(
    description,
    {
      name: str('Object name.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
      key: str('Key inside data.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
      namespace: str('Namespace; defaults to the TemplateInstance namespace.', { maxLength: LIMITS.dnsLabel }),
    },
    { required: ['name', 'key'] },
  )
}

const objectFieldRefSchema: JSONSchemaProps = obj(
  'A field of any object. With name: GET one object. Without name: LIST, and the result is a list.',
  {
    apiVersion: str('API version of the object.', { minLength: 1 }),
    kind: str('Kind of the object.', { minLength: 1 }),
    name: str('Object name; omit to list.', { maxLength: LIMITS.dnsSubdomain }),
    namespace: str('Namespace; empty lists namespaced kinds across all namespaces.', { maxLength: LIMITS.dnsLabel }),
    jsonPath: str('JSONPath without braces, starting with ".", e.g. .status.loadBalancer.ingress[0].ip.', {
      minLength: 1,
      maxLength: LIMITS.jsonPath,
    }),
  },
  {
    required: ['apiVersion', 'kind', 'jsonPath'],
    'x-kubernetes-validations': [
      {
        rule: "self.jsonPath.startsWith('.')",
        message: 'jsonPath must start with "." and must not be wrapped in {}',
        fieldPath: '.jsonPath',
      },
    ],
  },
)

/** Shared by spec.parameters[].valueFrom and its echo in status.resolvedParameters. */
export const valueFromSchema: JSONSchemaProps = obj(
  'Where the value comes from; exactly one source.',
  {
    secretKeyRef: keyRefSchema('A key of a Secret; the value is decoded from base64.'),
    configMapKeyRef: keyRefSchema('A key of a ConfigMap.'),
    objectFieldRef: objectFieldRefSchema,
  },
  { minProperties: 1, maxProperties: 1 },
)

const parameterSchema: JSONSchemaProps = obj(
  'A value for one parameter declared by the Template.',
  {
    name: str('Name of a parameter declared by the Template.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
    value: str('Literal value. Array and object values are JSON text.'),
    valueFrom: valueFromSchema,
    defaultValue: str('Used when valueFrom cannot be resolved. Only with valueFrom.'),
  },
  {
    required: ['name'],
    'x-kubernetes-validations': [
      { rule: 'has(self.value) != has(self.valueFrom)', message: 'exactly one of value or valueFrom must be set' },
      {
        rule: '!has(self.defaultValue) || has(self.valueFrom)',
        message: 'defaultValue is only allowed together with valueFrom',
        fieldPath: '.defaultValue',
      },
    ],
  },
)

export const templateInstanceSpecSchema: JSONSchemaProps = obj(
  'Which Template to render and with which parameter values.',
  {
    templateRef: obj(
      'The Template to render; it may live in another namespace.',
      {
        name: str('Template name.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
        namespace: str('Template namespace.', { minLength: 1, maxLength: LIMITS.dnsLabel, pattern: DNS_LABEL_PATTERN }),
      },
      { required: ['name', 'namespace'] },
    ),
    parameters: mapList('Parameter values.', 'name', parameterSchema, LIMITS.parameters),
  },
  { required: ['templateRef'] },
)

const resourceReferenceSchema: JSONSchemaProps = obj(
  'One rendered object. Identity is apiVersion, kind, name and namespace.',
  {
    apiVersion: str('API version.', { minLength: 1 }),
    kind: str('Kind.', { minLength: 1 }),
    name: str('Name.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
    namespace: str('Namespace; empty for cluster-scoped objects.', { maxLength: LIMITS.dnsLabel }),
    observedGeneration: int64("The object's metadata.generation at its last successful apply."),
    status: str('Empty when applied; Failed when the last apply or delete failed and will be retried.', {
      enum: ['', 'Failed'],
    }),
  },
  { required: ['apiVersion', 'kind', 'name'] },
)

const resolvedParameterSchema: JSONSchemaProps = obj(
  'How one parameter was resolved.',
  {
    name: str('Parameter name.', { minLength: 1 }),
    // Free-form on purpose: a source may resolve to a list or a map.
    value: {
      description: 'Resolved value, only when the definition sets exposeInStatus.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    valueFrom: valueFromSchema,
  },
  { required: ['name'] },
)

export const templateInstanceStatusSchema: JSONSchemaProps = obj('Observed state, written by the operator.', {
  observedGeneration: int64('Last metadata.generation reconciled successfully.'),
  phase: str('Ready, or Failed when a gating condition is False.', { enum: [...INSTANCE_PHASES] }),
  conditions: conditionsSchema(
    'TemplateResolved, TargetNamespaceAllowed, ParametersValid, Rendered, Applied, OutputsResolved, Synced and Ready.',
  ),
  renderedResources: arr('Objects rendered by the last successful pass; the cleanup index.', resourceReferenceSchema, {
    maxItems: LIMITS.renderedResources,
    'x-kubernetes-list-type': 'atomic',
  }),
  resolvedParameters: mapList('Source of every parameter.', 'name', resolvedParameterSchema, LIMITS.parameters),
  resolvedTemplateRef: obj(
    'The Template actually rendered.',
    {
      name: str('Template name.'),
      namespace: str('Template namespace.'),
      generation: int64('metadata.generation of the rendered Template.'),
    },
    { required: ['name', 'namespace'] },
  ),
  trackedKinds: arr(
    'Every kind ever rendered, as apiVersion/kind ("v1/ConfigMap", "apps/v1/Deployment"); the cleanup and drift-watch index.',
    { type: 'string' },
    { 'x-kubernetes-list-type': 'set' },
  ),
  // Kept in the schema so that the value an earlier release wrote is not
  // pruned before the reconciler has copied it into trackedKinds.
  trackedGVKs: arr(
    'Deprecated: written by earlier releases ("/v1/ConfigMap" for core kinds); replaced by trackedKinds.',
    { type: 'string' },
    { 'x-kubernetes-list-type': 'set' },
  ),
  firstAppliedAt: str('Start of the freeze under sync mode off.', { format: 'date-time' }),
  outputs: {
    type: 'object',
    description: 'Extracted values: outputs.<field>.<key>; lists and maps are JSON text.',
    additionalProperties: stringMap('Values of one field, by key.'),
  },
})

export const templateInstanceSchema: JSONSchemaProps = obj(
  'A request to render a Template into this namespace, and the record of what was rendered.',
  {
    apiVersion: str('Versioned schema of this object.'),
    kind: str('Kind of this object.'),
    // The name is stamped into label values on every rendered object, so it must fit one.
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: LIMITS.instanceName } } },
    spec: templateInstanceSpecSchema,
    status: templateInstanceStatusSchema,
  },
  { required: ['spec'] },
)
