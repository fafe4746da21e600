// `template-sync diff NAMESPACE/NAME`: how the live objects of a
// TemplateInstance differ from what it renders now, judged by the reconciler's
// own plan and diff (src/apply): for each rendered object, GET the
// live object, take the plan's first look (not ours, being deleted, or ours),
// and for one of ours ask the same server-side dry-run apply (field manager
// template-sync, force, ignored fields carried over from the live object),
// compared outside ignoreFields and server-managed fields, unless the plan
// proves the apply a no-op from the live object alone, as the reconciler does.
//
// Only paths are printed, never values, so Secret data cannot leak.
//
// Exit codes follow diff(1): 0 nothing differs, 1 something drifted, is
// missing, is not ours or would be pruned, 2 errors (including an object
// that could not be checked).

import { LABEL_INSTANCE_UID, type SyncMode } from '../api/names.ts'
import { type InstanceIdentity, type InstanceRef, formatInstanceRef } from '../api/ownership.ts'
import { conflictText } from '../apply/conflict-text.ts'
import type { Change, ChangeKind } from '../drift/types.ts'
import type { CompiledIgnore } from '../fieldpath/compile.ts'
import { IgnoreCache } from '../drift/ignore-cache.ts'
import type { KubeClient } from '../kube/client.ts'
import { RestMapper, UnknownKindError } from '../kube/discovery.ts'
import { errorWithStatus } from '../kube/errors.ts'
import { objectKey, refOf } from '../api/identity.ts'
import { dryRunDiff } from '../apply/diff.ts'
import { desiredObject, planObject, pruneActions } from '../apply/plan.ts'
import { DEFAULT_FIGHT_OPTIONS } from '../apply/fight.ts'
import { type ComponentTable, DEFAULT_COMPONENTS } from '../api/writers.ts'
import { additionWriters } from '../drift/additions.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { ObjectClient } from '../kube/objects.ts'
import {
  boolFlag,
  CommandError,
  connect,
  defaultIO,
  type CliIO,
  type Env,
  type InstanceName,
  parseFlags,
  parseInstanceName,
  stringFlag,
  UsageError,
  parseCommandArgs,
} from './args.ts'
import { readInstance, renderObjects } from './render.ts'
import { parseTrackedKind, recordedKinds, trackedKind } from '../api/templateinstance-kinds.ts'

export function diffUsage(): string {
  return `usage: template-sync diff NAMESPACE/NAME [flags]

Compares the live objects of a TemplateInstance with what it renders now,
the way the reconciler detects drift (server-side dry-run apply, ignoreFields
and server-managed fields left out). Prints paths, never values.

  --kubeconfig PATH     cluster to read [$TEMPLATE_SYNC_KUBECONFIG, then
                        $KUBECONFIG, ~/.kube/config, in-cluster]
  -o, --output FORMAT   text (default) or json

Exit codes: 0 in sync; 1 drifted, missing, not owned or to be pruned; 2 error.
`
}

const FLAGS = {
  kubeconfig: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const

export type OutputFormat = 'text' | 'json'

export interface DiffOptions {
  readonly instance: InstanceName
  readonly kubeconfig?: string
  readonly output: OutputFormat
}

/** Throws UsageError; 'help' for -h/--help. */
export function parseDiffArgs(argv: readonly string[]): DiffOptions | 'help' {
  const args = parseFlags(argv, FLAGS)
  if (boolFlag(args, 'help')) return 'help'
  const output = stringFlag(args, 'output') ?? 'text'
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be text or json, got ${JSON.stringify(output)}`)
  const [arg, ...extra] = args.positionals
  if (arg === undefined || extra.length > 0) throw new UsageError('expected exactly one NAMESPACE/NAME')
  const kubeconfig = stringFlag(args, 'kubeconfig')
  return { instance: parseInstanceName(arg), output, ...(kubeconfig !== undefined ? { kubeconfig } : {}) }
}

/**
 * in-sync: nothing to apply; drifted: an apply would change `changes`;
 * missing: not in the cluster (or being deleted); unowned: exists without
 * this instance's ownership (the reconciler refuses to adopt it); orphaned:
 * ours but no longer rendered (the reconciler prunes it, except while frozen);
 * error: could not be checked.
 */
export type DiffState = 'in-sync' | 'drifted' | 'missing' | 'unowned' | 'orphaned' | 'error'

export interface DiffChange {
  /** ignoreFields syntax, e.g. data.key or metadata.labels['app.kubernetes.io/name']. */
  readonly path: string
  /** RFC 6901. */
  readonly pointer: string
  /** From the live object to what an apply would leave: added, removed or changed. */
  readonly kind: ChangeKind
}

export interface DiffEntry {
  readonly apiVersion: string
  readonly kind: string
  readonly namespace?: string
  readonly name: string
  readonly state: DiffState
  readonly changes: readonly DiffChange[]
  readonly message?: string
}

export interface DiffReport {
  readonly instance: string
  readonly template: string
  readonly syncMode: SyncMode
  readonly objects: readonly DiffEntry[]
  /** Notes on the render (unknown kinds, an invalid ignoreFields list). */
  readonly notes: readonly string[]
}

export async function runDiff(argv: readonly string[], env: Env, io?: Partial<CliIO>): Promise<number> {
  const { stdout, stderr } = defaultIO(io)
  const parsed = parseCommandArgs('diff', argv, parseDiffArgs, diffUsage, { stdout, stderr })
  if ('exit' in parsed) return parsed.exit
  const opts = parsed.options
  let client: KubeClient | undefined
  try {
    client = connect(opts.kubeconfig, env)
    const report = await diffInstance(client, opts.instance)
    for (const note of report.notes) stderr.write(`note: ${note}\n`)
    stdout.write(opts.output === 'json' ? `${JSON.stringify(toJson(report), null, 2)}\n` : formatText(report))
    return exitCode(report)
  } catch (err) {
    stderr.write(`template-sync diff: ${(err as Error).message}\n`)
    return 2
  } finally {
    client?.close()
  }
}

/** Renders the instance and checks every rendered object and every owned object it no longer renders. */
export async function diffInstance(client: KubeClient, ref: InstanceName): Promise<DiffReport> {
  const inputs = await readInstance(client, ref)
  const { template, instance } = inputs
  const rendered = await renderObjects(inputs, client)
  if (!rendered.ok) throw new CommandError(`the instance does not render: ${rendered.reason}: ${rendered.message}`, 2)
  const notes = [...rendered.notes]
  const enforced = new IgnoreCache().enforced(template)
  // As the reconciler does: an invalid list (reported on the Template) enforces everything.
  if (enforced.invalid)
    notes.push(`spec.sync.ignoreFields is invalid, so nothing is ignored (as in the reconciler): ${enforced.invalid.message}`)
  const ignore = enforced.ignore
  const objects = new ObjectClient(client, new RestMapper(client))
  const uid = instance.metadata?.uid ?? ''
  const instanceRef = formatInstanceRef(ref)
  const owner: InstanceIdentity = { namespace: ref.namespace, name: ref.name, uid }
  const entries: DiffEntry[] = []
  // As the reconciler does under revert and strict: other writers' additions are drift too (docs/writers.md).
  const guarded = rendered.mode === 'revert' || rendered.mode === 'strict'
  const plan = { owner, template: instance.spec.templateRef, ignore, ...(guarded ? { components: DEFAULT_COMPONENTS } : {}) }
  for (const desired of rendered.objects) entries.push(await checkObject(objects, desired, plan))
  const renderedKeys = new Set(rendered.objects.map((o) => objectKey(refOf(o))))
  const kinds = new Set(rendered.objects.map((o) => trackedKind(o.apiVersion, o.kind)))
  for (const tracked of recordedKinds(instance)) {
    try {
      parseTrackedKind(tracked)
      kinds.add(tracked)
    } catch (err) {
      notes.push(`status.trackedKinds: ${(err as Error).message}; its objects are not checked`)
    }
  }
  for (const kind of kinds) entries.push(...(await orphans(objects, parseTrackedKind(kind), uid, renderedKeys)))
  const t = instance.spec.templateRef
  return { instance: instanceRef, template: `${t.namespace}/${t.name}`, syncMode: rendered.mode, objects: entries, notes }
}

/** The reconciler's first look at the object (apply/plan.ts), then, for one of ours, the same dry-run diff. */
async function checkObject(
  objects: ObjectClient,
  rendered: IdentifiedObject,
  plan: {
    readonly owner: InstanceIdentity
    readonly template: InstanceRef
    readonly ignore: CompiledIgnore
    readonly components?: ComponentTable
  },
): Promise<DiffEntry> {
  const { ignore } = plan
  const desired = desiredObject(rendered)
  const entry = (state: DiffState, changes: readonly DiffChange[] = [], message?: string): DiffEntry => ({
    ...desired.ref,
    state,
    changes,
    ...(message !== undefined ? { message } : {}),
  })
  let live: IdentifiedObject | undefined
  try {
    live = await objects.get(desired.ref)
  } catch (err) {
    return entry('error', [], `cannot read the live object: ${errorWithStatus(err)}`)
  }
  if (live === undefined) return entry('missing')
  const withKind: IdentifiedObject = { ...live, apiVersion: rendered.apiVersion, kind: rendered.kind }
  // Nothing is remembered here, so the look is a conflict, a release, a check,
  // or unchanged when the live object proves our apply a no-op without asking
  // (drift/apply-noop.ts): the same answer an equal dry-run would give.
  const look = planObject(desired, withKind, {}, { ...plan, now: Date.now(), fight: DEFAULT_FIGHT_OPTIONS })
  switch (look.type) {
    case 'conflict': {
      const text = conflictText(desired.ref, look.holder, plan.owner)
      return entry('unowned', [], `${text.what}. ${text.fix}`)
    }
    case 'release':
      return entry('missing', [], `being deleted since ${live.metadata.deletionTimestamp}`)
    case 'unchanged':
      return entry('in-sync')
    case 'strip':
      return entry(
        'drifted',
        look.additions.map((a) => ({ path: a.path, pointer: a.pointer, kind: 'added' as const })),
        `added by field manager ${additionWriters(look.additions)
          .map((w) => JSON.stringify(w))
          .join(', ')}, which the Template does not render; the reconciler removes them`,
      )
    case 'check':
      break
    default:
      return entry('error', [], `unexpected plan ${look.type}`)
  }
  let changes: readonly Change[]
  try {
    ;({ changes } = await dryRunDiff(objects, look, ignore))
  } catch (err) {
    return entry('error', [], `server-side dry-run apply failed: ${errorWithStatus(err)}`)
  }
  return entry(
    changes.length === 0 ? 'in-sync' : 'drifted',
    changes.map((c) => ({ path: c.path, pointer: c.pointer, kind: c.kind })),
  )
}

/** Objects of one kind that carry this instance's UID label but are not rendered any more. */
async function orphans(
  objects: ObjectClient,
  { apiVersion, kind: k }: { apiVersion: string; kind: string },
  uid: string,
  renderedKeys: ReadonlySet<string>,
): Promise<DiffEntry[]> {
  let owned: IdentifiedObject[]
  try {
    owned = await objects.list(apiVersion, k, { labelSelector: `${LABEL_INSTANCE_UID}=${uid}` })
  } catch (err) {
    // A tracked kind whose CRD is gone holds nothing to prune.
    if (err instanceof UnknownKindError) return []
    return [{ apiVersion, kind: k, name: '*', state: 'error', changes: [], message: `cannot list owned objects: ${errorWithStatus(err)}` }]
  }
  return pruneActions(owned, renderedKeys)
    .filter((p) => !p.live.metadata.deletionTimestamp)
    .map((p) => ({
      ...p.ref,
      state: 'orphaned' as const,
      changes: [],
      message: 'no longer rendered; the reconciler deletes it unless the instance is frozen',
    }))
}

const LABELS: Readonly<Record<DiffState, string>> = {
  'in-sync': 'in sync',
  drifted: 'drifted',
  missing: 'missing',
  unowned: 'not owned',
  orphaned: 'orphaned',
  error: 'error',
}
const MARKS: Readonly<Record<ChangeKind, string>> = { changed: '~', added: '+', removed: '-' }

export function formatText(report: DiffReport): string {
  const lines = [`TemplateInstance ${report.instance} (Template ${report.template}, sync mode ${report.syncMode})`]
  for (const e of report.objects) {
    const what = `${e.apiVersion} ${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`
    lines.push(`${LABELS[e.state].padEnd(10)}${what}${e.message !== undefined ? `: ${e.message}` : ''}`)
    for (const c of e.changes) lines.push(`            ${MARKS[c.kind]} ${c.path}`)
  }
  const counts = summary(report)
  const parts = (Object.keys(LABELS) as DiffState[]).filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${LABELS[s]}`)
  lines.push(`${report.objects.length} object(s)${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`)
  return `${lines.join('\n')}\n`
}

export function summary(report: DiffReport): Record<DiffState, number> {
  const counts: Record<DiffState, number> = { 'in-sync': 0, drifted: 0, missing: 0, unowned: 0, orphaned: 0, error: 0 }
  for (const e of report.objects) counts[e.state]++
  return counts
}

export function exitCode(report: DiffReport): 0 | 1 | 2 {
  const counts = summary(report)
  if (counts.error > 0) return 2
  return counts.drifted + counts.missing + counts.unowned + counts.orphaned > 0 ? 1 : 0
}

function toJson(report: DiffReport): Record<string, unknown> {
  return { ...report, summary: summary(report), exitCode: exitCode(report) }
}
