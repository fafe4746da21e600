// admission.k8s.io/v1 AdmissionReview as it travels over the wire, reduced to
// the fields template-sync reads or writes.

import type { KubeObject } from '../api/meta.ts'

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1'
export const ADMISSION_KIND = 'AdmissionReview'

export const OPERATIONS = Object.freeze(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const)
export type Operation = (typeof OPERATIONS)[number]

export interface GroupVersionKind {
  group: string
  version: string
  kind: string
}

export interface GroupVersionResource {
  group: string
  version: string
  resource: string
}

export interface UserInfo {
  username?: string
  uid?: string
  groups?: string[]
  extra?: Record<string, string[]>
}

export interface AdmissionRequest {
  uid: string
  kind: GroupVersionKind
  resource: GroupVersionResource
  /** e.g. "status" or "scale"; absent for the main resource. */
  subResource?: string
  requestKind?: GroupVersionKind
  requestResource?: GroupVersionResource
  requestSubResource?: string
  /** May be empty for CREATE with generateName. */
  name?: string
  /** Empty for cluster-scoped objects. */
  namespace?: string
  operation: Operation
  userInfo: UserInfo
  /** The new object; null for DELETE. For /scale an autoscaling/v1 Scale. */
  object?: KubeObject | null
  /** The stored object; set for UPDATE and DELETE. For /scale an autoscaling/v1 Scale. */
  oldObject?: KubeObject | null
  dryRun?: boolean
  /** CreateOptions, UpdateOptions or DeleteOptions. */
  options?: KubeObject | null
}

/** metav1.Status as used inside an admission response. */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure'
  code?: number
  reason?: string
  message?: string
}

export interface AdmissionResponse {
  uid: string
  allowed: boolean
  status?: AdmissionStatus
  warnings?: string[]
  auditAnnotations?: Record<string, string>
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION
  kind: typeof ADMISSION_KIND
  request?: AdmissionRequest
  response?: AdmissionResponse
}

/** A review that passed envelope validation: the request is present. */
export interface ValidAdmissionReview extends AdmissionReview {
  request: AdmissionRequest
}
