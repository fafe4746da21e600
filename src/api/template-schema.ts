// openAPIV3Schema of the Template CRD. Field for field it follows template.ts;
// the rules that span fields are CEL, each with a message that says what to fix.

import { SYNC_MODES } from './names.ts'
import { arr, bool, conditionsSchema, int64, labelSelectorSchema, LIMITS, mapList, obj, str, type JSONSchemaProps } from './schema.ts'
import { DEFAULT_HELM_VERSION, HELM_VERSIONS, PARAMETER_TYPES, TEMPLATE_PHASES } from './template.ts'

export const HELM_URL_PATTERN = '^(https?|oci)://'
/** Helm's release name rule (ValidateReleaseName): a DNS-1123 subdomain; the length is limited separately. */
export const HELM_RELEASE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
export const SEMVER_PATTERN = '^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$'
/** Output and field names become keys under status.outputs and in JSONPath expressions. */
export const OUTPUT_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$'

const helmSchema: JSONSchemaProps = obj(
  'Render a Helm chart as helm template --include-crds does; the objects are applied and protected like gotemplate ones.',
  {
    chart: obj(
      'Chart to render.',
      {
        repository: obj(
          'Where the chart comes from.',
          {
            url: str('http(s):// repository serving index.yaml, or an oci:// registry.', {
              minLength: 1,
              pattern: HELM_URL_PATTERN,
            }),
            name: str('Chart name.', { minLength: 1 }),
            version: str('Exact SemVer 2 chart version, optional leading "v"; ranges are rejected.', {
              minLength: 5,
              pattern: SEMVER_PATTERN,
            }),
            auth: obj(
              'Credentials for the repository.',
              {
                secretRef: obj(
                  'Secret in the Template namespace.',
                  { name: str('Secret name.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }) },
                  { required: ['name'] },
                ),
              },
              { required: ['secretRef'] },
            ),
          },
          { required: ['url', 'name', 'version'] },
        ),
      },
      { required: ['repository'] },
    ),
    releaseName: str('Release name (.Release.Name); defaults to the TemplateInstance name.', {
      maxLength: LIMITS.helmReleaseName,
      pattern: HELM_RELEASE_NAME_PATTERN,
    }),
    version: str('Helm major whose rendering rules apply (values, Capabilities, output).', {
      enum: [...HELM_VERSIONS],
      default: DEFAULT_HELM_VERSION,
    }),
    valuesTemplate: str(
      'Go template over .parameters and .instance that renders one YAML mapping, merged over the chart values as helm -f merges a values file.',
    ),
  },
  { required: ['chart'] },
)

const parameterSchema: JSONSchemaProps = obj(
  'A declared input of the Template.',
  {
    name: str('Parameter name, unique within the Template.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
    value: str('Literal default. Array and object values are JSON text.'),
    type: str('Type the value must have.', { enum: [...PARAMETER_TYPES] }),
    required: bool('The TemplateInstance must supply a value; the default is ignored.'),
    disableOverride: bool('The TemplateInstance must not supply a value.'),
    exposeInStatus: bool('Record the resolved value in the TemplateInstance status.'),
  },
  {
    required: ['name'],
    'x-kubernetes-validations': [
      {
        rule: '!(has(self.required) && self.required && has(self.disableOverride) && self.disableOverride)',
        message: 'required and disableOverride cannot both be true',
      },
    ],
  },
)

const targetNamespacesSchema: JSONSchemaProps = obj(
  'Namespaces whose TemplateInstances may use this Template. Omitted: only the Template namespace.',
  {
    explicit: obj('Namespaces listed by name.', {
      allow: obj('Allowed namespaces.', {
        literal: arr(
          'Namespace names; ["*"] allows every namespace.',
          str('Namespace name or "*".', { pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?|\\*)$', maxLength: LIMITS.dnsLabel }),
          { maxItems: LIMITS.namespaces, 'x-kubernetes-list-type': 'set' },
        ),
      }),
    }),
    selector: labelSelectorSchema('Namespaces whose labels match are allowed as well.'),
  },
)

const syncSchema: JSONSchemaProps = obj(
  'Drift protection for the rendered objects.',
  {
    mode: str('off: apply until the first clean pass, then freeze. revert: put drift back. strict: revert and deny edits at admission.', {
      enum: [...SYNC_MODES],
      default: 'off',
    }),
    ignoreFields: arr(
      'Field paths that are neither reverted nor guarded, e.g. spec.replicas or metadata.annotations.',
      str('Field path.', { minLength: 1, maxLength: LIMITS.fieldPath }),
      { maxItems: LIMITS.ignoreFields, 'x-kubernetes-list-type': 'atomic' },
    ),
  },
  { default: {} },
)

const outputSourceSchema: JSONSchemaProps = obj(
  'One rendered object.',
  {
    apiVersion: str('API version of the object.', { minLength: 1 }),
    kind: str('Kind of the object.', { minLength: 1 }),
    name: str('Object name; a JSONPath template over the render context, e.g. {.instance.name}-svc.', { minLength: 1 }),
    namespace: str('Object namespace (JSONPath template); defaults to the TemplateInstance namespace.'),
  },
  { required: ['apiVersion', 'kind', 'name'] },
)

const outputSourceAllSchema: JSONSchemaProps = obj(
  'Every rendered object of one kind.',
  {
    apiVersion: str('API version of the objects.', { minLength: 1 }),
    kind: str('Kind of the objects.', { minLength: 1 }),
    namespace: str('Only objects in this namespace (JSONPath template).'),
    selector: labelSelectorSchema('Only objects whose labels match.'),
  },
  { required: ['apiVersion', 'kind'] },
)

const outputSchema: JSONSchemaProps = obj(
  'A named extraction from rendered objects into the TemplateInstance status.',
  {
    name: str('Output name, unique within the Template.', { minLength: 1, maxLength: LIMITS.outputName, pattern: OUTPUT_NAME_PATTERN }),
    from: outputSourceSchema,
    fromAll: outputSourceAllSchema,
    forEach: obj(
      'Iterate over an array inside the from object.',
      { jsonPath: str('JSONPath with braces selecting the array.', { minLength: 1, maxLength: LIMITS.jsonPath }) },
      { required: ['jsonPath'] },
    ),
    keyTemplate: str('JSONPath template producing the key of each result.', { maxLength: LIMITS.jsonPath }),
    fields: mapList(
      'Values to extract.',
      'name',
      obj(
        'One extracted value.',
        {
          name: str('Key under status.outputs; unique across all outputs of the Template.', {
            minLength: 1,
            maxLength: LIMITS.outputName,
            pattern: OUTPUT_NAME_PATTERN,
          }),
          jsonPath: str('kubectl-style JSONPath with braces, e.g. {.spec.clusterIP}.', { minLength: 1, maxLength: LIMITS.jsonPath }),
        },
        { required: ['name', 'jsonPath'] },
      ),
      LIMITS.outputFields,
    ),
  },
  {
    required: ['name', 'fields'],
    'x-kubernetes-validations': [
      { rule: 'has(self.from) != has(self.fromAll)', message: 'exactly one of from or fromAll must be set' },
      { rule: '!has(self.forEach) || has(self.from)', message: 'forEach requires from', fieldPath: '.forEach' },
    ],
  },
)

/** A Kubernetes kind name, or "*". */
export const GRANT_KIND_PATTERN = '^([A-Za-z][A-Za-z0-9]*|\\*)$'
/** An API group (DNS subdomain), "" for the core group, or "*". */
export const GRANT_GROUP_PATTERN = '^(\\*|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?)$'

const grantSchema = (what: string): JSONSchemaProps =>
  obj(
    what,
    {
      apiGroup: str('API group; empty for the core group, "*" for every group.', {
        maxLength: LIMITS.dnsSubdomain,
        pattern: GRANT_GROUP_PATTERN,
      }),
      kind: str('Kind, or "*" for every kind.', { minLength: 1, maxLength: LIMITS.dnsSubdomain, pattern: GRANT_KIND_PATTERN }),
      namespace: str('Namespace of namespaced objects, or "*" for every namespace. Omitted: cluster-scoped objects.', {
        minLength: 1,
        maxLength: LIMITS.dnsLabel,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?|\\*)$',
      }),
      names: arr(
        'Object names; omitted for every name. Only a grant without names allows a LIST.',
        str('Object name.', { minLength: 1, maxLength: LIMITS.dnsSubdomain }),
        { maxItems: LIMITS.grantNames, 'x-kubernetes-list-type': 'set' },
      ),
    },
    { required: ['kind'] },
  )

const grantsSchema: JSONSchemaProps = obj(
  'What instances of this Template may reach beyond their own namespace (not part of the Template Operator v2 API). Omitted: nothing.',
  {
    parameterSources: arr(
      'Objects spec.parameters[].valueFrom of an instance may read outside the instance namespace.',
      grantSchema('Objects a parameter source may read.'),
      { maxItems: LIMITS.grants, 'x-kubernetes-list-type': 'atomic' },
    ),
    objects: arr(
      'Objects a render may apply outside the instance namespace, and cluster-scoped objects.',
      grantSchema('Objects a render may apply.'),
      { maxItems: LIMITS.grants, 'x-kubernetes-list-type': 'atomic' },
    ),
  },
)

export const templateSpecSchema: JSONSchemaProps = obj(
  'What the Template renders, who may use it and how drift is handled.',
  {
    gotemplate: str('Go text/template with Sprig functions rendering one or more YAML documents.', { minLength: 1 }),
    helm: helmSchema,
    parameters: mapList('Declared inputs.', 'name', parameterSchema, LIMITS.parameters),
    targetNamespaces: targetNamespacesSchema,
    sync: syncSchema,
    outputs: mapList('Values lifted from rendered objects into TemplateInstance status.outputs.', 'name', outputSchema, LIMITS.outputs),
    grants: grantsSchema,
  },
  {
    'x-kubernetes-validations': [
      { rule: 'has(self.gotemplate) != has(self.helm)', message: 'exactly one of gotemplate or helm must be set' },
      {
        // Field names are the keys of status.outputs, so they must not repeat across outputs either.
        rule: '!has(self.outputs) || self.outputs.all(a, self.outputs.all(b, a.name == b.name || a.fields.all(f, b.fields.all(g, f.name != g.name))))',
        message: 'output field names must be unique across all outputs',
        fieldPath: '.outputs',
      },
    ],
  },
)

export const templateStatusSchema: JSONSchemaProps = obj('Observed state, written by the operator.', {
  observedGeneration: int64('Last metadata.generation processed.'),
  phase: str('Valid, Invalid (spec error) or Error (external failure).', { enum: [...TEMPLATE_PHASES] }),
  conditions: conditionsSchema('Valid, SourceAccessible, DryRunRendered and Deleting.'),
})

export const templateSchema: JSONSchemaProps = obj(
  'A renderable set of manifests with declared parameters, a namespace policy and a sync policy.',
  {
    apiVersion: str('Versioned schema of this object.'),
    kind: str('Kind of this object.'),
    metadata: { type: 'object' },
    spec: templateSpecSchema,
    status: templateStatusSchema,
  },
  { required: ['spec'] },
)
