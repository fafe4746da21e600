import t from 'tap'
import {
  boundMessage,
  deriveInstancePhase,
  deriveReadyCondition,
  deriveTemplatePhase,
  findCondition,
  GATING_CONDITIONS,
  InstanceConditionType,
  Reason,
  REASONS_BY_CONDITION,
  removeCondition,
  sameTemplateValidity,
  setCondition,
  templateInvalidity,
  type TemplateForReady,
  TemplateConditionType,
  toTimestamp,
} from '../../src/api/conditions.ts'
import type { Condition, ConditionStatus } from '../../src/api/meta.ts'
import { LIMITS } from '../../src/api/schema.ts'
import { deepFreeze } from '../../src/kube/freeze.ts'

const T0 = new Date('2026-03-01T10:00:00.123Z')
const T1 = new Date('2026-03-01T11:30:00.999Z')

function cond(type: string, status: ConditionStatus, reason = 'Success', extra: Partial<Condition> = {}): Condition {
  return { type, status, reason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z', ...extra }
}

t.test('timestamps have whole seconds, UTC', async (t) => {
  t.equal(toTimestamp(T0), '2026-03-01T10:00:00Z')
})

t.test('setCondition appends a new condition stamped now', async (t) => {
  const list = deepFreeze([cond('Rendered', 'True')])
  const next = setCondition(list, { type: 'Applied', status: 'True', reason: 'Success', observedGeneration: 4 }, T0)
  t.strictSame(next, [
    cond('Rendered', 'True'),
    { type: 'Applied', status: 'True', reason: 'Success', message: '', lastTransitionTime: '2026-03-01T10:00:00Z', observedGeneration: 4 },
  ])
  t.equal(list.length, 1, 'input untouched')
})

t.test('setCondition on undefined starts a list', async (t) => {
  t.strictSame(setCondition(undefined, { type: 'Ready', status: 'Unknown', reason: 'Pending', message: 'm' }, T0), [
    { type: 'Ready', status: 'Unknown', reason: 'Pending', message: 'm', lastTransitionTime: '2026-03-01T10:00:00Z' },
  ])
})

t.test('same status keeps lastTransitionTime while reason and message change', async (t) => {
  const list = deepFreeze([cond('Applied', 'False', 'ApplyFailed', { message: 'a' })])
  const next = setCondition(list, { type: 'Applied', status: 'False', reason: 'OwnershipConflict', message: 'b' }, T1)
  t.strictSame(next, [cond('Applied', 'False', 'OwnershipConflict', { message: 'b' })])
})

t.test('a status change moves lastTransitionTime and keeps the position', async (t) => {
  const list = deepFreeze([cond('A', 'True'), cond('Applied', 'False', 'ApplyFailed'), cond('B', 'True')])
  const next = setCondition(list, { type: 'Applied', status: 'True', reason: 'Success' }, T1)
  t.strictSame(
    next.map((c) => [c.type, c.status, c.lastTransitionTime]),
    [
      ['A', 'True', '2026-01-01T00:00:00Z'],
      ['Applied', 'True', '2026-03-01T11:30:00Z'],
      ['B', 'True', '2026-01-01T00:00:00Z'],
    ],
  )
})

t.test('an identical update returns the very same list (no write needed)', async (t) => {
  const list = deepFreeze([cond('Applied', 'True', 'Success', { message: 'ok', observedGeneration: 2 })])
  t.equal(setCondition(list, { type: 'Applied', status: 'True', reason: 'Success', message: 'ok', observedGeneration: 2 }, T1), list)
  t.equal(
    setCondition(list, { type: 'Applied', status: 'True', reason: 'Success', message: 'ok' }, T1),
    list,
    'generation kept when omitted',
  )
  t.not(setCondition(list, { type: 'Applied', status: 'True', reason: 'Success', message: 'ok', observedGeneration: 3 }, T1), list)
})

t.test('phase is Failed iff a gating condition is False', async (t) => {
  const allTrue = GATING_CONDITIONS.map((type) => cond(type, 'True'))
  t.equal(deriveInstancePhase(allTrue), 'Ready')
  t.equal(deriveInstancePhase([]), 'Ready', 'nothing failed yet')
  t.equal(deriveInstancePhase(undefined), 'Ready')
  for (const gate of GATING_CONDITIONS) {
    const list = allTrue.map((c) => (c.type === gate ? cond(gate, 'False', 'X') : c))
    t.equal(deriveInstancePhase(list), 'Failed', `${gate}=False fails`)
    const unknown = allTrue.map((c) => (c.type === gate ? cond(gate, 'Unknown', 'X') : c))
    t.equal(deriveInstancePhase(unknown), 'Ready', `${gate}=Unknown does not fail`)
  }
  for (const other of [InstanceConditionType.OutputsResolved, InstanceConditionType.Synced, InstanceConditionType.Ready]) {
    t.equal(deriveInstancePhase([...allTrue, cond(other, 'False', 'X')]), 'Ready', `${other}=False never fails`)
  }
  t.strictSame(GATING_CONDITIONS, ['TemplateResolved', 'TargetNamespaceAllowed', 'ParametersValid', 'Rendered', 'Applied'])
})

t.test('Ready copies the first failing gate, in reconcile order', async (t) => {
  const list = [
    cond('Applied', 'False', 'ApplyFailed', { message: 'apply' }),
    cond('ParametersValid', 'False', 'InvalidParameter', { message: 'params' }),
    cond('TemplateResolved', 'True'),
  ]
  t.strictSame(deriveReadyCondition(list), { type: 'Ready', status: 'False', reason: 'InvalidParameter', message: 'params' })
  t.strictSame(deriveReadyCondition(GATING_CONDITIONS.map((type) => cond(type, 'True'))), {
    type: 'Ready',
    status: 'True',
    reason: 'Reconciled',
    message: '',
  })
  t.match(deriveReadyCondition([cond('TemplateResolved', 'True')]), {
    status: 'Unknown',
    reason: 'Pending',
    message: /TargetNamespaceAllowed/,
  })
})

const ALL_GATES_TRUE = GATING_CONDITIONS.map((type) => cond(type, 'True'))

function aTemplate(valid?: Condition, generation = 3): TemplateForReady {
  return { metadata: { namespace: 'platform', name: 'web', generation }, status: valid ? { conditions: [valid] } : {} }
}

t.test('Ready is False while another writer fights over an object (Synced=False/DriftConflict)', async (t) => {
  const list = [...ALL_GATES_TRUE, cond('Synced', 'False', 'DriftConflict', { message: 'field manager "hpa" keeps changing x' })]
  t.strictSame(deriveReadyCondition(list), {
    type: 'Ready',
    status: 'False',
    reason: 'DriftConflict',
    message: 'field manager "hpa" keeps changing x',
  })
  t.equal(deriveInstancePhase(list), 'Ready', 'phase follows the gates only, as the v2 API defines it')
})

t.test('Ready is False while a drift watch cannot run (Synced=False/WatchFailed)', async (t) => {
  t.match(deriveReadyCondition([...ALL_GATES_TRUE, cond('Synced', 'False', 'WatchFailed', { message: 'forbidden' })]), {
    status: 'False',
    reason: 'WatchFailed',
    message: 'forbidden',
  })
})

t.test('Synced states that are normal keep Ready=True', async (t) => {
  for (const [status, reason] of [
    ['False', 'Frozen'],
    ['False', 'SyncPending'],
    ['Unknown', 'SyncPending'],
    ['True', 'SyncActive'],
  ] as const) {
    t.equal(deriveReadyCondition([...ALL_GATES_TRUE, cond('Synced', status, reason)]).status, 'True', `Synced=${status}/${reason}`)
  }
})

t.test('Ready is False for an instance of a Template that is Valid=False', async (t) => {
  const invalid = cond('Valid', 'False', 'ValidationFailed', {
    message: 'sync.ignoreFields[0]: unexpected "]" at 5',
    observedGeneration: 3,
  })
  t.strictSame(deriveReadyCondition(ALL_GATES_TRUE, aTemplate(invalid)), {
    type: 'Ready',
    status: 'False',
    reason: 'TemplateInvalid',
    message: 'Template platform/web is Valid=False/ValidationFailed: sync.ignoreFields[0]: unexpected "]" at 5',
  })
  t.match(deriveReadyCondition(ALL_GATES_TRUE, aTemplate(cond('Valid', 'False', 'SpecInvalid'))), {
    reason: 'TemplateInvalid',
    message: 'Template platform/web is Valid=False/SpecInvalid',
  })
})

t.test('a failing gate of the instance comes before the Template and Synced', async (t) => {
  const list = ALL_GATES_TRUE.map((c) => (c.type === 'Rendered' ? cond('Rendered', 'False', 'TemplateExecutionFailed') : c))
  const both = [...list, cond('Synced', 'False', 'DriftConflict')]
  t.equal(deriveReadyCondition(both, aTemplate(cond('Valid', 'False', 'ValidationFailed'))).reason, 'TemplateExecutionFailed')
  t.equal(
    deriveReadyCondition(
      [...ALL_GATES_TRUE, cond('Synced', 'False', 'DriftConflict')],
      aTemplate(cond('Valid', 'False', 'ValidationFailed')),
    ).reason,
    'TemplateInvalid',
    'the Template before a fight',
  )
})

t.test('a Valid condition of an older Template generation, or a valid Template, does not count', async (t) => {
  const stale = cond('Valid', 'False', 'ValidationFailed', { observedGeneration: 2 })
  t.equal(templateInvalidity(aTemplate(stale, 3)), undefined, 'judged at generation 2, spec is at 3')
  t.equal(deriveReadyCondition(ALL_GATES_TRUE, aTemplate(stale, 3)).status, 'True')
  t.equal(deriveReadyCondition(ALL_GATES_TRUE, aTemplate(cond('Valid', 'True', 'ValidationSucceeded'))).status, 'True')
  t.equal(deriveReadyCondition(ALL_GATES_TRUE, aTemplate()).status, 'True', 'not validated yet')
  t.equal(deriveReadyCondition(ALL_GATES_TRUE, undefined).status, 'True', 'Template unknown to the caller')
})

t.test('sameTemplateValidity tells when instances must re-derive Ready', async (t) => {
  const invalid = aTemplate(cond('Valid', 'False', 'ValidationFailed', { message: 'a' }))
  t.ok(sameTemplateValidity(aTemplate(), aTemplate(cond('Valid', 'True', 'ValidationSucceeded'))), 'unknown and valid are alike')
  t.notOk(sameTemplateValidity(aTemplate(cond('Valid', 'True', 'ValidationSucceeded')), invalid), 'valid -> invalid')
  t.notOk(sameTemplateValidity(invalid, aTemplate(cond('Valid', 'False', 'ValidationFailed', { message: 'b' }))), 'another problem')
  t.ok(sameTemplateValidity(invalid, structuredClone(invalid)))
})

t.test('Template phase: spec errors, then source errors, else Valid', async (t) => {
  t.equal(deriveTemplatePhase([cond('Valid', 'True', 'ValidationSucceeded')]), 'Valid')
  t.equal(deriveTemplatePhase([cond('Valid', 'False', 'SpecInvalid')]), 'Invalid')
  t.equal(deriveTemplatePhase([cond('DryRunRendered', 'False', 'RenderFailed')]), 'Invalid')
  t.equal(deriveTemplatePhase([cond('DryRunRendered', 'False', 'DryRunSkipped')]), 'Valid', 'a skipped dry run is informational')
  t.equal(deriveTemplatePhase([cond('SourceAccessible', 'False', 'RepositoryUnreachable')]), 'Error')
  t.equal(
    deriveTemplatePhase([cond('SourceAccessible', 'False', 'RepositoryUnreachable'), cond('Valid', 'False', 'ValidationFailed')]),
    'Invalid',
  )
  t.equal(deriveTemplatePhase([cond('Deleting', 'False', 'DeletionBlocked')]), 'Valid')
})

t.test('findCondition', async (t) => {
  t.equal(findCondition(undefined, 'Ready'), undefined)
  t.match(findCondition([cond('Ready', 'True')], 'Ready'), { status: 'True' })
})

t.test('every documented reason exists and each constant equals its name', async (t) => {
  const documented = [
    'Success',
    'TemplateNotFound',
    'NamespaceNotPermitted',
    'AllParametersResolved',
    'InvalidParameter',
    'OverrideNotAllowed',
    'ParameterResolutionFailed',
    'TemplateExecutionFailed',
    'ApplyFailed',
    'OwnershipConflict',
    'DryRunFailed',
    'SyncActive',
    'Frozen',
    'DriftConflict',
    'WatchFailed',
    'Reconciled',
    'ValidationFailed',
    'ValidationSucceeded',
    'SpecInvalid',
    'RenderFailed',
    'RenderSucceeded',
    'DryRunSkipped',
    'DeletionBlocked',
    'RepositoryReachable',
    'RepositoryUnreachable',
  ]
  const values = Object.values(Reason) as string[]
  for (const r of documented) t.ok(values.includes(r), r)
  for (const [k, v] of Object.entries(Reason)) t.equal(k, v)
  for (const [k, v] of Object.entries(TemplateConditionType)) t.equal(k, v)
  for (const [k, v] of Object.entries(InstanceConditionType)) t.equal(k, v)
})

t.test('every reason belongs to a condition type, and every condition type has reasons', async (t) => {
  const types = [...Object.values(TemplateConditionType), ...Object.values(InstanceConditionType)].sort()
  t.strictSame(Object.keys(REASONS_BY_CONDITION).sort(), types)
  const used = new Set(Object.values(REASONS_BY_CONDITION).flat())
  for (const r of Object.values(Reason)) t.ok(used.has(r), `${r} is used by some condition`)
  // Ready=False copies the failing gate's reason; those come from the gating lists.
  for (const gate of GATING_CONDITIONS) t.ok(REASONS_BY_CONDITION[gate].length > 1, `${gate} has a failure reason`)
})

t.test('every reason matches the metav1.Condition reason pattern', async (t) => {
  for (const r of Object.values(Reason)) t.match(r, /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
})

t.test('removeCondition drops one type and returns the input itself when it has none', async (t) => {
  const list = deepFreeze([cond('Valid', 'True'), cond('SourceAccessible', 'False', 'RepositoryUnreachable')])
  t.strictSame(removeCondition(list, 'SourceAccessible'), [cond('Valid', 'True')])
  t.equal(removeCondition(list, 'DryRunRendered'), list)
  t.strictSame(removeCondition(undefined, 'Valid'), [])
})

t.test('a condition message over the schema bound is cut, so the status write is not refused for it', async (t) => {
  const now = new Date('2026-01-01T00:00:00Z')
  t.equal(boundMessage('short'), 'short')
  const long = 'é'.repeat(LIMITS.conditionMessage + 10)
  const cut = boundMessage(long)
  t.equal(Array.from(cut).length, LIMITS.conditionMessage)
  t.match(cut, / \.\.\. \(cut: 32778 characters in all\)$/)
  const [c] = setCondition([], { type: 'Applied', status: 'False', reason: 'ApplyFailed', message: long }, now)
  t.equal(c?.message, cut, 'setCondition applies it')
  const exact = 'x'.repeat(LIMITS.conditionMessage)
  t.equal(boundMessage(exact), exact, 'exactly at the bound is kept')
})
