// Watch events of the caches that read metadata only (scale targets, Pods)
// still carry metadata.managedFields, about half of a rendered object's
// metadata. Every write of a managed Deployment sends one such event to every
// webhook replica; the field is cut out of the line before parsing, checked
// the same way as in review bodies (json-body.ts).

import type { WatchEvent } from '../kube/client.ts'
import { parseWithoutManagedFields, type Rec } from './json-body.ts'

const rec = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : undefined)

const eventMetadata = (parsed: unknown): (Rec | undefined)[] => [rec(rec(rec(parsed)?.object)?.metadata)]

/** One watch event line, without its object's managedFields; throws like JSON.parse for a broken line. */
export function parseWatchLine(line: string): WatchEvent {
  return parseWithoutManagedFields(line, 1, eventMetadata, JSON.parse) as WatchEvent
}
