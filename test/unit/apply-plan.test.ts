// The reconciler's decisions, without an API server: the plan (apply/plan.ts)
// for create, update, unchanged, conflict, release, prune, a drift put back
// with and without a dry-run, and a fight with its backoff, over several
// passes with a manual clock. The API server's part is played by serverView
// (what it adds) and by the dry-run answers handed to settle().

import t from 'tap'
import { objectKey } from '../../src/api/identity.ts'
import type { IdentifiedObject } from '../../src/api/meta.ts'
import { ANNOTATION_INSTANCE_REF, LABEL_INSTANCE_UID } from '../../src/api/names.ts'
import { stampOwnership } from '../../src/api/ownership.ts'
import {
  type Check,
  desiredObject,
  type DryRunAnswer,
  type ObjectAction,
  type ObjectMemory,
  type PlanContext,
  planObject,
  pruneActions,
  remember,
  settle,
} from '../../src/apply/plan.ts'
import type { FightOptions, FightStep } from '../../src/apply/fight.ts'
import { compare } from '../../src/drift/compare.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { ourApplyEntry } from './helpers/field-set.ts'

const owner = { name: 'app', namespace: 'team-a', uid: 'uid-app' }
const fight: FightOptions = { windowMs: 10_000, threshold: 3, backoffMs: 500, backoffMaxMs: 8_000, quietMs: 3_000 }
const nothingIgnored = compileIgnoreFields([])
const ctx = (now: number, ignore = nothingIgnored): PlanContext => ({ owner, ignore, now, fight })

function rendered(data: Record<string, string>, name = 'cfg'): IdentifiedObject {
  return stampOwnership({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a' }, data }, owner, 'revert')
}

let rv = 0
/** What the API server makes of an object it stores: the fields it manages itself, and who wrote last. */
function serverView(obj: IdentifiedObject, manager = 'template-sync'): IdentifiedObject {
  const out = structuredClone(obj)
  out.metadata = {
    ...out.metadata,
    uid: 'obj-uid',
    resourceVersion: String(++rv),
    managedFields: [
      {
        manager,
        operation: manager === 'template-sync' ? 'Apply' : 'Update',
        time: `2026-01-01T00:00:${String(rv % 60).padStart(2, '0')}Z`,
      },
    ],
  }
  return out
}

/** A live object someone else edited: data changed, written by `manager`. */
function edited(live: IdentifiedObject, data: Record<string, string>, manager = 'kubectl-edit'): IdentifiedObject {
  const copy = structuredClone(live)
  copy.data = { ...(copy.data as Record<string, string>), ...data }
  return serverView(copy, manager)
}

/** Server-side apply in short: maps merge, fields of other managers stay, our values win. */
function merged(live: unknown, intent: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  if (!isMap(live) || !isMap(intent)) return intent
  const out: Record<string, unknown> = { ...live }
  for (const [k, v] of Object.entries(intent)) out[k] = merged(live[k], v)
  return out
}

/** A dry-run answer as the API server would give it: our intent applied over the live object, compared with it. */
function dryRun(check: Check, ignore = nothingIgnored): DryRunAnswer {
  const wouldBe = serverView(check.live ? (merged(check.live, check.intent) as IdentifiedObject) : check.intent)
  return { wouldBe, changes: check.live ? compare(check.live, wouldBe, ignore) : [] }
}

interface PassResult {
  readonly action: ObjectAction
  /** True when the pass asked the API server for a dry-run. */
  readonly dryRunAsked: boolean
  readonly memory: ObjectMemory
  /** The object after the pass (our apply, if one was made). */
  readonly live: IdentifiedObject | undefined
  readonly steps: (FightStep | undefined)[]
}

/** One reconcile of one object: both looks, the apply when one is due, what is remembered. */
function pass(
  obj: IdentifiedObject,
  live: IdentifiedObject | undefined,
  memory: ObjectMemory,
  now: number,
  ignore = nothingIgnored,
): PassResult {
  const desired = desiredObject(obj)
  const look = planObject(desired, live, memory, ctx(now, ignore))
  let action: ObjectAction
  let dryRunAsked = false
  if (look.type === 'check') {
    dryRunAsked = look.dryRun
    action = settle(look, memory, look.dryRun ? dryRun(look, ignore) : undefined, ctx(now, ignore))
  } else {
    action = look
  }
  const result = action.type === 'create' || action.type === 'update' || action.type === 'correct' ? serverView(action.intent) : undefined
  const kept = remember(memory, action, result, now, fight)
  const steps = [
    action.type === 'unchanged' || action.type === 'wait' || action.type === 'correct' ? action.fight : undefined,
    kept.corrected,
  ]
  return { action, dryRunAsked, memory: kept.memory, live: result ?? live, steps }
}

t.test('create: an absent object is dry-run, then created, and its apply remembered', async (t) => {
  const obj = rendered({ color: 'blue' })
  const r = pass(obj, undefined, {}, 0)
  t.equal(r.action.type, 'create')
  t.ok(r.dryRunAsked, 'the gate dry-runs new objects too')
  t.equal(r.memory.applied?.desiredHash, desiredObject(obj).hash)
  t.equal(r.memory.fight, undefined)
})

t.test('unchanged: back where our last apply left it, decided without a request', async (t) => {
  const obj = rendered({ color: 'blue' })
  const created = pass(obj, undefined, {}, 0)
  const look = planObject(desiredObject(obj), created.live, created.memory, ctx(1000))
  t.equal(look.type, 'unchanged')
  t.equal(pass(obj, created.live, created.memory, 1000).dryRunAsked, false)
})

t.test('update: a new render of an existing object is dry-run and applied with the changed paths', async (t) => {
  const v1 = pass(rendered({ color: 'blue' }), undefined, {}, 0)
  const r = pass(rendered({ color: 'green', size: 'L' }), v1.live, v1.memory, 1000)
  t.equal(r.action.type, 'update')
  t.ok(r.dryRunAsked)
  t.same(r.action.type === 'update' && r.action.changes.map((c) => c.path), ['data.color', 'data.size'])
  t.equal(r.memory.applied?.desiredHash, desiredObject(rendered({ color: 'green', size: 'L' })).hash)
})

t.test('correct: drift in a field we set is put back without a dry-run, naming the field', async (t) => {
  const obj = rendered({ color: 'blue' })
  const v1 = pass(obj, undefined, {}, 0)
  const r = pass(obj, edited(v1.live as IdentifiedObject, { color: 'red' }), v1.memory, 20_000)
  t.equal(r.action.type, 'correct')
  t.notOk(r.dryRunAsked, 'our apply certainly changes it back')
  t.same(r.action.type === 'correct' && r.action.changes.map((c) => c.path), ['data.color'])
  t.equal(r.action.type === 'correct' && r.action.intent.data && (r.action.intent.data as Record<string, string>).color, 'blue')
  t.match(r.memory.fight, { streak: 0, correctedAt: 20_000 }, 'a correction is remembered for fight detection')
})

t.test('a drift outside our fields is judged by the dry-run: nothing to change, the answer is remembered', async (t) => {
  const obj = rendered({ color: 'blue' })
  const v1 = pass(obj, undefined, {}, 0)
  const live = structuredClone(v1.live as IdentifiedObject)
  live.metadata.labels = { ...live.metadata.labels, 'team.example.com/cost-center': '42' }
  const r = pass(obj, serverView(live, 'kubectl-label'), v1.memory, 1000)
  t.ok(r.dryRunAsked, 'a field of another manager goes through the dry-run')
  t.equal(r.action.type, 'unchanged')
  t.ok(r.action.type === 'unchanged' && r.action.checked, 'the dry-run result becomes the last apply')
  t.equal(planObject(desiredObject(obj), r.live, r.memory, ctx(2000)).type, 'unchanged', 'the next look needs no request')
})

t.test('conflict: an object without our ownership is not ours, whoever owns it; the adoption annotation makes it ours', async (t) => {
  const d = desiredObject(rendered({ color: 'blue' }))
  const foreign = serverView({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'team-a' }, data: {} }, 'kubectl')
  t.match(planObject(d, foreign, {}, ctx(0)), { type: 'conflict', reason: 'NotOwned' })
  t.match(planObject(d, foreign, {}, ctx(0)), { holder: { kind: 'none' } })
  const other = structuredClone(foreign)
  other.metadata.labels = { [LABEL_INSTANCE_UID]: 'uid-other' }
  t.match(planObject(d, other, {}, ctx(0)), { type: 'conflict', reason: 'NotOwned', holder: { kind: 'instance', uid: 'uid-other' } })
  const adoptable = structuredClone(foreign)
  adoptable.metadata.annotations = { [ANNOTATION_INSTANCE_REF]: 'team-a/app' }
  t.match(planObject(d, adoptable, {}, ctx(0)), { type: 'check', dryRun: true, adopting: { kind: 'annotation' } })
  other.metadata.annotations = { [ANNOTATION_INSTANCE_REF]: 'team-a/app' }
  t.match(planObject(d, other, {}, ctx(0)), { type: 'conflict' }, 'another instance keeps its object even when annotated for us')
})

t.test('release: a rendered object someone is deleting is let go, not applied', async (t) => {
  const obj = rendered({ color: 'blue' })
  const v1 = pass(obj, undefined, {}, 0)
  const going = structuredClone(v1.live as IdentifiedObject)
  going.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'
  const r = pass(obj, going, v1.memory, 1000)
  t.equal(r.action.type, 'release')
  t.same(r.memory, v1.memory, 'nothing is forgotten')
})

t.test('prune: owned objects the render no longer names', async (t) => {
  const keep = serverView(rendered({}, 'keep'))
  const gone = serverView(rendered({}, 'gone'))
  const actions = pruneActions([keep, gone], new Set([desiredObject(rendered({}, 'keep')).key]))
  t.same(
    actions.map((a) => [a.type, a.key]),
    [['prune', objectKey({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'gone' })]],
  )
  t.equal(actions[0]?.live, gone)
})

t.test('ignored fields are sent as they are live and their drift is not corrected', async (t) => {
  const ignore = compileIgnoreFields(['data.replicas'])
  const obj = rendered({ color: 'blue', replicas: '2' })
  const v1 = pass(obj, undefined, {}, 0, ignore)
  const scaled = edited(v1.live as IdentifiedObject, { replicas: '5' }, 'autoscaler')
  const quiet = pass(obj, scaled, v1.memory, 1000, ignore)
  t.equal(quiet.action.type, 'unchanged', 'a change in an ignored field is no drift')
  const both = edited(scaled, { color: 'red' })
  const r = pass(obj, both, v1.memory, 20_000, ignore)
  t.equal(r.action.type, 'correct')
  t.same(r.action.type === 'correct' && r.action.changes.map((c) => c.path), ['data.color'])
  t.equal(
    r.action.type === 'correct' && (r.action.intent.data as Record<string, string>).replicas,
    '5',
    'the live value of the ignored field is kept',
  )
})

t.test('settle refuses a check that needs a dry-run without one', async (t) => {
  const look = planObject(desiredObject(rendered({ color: 'blue' })), undefined, {}, ctx(0))
  t.equal(look.type, 'check')
  t.throws(() => settle(look as Check, {}, undefined, ctx(0)), /settled without its dry-run/)
})

t.test('fight: quick re-drifts back off, are reported from the threshold on, never stop, and end when a correction holds', async (t) => {
  const obj = rendered({ color: 'blue' })
  let s = pass(obj, undefined, {}, 0)
  s = pass(obj, edited(s.live as IdentifiedObject, { color: 'red' }, 'fighter'), s.memory, 20_000)
  t.equal(s.action.type, 'correct', 'the first drift is corrected at once')
  let now = 20_000
  const corrections: number[] = [now]
  const notices: string[] = []
  let dryRunsWhileWaiting = 0
  // The fighter re-applies its value 100 ms after every correction; the reconciler looks every 100 ms.
  let live = edited(s.live as IdentifiedObject, { color: 'red' }, 'fighter')
  for (now += 100; now < 40_000; now += 100) {
    const r = pass(obj, live, s.memory, now)
    for (const step of r.steps) if (step?.notice) notices.push(`${step.notice.kind}@${now}`)
    if (r.action.type === 'wait') {
      if (r.dryRunAsked) dryRunsWhileWaiting++
      t.ok(r.action.waitMs > 0)
    }
    if (r.action.type === 'correct') {
      corrections.push(now)
      live = edited(r.live as IdentifiedObject, { color: 'red' }, 'fighter')
    }
    s = r
  }
  // The fighter writes once after each correction and then waits: from the
  // fourth correction on, the quiet period after its write (3 s) ends the wait
  // before the backoff (4 s, then the 8 s cap) does.
  t.same(
    corrections.map((c, i) => (i === 0 ? 0 : c - (corrections[i - 1] ?? 0))),
    [0, 500, 1000, 2000, 3100, 3100, 3100, 3100, 3100],
    'waits of 0.5 s doubling from each correction, or until 3 s after the write',
  )
  t.equal(dryRunsWhileWaiting, 0, 'a correction waiting out its backoff is not even dry-run')
  t.equal(notices.filter((n) => n.startsWith('conflict')).length, 1, 'the fight is reported once')
  t.ok(notices.includes(`conflict@${corrections[2]! + 100}`), 'from the third quick re-drift on')
  t.ok(
    notices.some((n) => n.startsWith('resumed')),
    'corrections after a wait say so',
  )
  t.match(s.memory.fight, { conflict: { manager: 'fighter' } }, 'the fighter is named')

  // The fighter stops: the next correction holds; after the window the fight is over.
  const due = corrections[corrections.length - 1]! + 3_100
  const last = pass(obj, live, s.memory, due)
  t.equal(last.action.type, 'correct', 'the rendered state is applied again when the wait is over')
  const calm = pass(obj, last.live, last.memory, due + 5_000)
  t.equal(calm.action.type, 'unchanged')
  t.equal(calm.steps[0]?.recheckMs, 5_000, 'looked at again when the window ends')
  const over = pass(obj, last.live, calm.memory, due + 10_000)
  t.equal(over.steps[0]?.notice?.kind, 'ended')
  t.equal(over.memory.fight, undefined, 'the streak is forgotten')
  const edit = pass(obj, edited(last.live as IdentifiedObject, { color: 'red' }, 'kubectl-edit'), over.memory, due + 30_000)
  t.equal(edit.action.type, 'correct', 'an ordinary edit afterwards is corrected at once again')
})

t.test('a correction waiting: a new write starts the quiet period over, a status update or the same object again does not', async (t) => {
  const obj = rendered({ color: 'blue' })
  const longFight: FightOptions = { ...fight, backoffMaxMs: 60_000 }
  const at = (now: number): PlanContext => ({ ...ctx(now), fight: longFight })
  let memory = pass(obj, undefined, {}, 0).memory
  let live = serverView(obj)
  // A long fight: the backoff has grown to the cap.
  memory = {
    ...memory,
    fight: { streak: 9, correctedAt: 10_000, driftSince: undefined, calmSince: 10_000, lastWrite: undefined, conflict: undefined },
  }
  live = edited(live, { color: 'red' })
  const check = planObject(desiredObject(obj), live, memory, at(10_100))
  t.equal(check.type, 'check', 'a re-drift is looked at first')
  const first = settle(check as Check, memory, undefined, at(10_100))
  t.match(first, { type: 'wait', waitMs: 3000 }, 'due when the object has been quiet for 3 s')
  memory = remember(memory, first, undefined, 10_100, longFight).memory
  const statusOnly = { ...structuredClone(live), status: { seen: true }, metadata: { ...live.metadata, resourceVersion: 'x1' } }
  t.match(planObject(desiredObject(obj), statusOnly, memory, at(12_000)), { type: 'wait', waitMs: 1100 }, 'a status update is no write')
  live = edited(live, { color: 'green' })
  const again = planObject(desiredObject(obj), live, memory, at(12_000))
  t.match(again, { type: 'wait', waitMs: 3000 }, 'written again: the quiet period starts over')
  memory = remember(memory, again as ObjectAction, undefined, 12_000, longFight).memory
  t.match(planObject(desiredObject(obj), live, memory, at(14_999)), { type: 'wait', waitMs: 1 })
  const due = planObject(desiredObject(obj), live, memory, at(15_000))
  t.equal(due.type, 'check', 'quiet for 3 s: the correction is due')
  t.equal(settle(due as Check, memory, undefined, at(15_000)).type, 'correct')
})

t.test('a new render during a fight is applied at once and ends the fight state', async (t) => {
  const obj = rendered({ color: 'blue' })
  let s = pass(obj, undefined, {}, 0)
  s = pass(obj, edited(s.live as IdentifiedObject, { color: 'red' }), s.memory, 20_000)
  s = pass(obj, edited(s.live as IdentifiedObject, { color: 'red' }), s.memory, 20_100)
  t.equal(s.action.type, 'wait', 'a quick re-drift waits')
  const next = pass(rendered({ color: 'green' }), s.live, s.memory, 20_200)
  t.equal(next.action.type, 'update')
  t.equal(next.memory.fight, undefined)
})

t.test('a failed apply keeps the last apply and the drift step', async (t) => {
  const obj = rendered({ color: 'blue' })
  const v1 = pass(obj, undefined, {}, 0)
  const look = planObject(desiredObject(obj), edited(v1.live as IdentifiedObject, { color: 'red' }), v1.memory, ctx(20_000))
  const action = settle(look as Check, v1.memory, undefined, ctx(20_000))
  t.equal(action.type, 'correct')
  const kept = remember(v1.memory, action, undefined, 20_000, fight)
  t.equal(kept.memory.applied, v1.memory.applied)
  t.equal(kept.corrected, undefined)
  const created = remember({}, { type: 'create', desired: desiredObject(obj), intent: obj }, undefined, 0, fight)
  t.same(created.memory, {}, 'a failed create remembers nothing')
})

t.test('the remembered apply keeps what compare reads, the generation and the resourceVersion, not managedFields or status', async (t) => {
  const obj = rendered({ color: 'blue' })
  const created = pass(obj, undefined, {}, 0)
  const result = created.memory.applied?.result
  t.ok(result)
  t.same(result?.data, { color: 'blue' })
  t.same(result?.metadata.labels, obj.metadata.labels)
  t.notOk('managedFields' in (result?.metadata ?? {}), 'no managedFields')
  t.equal(result?.metadata.resourceVersion, created.live?.metadata.resourceVersion, "the apply's resourceVersion, to tell a lagging cache")
  t.notOk('uid' in (result?.metadata ?? {}), 'no uid')
  // A result with a generation and a status, as a Deployment's apply returns.
  const live = { ...serverView(obj), status: { ready: 1 } } as IdentifiedObject
  live.metadata.generation = 4
  const checked = remember(
    {},
    { type: 'unchanged', desired: desiredObject(obj), fight: { state: undefined }, checked: live } as ObjectAction,
    undefined,
    0,
    fight,
  )
  t.equal(checked.memory.applied?.result.metadata.generation, 4, 'the generation status.resources reports')
  t.notOk('status' in (checked.memory.applied?.result ?? {}), 'no status')
  // The next pass over the unchanged live object still needs no request.
  const again = pass(obj, created.live, created.memory, 1000)
  t.equal(again.action.type, 'unchanged')
  t.notOk(again.dryRunAsked)
})

t.test("an unchanged pass shares the cached live object's parts only when they hold what was applied", async (t) => {
  const obj = rendered({ color: 'blue', size: 'L' })
  const created = pass(obj, undefined, {}, 0)
  const result = created.memory.applied?.result
  if (result) result.metadata.generation = 2
  // The drift watch's copy of our apply: equal content, other objects.
  const cached = Object.freeze(structuredClone(created.live)) as IdentifiedObject
  const seen = pass(obj, cached, created.memory, 1000)
  t.equal(seen.action.type, 'unchanged')
  t.equal(seen.memory.applied?.result.data, cached.data, "data is the cached object's")
  t.equal(seen.memory.applied?.result.metadata.labels, cached.metadata.labels)
  t.equal(seen.memory.applied?.result.metadata.generation, 2, 'the generation of our apply stays')
  t.equal(pass(obj, cached, seen.memory, 2000).memory.applied, seen.memory.applied, 'shared once, then kept as it is')
  // Equal only because of an ignore rule: the memory keeps what was applied, so a later Template without the rule still sees the drift.
  const ignoreSize = compileIgnoreFields(['data.size'])
  const resized = edited(created.live as IdentifiedObject, { size: 'XL' })
  const underRule = pass(obj, resized, created.memory, 3000, ignoreSize)
  t.equal(underRule.action.type, 'unchanged')
  t.equal(underRule.memory.applied, created.memory.applied, 'not rebased on a live object that differs in an ignored field')
  const withoutRule = pass(obj, resized, underRule.memory, 4000)
  t.not(withoutRule.action.type, 'unchanged', 'the drift in data.size is seen once nothing ignores it')
})

/** What the API server holds after our apply of obj, managedFields with the field set (as a GET or the drift cache has it). */
function appliedLive(obj: IdentifiedObject): IdentifiedObject {
  const out = serverView(obj)
  out.metadata.managedFields = [ourApplyEntry(obj)]
  return out
}

t.test('after a restart (no memory), a live object as our apply leaves it is unchanged without a dry-run, and remembered', async (t) => {
  const obj = rendered({ color: 'blue', size: 'L' })
  const live = Object.freeze(appliedLive(obj)) as IdentifiedObject
  const first = pass(obj, live, {}, 0)
  t.equal(first.action.type, 'unchanged')
  t.notOk(first.dryRunAsked, 'proved locally: no request')
  t.equal(first.action.type === 'unchanged' ? first.action.seen : undefined, live, 'seen: the live object')
  t.equal(first.memory.applied?.desiredHash, desiredObject(obj).hash, 'remembered under this render')
  t.equal(first.memory.applied?.result.data, live.data, "the memory shares the live object's parts")
  t.notOk(first.memory.applied?.result.metadata.managedFields, 'without managedFields')
  const again = pass(obj, live, first.memory, 1000)
  t.equal(again.action.type, 'unchanged')
  t.equal(again.memory.applied, first.memory.applied, 'the next pass answers from memory')
})

t.test('after a restart, drift or a dropped field still goes through the dry-run', async (t) => {
  const obj = rendered({ color: 'blue' })
  const drifted = appliedLive(obj)
  drifted.data = { color: 'red' }
  const look = planObject(desiredObject(obj), drifted, {}, ctx(0))
  t.match(look, { type: 'check', dryRun: true }, 'a drifted value: the dry-run judges')
  const r = pass(obj, drifted, {}, 0)
  t.equal(r.action.type, 'update', 'and the apply puts it back')
  t.same(r.action.type === 'update' ? r.action.changes.map((c) => c.path) : [], ['data.color'])

  const before = appliedLive(rendered({ color: 'blue', gone: 'x' }))
  t.match(planObject(desiredObject(obj), before, {}, ctx(0)), { type: 'check', dryRun: true }, 'a key the render dropped')
  const slim = appliedLive(obj)
  slim.metadata.managedFields = [{ manager: 'template-sync', operation: 'Apply', apiVersion: 'v1' }]
  t.match(planObject(desiredObject(obj), slim, {}, ctx(0)), { type: 'check', dryRun: true }, 'no field set to prove it with')
})

t.test('a new render that leaves the object as it is: unchanged without a dry-run, remembered under the new hash', async (t) => {
  const obj = rendered({ color: 'blue' })
  const created = pass(obj, undefined, {}, 0)
  const live = appliedLive(obj)
  // The memory is of an older render (its hash), whose content this object did not change.
  const memory: ObjectMemory = { applied: { desiredHash: 'older', result: created.memory.applied?.result as IdentifiedObject } }
  const r = pass(obj, live, memory, 1000)
  t.equal(r.action.type, 'unchanged')
  t.notOk(r.dryRunAsked)
  t.equal(r.memory.applied?.desiredHash, desiredObject(obj).hash)
})
