// The AdmissionReview envelope: checking a parsed request body, and building
// the response. Both are pure. A body that fails the check is answered with a
// 4xx by the HTTP layer, never with an allow.

import type { KubeObject } from '../api/meta.ts'
import type { Decision } from './decision.ts'
import {
  ADMISSION_API_VERSION,
  ADMISSION_KIND,
  OPERATIONS,
  type AdmissionRequest,
  type AdmissionReview,
  type AdmissionResponse,
  type GroupVersionKind,
  type GroupVersionResource,
  type Operation,
  type UserInfo,
  type ValidAdmissionReview,
} from './types.ts'

export type ParsedReview = { readonly ok: true; readonly review: ValidAdmissionReview } | { readonly ok: false; readonly error: string }

type Rec = Record<string, unknown>

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Thrown inside this module only; parseReview turns it into { ok: false }. */
class EnvelopeError extends Error {}

function fail(message: string): never {
  throw new EnvelopeError(message)
}

/** A short rendering of a bad value for an error message. */
function show(v: unknown): string {
  if (v === undefined) return 'nothing'
  const text = typeof v === 'string' ? JSON.stringify(v) : describe(v)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

function requiredString(o: Rec, key: string, where: string, allowEmpty = false): string {
  const v = o[key]
  if (typeof v !== 'string') fail(`${where}.${key} must be a string, got ${describe(v)}`)
  if (!allowEmpty && v === '') fail(`${where}.${key} must not be empty`)
  return v
}

function optionalString(o: Rec, key: string, where: string): string | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') fail(`${where}.${key} must be a string, got ${describe(v)}`)
  return v
}

function gvk(v: unknown, where: string): GroupVersionKind {
  if (!isRec(v)) fail(`${where} must be an object, got ${describe(v)}`)
  return {
    group: requiredString(v, 'group', where, true),
    version: requiredString(v, 'version', where),
    kind: requiredString(v, 'kind', where),
  }
}

function gvr(v: unknown, where: string): GroupVersionResource {
  if (!isRec(v)) fail(`${where} must be an object, got ${describe(v)}`)
  return {
    group: requiredString(v, 'group', where, true),
    version: requiredString(v, 'version', where),
    resource: requiredString(v, 'resource', where),
  }
}

function stringList(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) fail(`${where} must be a list of strings`)
  return v as string[]
}

function userInfo(v: unknown): UserInfo {
  const where = 'request.userInfo'
  if (!isRec(v)) fail(`${where} must be an object, got ${describe(v)}`)
  const out: UserInfo = {}
  const username = optionalString(v, 'username', where)
  if (username !== undefined) out.username = username
  const uid = optionalString(v, 'uid', where)
  if (uid !== undefined) out.uid = uid
  if (v.groups !== undefined && v.groups !== null) out.groups = stringList(v.groups, `${where}.groups`)
  if (v.extra !== undefined && v.extra !== null) {
    if (!isRec(v.extra)) fail(`${where}.extra must be an object`)
    const extra: Record<string, string[]> = {}
    for (const [k, list] of Object.entries(v.extra)) extra[k] = stringList(list, `${where}.extra.${k}`)
    out.extra = extra
  }
  return out
}

function objectOrNull(v: unknown, where: string): KubeObject | null | undefined {
  if (v === undefined || v === null) return v
  if (!isRec(v)) fail(`${where} must be an object or null, got ${describe(v)}`)
  if (v.metadata !== undefined && v.metadata !== null && !isRec(v.metadata)) fail(`${where}.metadata must be an object`)
  return v as KubeObject
}

function operation(v: unknown): Operation {
  if (typeof v !== 'string' || !(OPERATIONS as readonly string[]).includes(v)) {
    fail(`request.operation must be one of ${OPERATIONS.join(', ')}, got ${show(v)}`)
  }
  return v as Operation
}

function request(v: unknown): AdmissionRequest {
  const where = 'request'
  if (!isRec(v)) fail(`request must be an object, got ${describe(v)}`)
  const req: AdmissionRequest = {
    uid: requiredString(v, 'uid', where),
    kind: gvk(v.kind, 'request.kind'),
    resource: gvr(v.resource, 'request.resource'),
    operation: operation(v.operation),
    userInfo: userInfo(v.userInfo),
  }
  const subResource = optionalString(v, 'subResource', where)
  if (subResource !== undefined && subResource !== '') req.subResource = subResource
  if (v.requestKind !== undefined && v.requestKind !== null) req.requestKind = gvk(v.requestKind, 'request.requestKind')
  if (v.requestResource !== undefined && v.requestResource !== null) {
    req.requestResource = gvr(v.requestResource, 'request.requestResource')
  }
  const requestSubResource = optionalString(v, 'requestSubResource', where)
  if (requestSubResource !== undefined && requestSubResource !== '') req.requestSubResource = requestSubResource
  const name = optionalString(v, 'name', where)
  if (name !== undefined) req.name = name
  const namespace = optionalString(v, 'namespace', where)
  if (namespace !== undefined) req.namespace = namespace
  const object = objectOrNull(v.object, 'request.object')
  if (object !== undefined) req.object = object
  const oldObject = objectOrNull(v.oldObject, 'request.oldObject')
  if (oldObject !== undefined) req.oldObject = oldObject
  const options = objectOrNull(v.options, 'request.options')
  if (options !== undefined) req.options = options
  if (v.dryRun !== undefined && v.dryRun !== null) {
    if (typeof v.dryRun !== 'boolean') fail(`request.dryRun must be a boolean, got ${describe(v.dryRun)}`)
    req.dryRun = v.dryRun
  }

  // The API server always sends these; a review without them cannot be judged safely.
  if ((req.operation === 'UPDATE' || req.operation === 'DELETE') && !req.oldObject) {
    fail(`request.oldObject is required for ${req.operation}`)
  }
  if ((req.operation === 'UPDATE' || req.operation === 'CREATE') && !req.object) {
    fail(`request.object is required for ${req.operation}`)
  }
  return req
}

/**
 * Checks a parsed JSON body. On success the review's request holds only
 * checked fields (unknown fields are dropped; object, oldObject and options
 * are kept as given). Never throws.
 */
export function parseReview(body: unknown): ParsedReview {
  try {
    if (!isRec(body)) fail(`the body must be a JSON object, got ${describe(body)}`)
    if (body.apiVersion !== ADMISSION_API_VERSION) {
      fail(`apiVersion must be ${ADMISSION_API_VERSION}, got ${show(body.apiVersion)}`)
    }
    if (body.kind !== ADMISSION_KIND) fail(`kind must be ${ADMISSION_KIND}, got ${show(body.kind)}`)
    if (body.request === undefined || body.request === null) fail('request is missing')
    return { ok: true, review: { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_KIND, request: request(body.request) } }
  } catch (err) {
    if (err instanceof EnvelopeError) return { ok: false, error: err.message }
    throw err
  }
}

/** The AdmissionReview answering request `uid`. Denials carry code 403 and the message. */
export function toResponse(uid: string, decision: Decision): AdmissionReview {
  const response: AdmissionResponse = { uid, allowed: decision.allowed }
  if (!decision.allowed) {
    response.status = { status: 'Failure', code: 403, reason: 'Forbidden', message: decision.message }
  }
  if (decision.warnings !== undefined && decision.warnings.length > 0) response.warnings = [...decision.warnings]
  if (decision.auditAnnotations !== undefined && Object.keys(decision.auditAnnotations).length > 0) {
    response.auditAnnotations = { ...decision.auditAnnotations }
  }
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_KIND, response }
}
