// One import site for the API's types. The definitions live in files by kind;
// this file only re-exports them.

export type {
  Condition,
  ConditionStatus,
  KubeObject,
  LabelSelector,
  LabelSelectorOperator,
  LabelSelectorRequirement,
  ObjectMeta,
  OwnerReference,
  Timestamp,
} from './meta.ts'
export type {
  HelmRepository,
  HelmSecretRef,
  HelmSpec,
  HelmVersion,
  OutputField,
  OutputSource,
  OutputSourceAll,
  ParameterType,
  SyncConfig,
  TargetNamespaces,
  Template,
  TemplateOutput,
  TemplateParameterDefinition,
  TemplatePhase,
  TemplateSpec,
  TemplateStatus,
} from './template.ts'
export type {
  InstancePhase,
  KeyRef,
  ObjectFieldRef,
  OutputValues,
  ParameterValue,
  ResolvedParameter,
  ResolvedTemplateRef,
  ResourceReference,
  ResourceState,
  TemplateInstance,
  TemplateInstanceSpec,
  TemplateInstanceStatus,
  TemplateParameter,
  TemplateRef,
  ValueFrom,
} from './templateinstance.ts'
export type { SyncMode } from './names.ts'
export type { ConditionUpdate, InstanceConditionType, Reason, TemplateConditionType } from './conditions.ts'
