// One log line per admission decision: denials at info, allows at debug. The
// line identifies the request and the rule that decided it; it never carries
// object, oldObject or options, which may hold Secret data.

import type { Decision } from '../admission/decision.ts'
import type { AdmissionRequest } from '../admission/types.ts'

/** Changed paths kept in a log line; the denial message and metrics carry the rest. */
const MAX_LOGGED_PATHS = 20

/** "apps/v1/deployments/scale", "v1/configmaps". */
export function describeResource(req: AdmissionRequest): string {
  const r = req.resource
  const gv = r.group === '' ? r.version : `${r.group}/${r.version}`
  return req.subResource ? `${gv}/${r.resource}/${req.subResource}` : `${gv}/${r.resource}`
}

export function resultOf(decision: Decision): 'allow' | 'warn' | 'deny' {
  if (!decision.allowed) return 'deny'
  return decision.warnings !== undefined && decision.warnings.length > 0 ? 'warn' : 'allow'
}

/** The part of a pino logger used here; Fastify's request logger fits. */
export interface DecisionLogger {
  info(obj: object, msg: string): void
  debug(obj: object, msg: string): void
  isLevelEnabled?(level: string): boolean
}

export function logDecision(log: DecisionLogger, req: AdmissionRequest, decision: Decision, elapsedMs: number): void {
  const denied = !decision.allowed
  if (!denied && log.isLevelEnabled?.('debug') === false) return
  const name = req.name || req.oldObject?.metadata?.name || req.object?.metadata?.name || ''
  const fields = {
    uid: req.uid,
    user: req.userInfo.username,
    operation: req.operation,
    resource: describeResource(req),
    target: req.namespace ? `${req.namespace}/${name}` : name,
    instance: decision.owner,
    reason: decision.reason,
    result: resultOf(decision),
    paths: decision.changedPaths?.slice(0, MAX_LOGGED_PATHS),
    dryRun: req.dryRun === true,
    ms: Math.round(elapsedMs * 1000) / 1000,
  }
  if (denied) log.info(fields, 'admission denied')
  else log.debug(fields, 'admission allowed')
}
