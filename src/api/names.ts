// Names shared by every part of template-sync: the API group, the ownership
// metadata stamped on rendered objects, finalizers, condition types and reasons.
// Nothing else in the code base spells these strings.

export const GROUP = 'templates.v2.stakater.com'
export const VERSION = 'v2alpha1'
export const API_VERSION = `${GROUP}/${VERSION}`

/** Field manager used for every server-side apply. */
export const FIELD_MANAGER = 'template-sync'

/** Ownership metadata stamped on every rendered object. */
export const LABEL_INSTANCE = `${GROUP}/instance`
export const LABEL_INSTANCE_UID = `${GROUP}/instance-uid`
export const LABEL_INSTANCE_NAME = `${GROUP}/instance-name`
export const LABEL_INSTANCE_NAMESPACE = `${GROUP}/instance-namespace`
/** The owning Template's sync mode at the last apply; a pre-filter for the webhook, never the verdict. */
export const LABEL_SYNC_MODE = `${GROUP}/sync-mode`
export const ANNOTATION_INSTANCE_REF = `${GROUP}/instance-ref`
/**
 * The Template that last applied the object ("<namespace>/<name>"). The
 * webhook judges the object by it, not by the instance's current templateRef,
 * which the instance's author may change (docs/security.md).
 */
export const ANNOTATION_TEMPLATE_REF = `${GROUP}/template-ref`
/**
 * The apiVersion the object was rendered in. ignoreFields names fields of that
 * version; a write in another version is compared in full (docs/admission-versions.md).
 */
export const ANNOTATION_RENDERED_VERSION = `${GROUP}/rendered-api-version`
/**
 * On a TemplateInstance: the kinds it has rendered, comma-separated, written
 * with our finalizer before any apply, so that cleanup finds every object even
 * when the pass ends before its status write (docs/tracked-kinds.md).
 */
export const ANNOTATION_TRACKED_KINDS = `${GROUP}/tracked-kinds`

/** Label keys that ignoreFields can never cover: stripping them would strip ownership. */
export const PROTECTED_LABELS: readonly string[] = Object.freeze([
  LABEL_INSTANCE,
  LABEL_INSTANCE_UID,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  // The webhook's matchConditions select on it: changing it would switch strict enforcement off.
  LABEL_SYNC_MODE,
])
/** Annotation keys that ignoreFields can never cover. */
export const PROTECTED_ANNOTATIONS: readonly string[] = Object.freeze([
  ANNOTATION_INSTANCE_REF,
  ANNOTATION_TEMPLATE_REF,
  ANNOTATION_RENDERED_VERSION,
])

export const FINALIZER_TEMPLATE = `${GROUP}/finalizer`
export const FINALIZER_INSTANCE = `${GROUP}/template-instance`
export const FINALIZER_RESOURCE = `${GROUP}/template-instance-resource`

export type SyncMode = 'off' | 'revert' | 'strict'
export const SYNC_MODES: readonly SyncMode[] = Object.freeze(['off', 'revert', 'strict'])

/** Kinds, resource names and kubectl aliases of the two CRDs. */
export const KIND_TEMPLATE = 'Template'
export const KIND_TEMPLATE_INSTANCE = 'TemplateInstance'
export const PLURAL_TEMPLATE = 'templates'
export const PLURAL_TEMPLATE_INSTANCE = 'templateinstances'
export const CRD_TEMPLATE = `${PLURAL_TEMPLATE}.${GROUP}`
export const CRD_TEMPLATE_INSTANCE = `${PLURAL_TEMPLATE_INSTANCE}.${GROUP}`
export const SHORT_NAMES_TEMPLATE: readonly string[] = Object.freeze(['tpl'])
export const SHORT_NAMES_TEMPLATE_INSTANCE: readonly string[] = Object.freeze(['tpli'])
/** `kubectl get template-sync` lists both kinds. */
export const CRD_CATEGORIES: readonly string[] = Object.freeze(['template-sync'])
