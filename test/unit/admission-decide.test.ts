import t from 'tap'
import type { KubeObject } from '../../src/api/meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  LABEL_INSTANCE,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  type SyncMode,
} from '../../src/api/names.ts'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { decide } from '../../src/admission/decide.ts'
import { revertDeleteWarning } from '../../src/admission/messages.ts'
import type { AdmissionLookups, Decision, DecisionReason } from '../../src/admission/decision.ts'
import { GARBAGE_COLLECTOR, NAMESPACE_CONTROLLER } from '../../src/admission/exemptions.ts'
import type { AdmissionRequest, Operation } from '../../src/admission/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { FieldPathError } from '../../src/fieldpath/errors.ts'
import { deepFreeze } from '../../src/kube/freeze.ts'

// ---- fixtures ----------------------------------------------------------------

const OPERATOR = 'system:serviceaccount:template-sync:template-sync'
const USER = 'alice@example.com'
const CONFIG = deepFreeze({ operatorUsernames: [OPERATOR, 'system:serviceaccount:template-sync:reconciler'] })
const INSTANCE_UID = '7f0c1d2e-0000-4000-8000-000000000001'
/** A value that must never appear in any message, warning or annotation. */
const SECRET = 'hunter2-do-not-print'

function anInstance(mutate: (i: TemplateInstance) => void = () => {}): TemplateInstance {
  const i: TemplateInstance = {
    apiVersion: 'templates.v2.stakater.com/v2alpha1',
    kind: 'TemplateInstance',
    metadata: { name: 'app1', namespace: 'team-a', uid: INSTANCE_UID },
    spec: { templateRef: { name: 'web', namespace: 'platform' } },
  }
  mutate(i)
  return i
}

function aTemplate(mode: SyncMode | undefined, ignoreFields?: string[]): Template {
  const spec: Template['spec'] = { gotemplate: 'kind: ConfigMap' }
  if (mode !== undefined || ignoreFields !== undefined) {
    spec.sync = {}
    if (mode !== undefined) spec.sync.mode = mode
    if (ignoreFields !== undefined) spec.sync.ignoreFields = ignoreFields
  }
  return { metadata: { name: 'web', namespace: 'platform', generation: 3 }, spec }
}

function managedConfigMap(mutate: (o: KubeObject & { data: Record<string, string> }) => void = () => {}): KubeObject {
  const o = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'app1-cfg',
      namespace: 'team-a',
      uid: 'cm-uid',
      resourceVersion: '100',
      labels: {
        app: 'web',
        [LABEL_INSTANCE]: 'app1',
        [LABEL_INSTANCE_UID]: INSTANCE_UID,
        [LABEL_INSTANCE_NAME]: 'app1',
        [LABEL_INSTANCE_NAMESPACE]: 'team-a',
        [LABEL_SYNC_MODE]: 'strict',
      },
      annotations: { [ANNOTATION_INSTANCE_REF]: 'team-a/app1', note: 'x' },
    },
    data: { owner: 'alice', password: SECRET, a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' },
  }
  mutate(o)
  return o
}

interface RequestOptions {
  operation?: Operation
  username?: string
  subResource?: string
  dryRun?: boolean
  old?: KubeObject | null
  object?: KubeObject | null
}

function request(o: RequestOptions = {}): AdmissionRequest {
  const operation = o.operation ?? 'UPDATE'
  const old = o.old === undefined ? managedConfigMap() : o.old
  const req: AdmissionRequest = {
    uid: 'req-1',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'app1-cfg',
    namespace: 'team-a',
    operation,
    userInfo: { username: o.username ?? USER, groups: ['system:authenticated'] },
    object: o.object === undefined ? (operation === 'DELETE' ? null : structuredClone(old)) : o.object,
    oldObject: operation === 'CREATE' || operation === 'CONNECT' ? null : old,
  }
  if (o.subResource !== undefined) req.subResource = o.subResource
  if (o.dryRun !== undefined) req.dryRun = o.dryRun
  return req
}

/** An UPDATE of the managed ConfigMap where `edit` changes the new object. */
function update(edit: (o: KubeObject & { data: Record<string, string> }) => void, o: RequestOptions = {}): AdmissionRequest {
  return request({ ...o, operation: 'UPDATE', object: managedConfigMap(edit) })
}

interface World {
  instance?: TemplateInstance | undefined
  template?: Template | undefined
  terminating?: string[]
  scaleTarget?: KubeObject
  /** A rendered Pod in the cache (for evictions and bindings). */
  pod?: KubeObject
  /** Replace getIgnore, e.g. with one that throws. */
  getIgnore?: AdmissionLookups['getIgnore']
}

function lookups(w: World = {}): AdmissionLookups {
  const instance = 'instance' in w ? w.instance : anInstance()
  const template = 'template' in w ? w.template : aTemplate('strict')
  deepFreeze(instance)
  deepFreeze(template)
  deepFreeze(w.scaleTarget)
  deepFreeze(w.pod)
  const base: AdmissionLookups = {
    getInstance: (ns, name) =>
      instance !== undefined && instance.metadata?.namespace === ns && instance.metadata?.name === name ? instance : undefined,
    getTemplate: (ns, name) =>
      template !== undefined && template.metadata?.namespace === ns && template.metadata?.name === name ? template : undefined,
    getIgnore: w.getIgnore ?? ((tpl) => compileIgnoreFields(tpl.spec.sync?.ignoreFields ?? [])),
    isNamespaceTerminating: (name) => (w.terminating ?? []).includes(name),
  }
  if (w.scaleTarget !== undefined) {
    const target = w.scaleTarget
    base.getScaleTarget = (res, ns, name) =>
      res.resource === 'deployments' && ns === target.metadata?.namespace && name === target.metadata?.name ? target : undefined
  }
  if (w.pod !== undefined) {
    const pod = w.pod
    base.getPod = (ns, name) => (ns === pod.metadata?.namespace && name === pod.metadata?.name ? pod : undefined)
  }
  return base
}

/** The assertions judge needs; any tap test satisfies it. */
interface Asserts {
  strictSame(found: unknown, wanted: unknown, message: string): unknown
  notOk(value: unknown, message: string): unknown
}

/** Runs decide on frozen inputs and checks that nothing was modified. */
function judge(t: Asserts, req: AdmissionRequest, look: AdmissionLookups = lookups()): Decision {
  const before = structuredClone(req)
  deepFreeze(req)
  const d = decide(req, look, CONFIG)
  t.strictSame(req, before, 'the request is not modified')
  const text = JSON.stringify(d)
  t.notOk(text.includes(SECRET), 'no field value leaks into the decision')
  return d
}

// ---- the rules, one row each ------------------------------------------------------

interface Case {
  name: string
  req: () => AdmissionRequest
  world?: World
  /** true: the revert warning for a change; a string: that warning exactly. */
  want: { allowed: boolean; reason: DecisionReason; warned?: true | string; paths?: string[] }
}

const changeData = (o: { data: Record<string, string> }): void => {
  o.data.owner = 'mallory'
}

const cases: Case[] = [
  // request exemptions
  {
    name: 'the operator may delete a strict object',
    req: () => request({ operation: 'DELETE', username: OPERATOR }),
    want: { allowed: true, reason: 'OperatorIdentity' },
  },
  {
    name: 'every configured operator username is exempt',
    req: () => update(changeData, { username: 'system:serviceaccount:template-sync:reconciler' }),
    want: { allowed: true, reason: 'OperatorIdentity' },
  },
  {
    name: 'operator usernames match exactly, not by prefix',
    req: () => update(changeData, { username: `${OPERATOR}-impostor` }),
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'CREATE is never guarded (it is the adoption path)',
    req: () => request({ operation: 'CREATE' }),
    want: { allowed: true, reason: 'OperationNotGuarded' },
  },
  {
    name: 'CONNECT is never guarded',
    req: () => request({ operation: 'CONNECT', object: { kind: 'PodExecOptions' } }),
    want: { allowed: true, reason: 'OperationNotGuarded' },
  },
  {
    name: 'a status UPDATE that changes only status is allowed',
    req: () => update((o) => (o.status = { phase: 'x' }), { subResource: 'status' }),
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'a status UPDATE that rewrites instance-ref is denied (the API server keeps metadata changes made through /status)',
    req: () => update((o) => (o.metadata!.annotations![ANNOTATION_INSTANCE_REF] = 'team-a/ghost'), { subResource: 'status' }),
    world: { template: aTemplate('strict', ['metadata.annotations']) },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: [`metadata.annotations['${ANNOTATION_INSTANCE_REF}']`] },
  },
  {
    name: 'a status UPDATE that changes a label outside ignoreFields is denied',
    req: () => update((o) => (o.metadata!.labels!.app = 'other'), { subResource: 'status' }),
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['metadata.labels.app'] },
  },
  {
    name: 'a status UPDATE that changes an ignored annotation is allowed',
    req: () => update((o) => (o.metadata!.annotations!.note = 'y'), { subResource: 'status' }),
    world: { template: aTemplate('strict', ['metadata.annotations']) },
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'an unknown subresource is compared in full',
    req: () => update(changeData, { subResource: 'something-new' }),
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'pods/exec is not guarded even as an UPDATE-shaped request',
    req: () => {
      const req = update(changeData, { subResource: 'exec' })
      req.resource = { group: '', version: 'v1', resource: 'pods' }
      return req
    },
    want: { allowed: true, reason: 'SubresourceNotGuarded' },
  },
  {
    name: 'the namespace controller may delete a strict object',
    req: () => request({ operation: 'DELETE', username: NAMESPACE_CONTROLLER }),
    want: { allowed: true, reason: 'NamespaceController' },
  },
  {
    // template-sync sets no ownerReferences: a GC delete follows one someone else set (docs/security.md).
    name: 'the garbage collector may not delete a strict object',
    req: () => request({ operation: 'DELETE', username: GARBAGE_COLLECTOR }),
    want: { allowed: false, reason: 'ProtectedObjectDeleted' },
  },
  {
    name: 'the garbage collector may delete a strict object whose instance is being deleted',
    req: () => request({ operation: 'DELETE', username: GARBAGE_COLLECTOR }),
    world: { instance: anInstance((i) => (i.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) },
    want: { allowed: true, reason: 'OwnerDeleting' },
  },
  {
    name: 'the garbage collector may drop its finalizer',
    req: () =>
      request({
        username: GARBAGE_COLLECTOR,
        old: managedConfigMap((o) => (o.metadata!.finalizers = ['foregroundDeletion'])),
        object: managedConfigMap(),
      }),
    want: { allowed: true, reason: 'GarbageCollector' },
  },
  {
    name: 'anything goes in a terminating namespace',
    req: () => request({ operation: 'DELETE' }),
    world: { terminating: ['team-a'] },
    want: { allowed: true, reason: 'NamespaceTerminating' },
  },
  {
    name: 'another namespace terminating changes nothing',
    req: () => request({ operation: 'DELETE' }),
    world: { terminating: ['team-b'] },
    want: { allowed: false, reason: 'ProtectedObjectDeleted' },
  },
  {
    name: 'an object already being deleted may lose its finalizers',
    req: () =>
      request({
        old: managedConfigMap((o) => {
          o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'
          o.metadata!.finalizers = ['example.com/cleanup']
        }),
        object: managedConfigMap((o) => (o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')),
      }),
    want: { allowed: true, reason: 'ObjectTerminating' },
  },
  {
    name: 'an object held in Terminating by another finalizer is still guarded outside its finalizers',
    req: () =>
      request({
        old: managedConfigMap((o) => {
          o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'
          o.metadata!.finalizers = ['example.com/cleanup']
        }),
        object: managedConfigMap((o) => {
          o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'
          o.metadata!.finalizers = ['example.com/cleanup']
          changeData(o)
        }),
      }),
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'an object being deleted may change anything while its owner is being deleted too',
    req: () =>
      request({
        old: managedConfigMap((o) => (o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')),
        object: managedConfigMap((o) => {
          o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'
          changeData(o)
        }),
      }),
    world: { instance: anInstance((i) => (i.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) },
    want: { allowed: true, reason: 'OwnerDeleting' },
  },
  {
    name: 'a DELETE of an object already being deleted is still denied',
    req: () => request({ operation: 'DELETE', old: managedConfigMap((o) => (o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) }),
    want: { allowed: false, reason: 'ProtectedObjectDeleted' },
  },
  {
    name: 'a terminating Namespace may lose spec.finalizers through namespaces/finalize',
    req: () => {
      const ns = (fin: string[]): KubeObject => {
        const o = managedConfigMap((c) => (c.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) as KubeObject
        o.kind = 'Namespace'
        delete o.data
        delete o.metadata!.namespace
        o.spec = { finalizers: fin }
        return o
      }
      const req = request({ old: ns(['kubernetes']), object: ns([]), subResource: 'finalize' })
      req.kind = { group: '', version: 'v1', kind: 'Namespace' }
      req.resource = { group: '', version: 'v1', resource: 'namespaces' }
      delete req.namespace
      return req
    },
    want: { allowed: true, reason: 'ObjectTerminating' },
  },
  // ownership
  {
    name: 'an object without instance-ref is not managed',
    req: () => update(changeData, { old: managedConfigMap((o) => delete o.metadata!.annotations![ANNOTATION_INSTANCE_REF]) }),
    want: { allowed: true, reason: 'NotManaged' },
  },
  {
    name: 'ownership is read from the stored object: adding instance-ref in the update does not make it managed',
    req: () =>
      request({
        old: managedConfigMap((o) => delete o.metadata!.annotations),
        object: managedConfigMap(changeData),
      }),
    want: { allowed: true, reason: 'NotManaged' },
  },
  ...['team-a', 'team-a/app1/x', '/app1', 'team-a/', 'Team-A/app1', 'team-a/app 1', ''].map(
    (value): Case => ({
      name: `a malformed instance-ref ${JSON.stringify(value)} is not enforced`,
      req: () => update(changeData, { old: managedConfigMap((o) => (o.metadata!.annotations![ANNOTATION_INSTANCE_REF] = value)) }),
      want: { allowed: true, reason: 'OwnerRefMalformed' },
    }),
  ),
  {
    name: 'a missing owning TemplateInstance allows the request',
    req: () => request({ operation: 'DELETE' }),
    world: { instance: undefined },
    want: { allowed: true, reason: 'OwnerNotFound' },
  },
  {
    name: 'an instance-ref pointing at another instance name finds no owner',
    req: () => update(changeData, { old: managedConfigMap((o) => (o.metadata!.annotations![ANNOTATION_INSTANCE_REF] = 'team-a/other')) }),
    want: { allowed: true, reason: 'OwnerNotFound' },
  },
  {
    name: 'an object without the instance-uid label was never taken over',
    req: () => update(changeData, { old: managedConfigMap((o) => delete o.metadata!.labels![LABEL_INSTANCE_UID]) }),
    want: { allowed: true, reason: 'OwnerUidMissing' },
  },
  {
    name: 'a recreated TemplateInstance with the same name does not enforce over the old one’s object',
    req: () => request({ operation: 'DELETE' }),
    world: { instance: anInstance((i) => (i.metadata!.uid = 'a-newer-uid')) },
    want: { allowed: true, reason: 'OwnerUidMismatch' },
  },
  {
    name: 'DELETE is allowed while the owning TemplateInstance is being deleted',
    req: () => request({ operation: 'DELETE' }),
    world: { instance: anInstance((i) => (i.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) },
    want: { allowed: true, reason: 'OwnerDeleting' },
  },
  {
    name: 'an UPDATE is still judged while the owning TemplateInstance is being deleted',
    req: () => update(changeData),
    world: { instance: anInstance((i) => (i.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z')) },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'a missing Template allows the request',
    req: () => request({ operation: 'DELETE' }),
    world: { template: undefined },
    want: { allowed: true, reason: 'TemplateNotFound' },
  },
  // sync modes
  {
    name: 'mode off allows DELETE',
    req: () => request({ operation: 'DELETE' }),
    world: { template: aTemplate('off') },
    want: { allowed: true, reason: 'SyncOff' },
  },
  {
    name: 'no sync block reads as off',
    req: () => update(changeData),
    world: { template: aTemplate(undefined) },
    want: { allowed: true, reason: 'SyncOff' },
  },
  {
    name: 'the live Template mode decides, not the sync-mode label on the object',
    req: () =>
      request({
        old: managedConfigMap((o) => (o.metadata!.labels![LABEL_SYNC_MODE] = 'off')),
        object: managedConfigMap((o) => {
          o.metadata!.labels![LABEL_SYNC_MODE] = 'off'
          changeData(o)
        }),
      }),
    world: { template: aTemplate('strict') },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'revert allows an UPDATE with a warning',
    req: () => update(changeData),
    world: { template: aTemplate('revert') },
    want: { allowed: true, reason: 'SyncRevert', warned: true, paths: ['data.owner'] },
  },
  {
    name: 'revert allows a DELETE with a warning that the object will be re-created',
    req: () => request({ operation: 'DELETE' }),
    world: { template: aTemplate('revert') },
    want: {
      allowed: true,
      reason: 'SyncRevert',
      warned: 'this object will be re-created by TemplateInstance team-a/app1 right after it is deleted',
    },
  },
  {
    name: 'revert does not warn about a change that will not be reverted',
    req: () => update(changeData),
    world: { template: aTemplate('revert', ['data.owner']) },
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  // strict
  {
    name: 'strict denies DELETE',
    req: () => request({ operation: 'DELETE' }),
    want: { allowed: false, reason: 'ProtectedObjectDeleted' },
  },
  {
    name: 'strict denies an UPDATE outside ignoreFields',
    req: () => update(changeData),
    world: { template: aTemplate('strict', ['metadata.annotations']) },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: ['data.owner'] },
  },
  {
    name: 'strict allows an UPDATE inside ignoreFields',
    req: () => update((o) => (o.metadata!.annotations!.note = 'y')),
    world: { template: aTemplate('strict', ['metadata.annotations']) },
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'strict allows an UPDATE that changes nothing',
    req: () => update(() => {}),
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'strict ignores server-managed fields',
    req: () =>
      update((o) => {
        o.metadata!.resourceVersion = '101'
        o.metadata!.generation = 2
        o.metadata!.managedFields = [{ manager: 'kubectl' }]
        o.status = { x: 1 }
      }),
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'removing an ownership label is denied even with metadata.labels ignored',
    req: () => update((o) => delete o.metadata!.labels![LABEL_INSTANCE_UID]),
    world: { template: aTemplate('strict', ['metadata.labels']) },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: [`metadata.labels['${LABEL_INSTANCE_UID}']`] },
  },
  {
    name: 'removing all labels is denied even with metadata.labels ignored',
    req: () => update((o) => delete o.metadata!.labels),
    world: { template: aTemplate('strict', ['metadata.labels']) },
    want: { allowed: false, reason: 'ProtectedFieldChanged' },
  },
  {
    name: 'other labels stay free with metadata.labels ignored',
    req: () => update((o) => (o.metadata!.labels!.app = 'other')),
    world: { template: aTemplate('strict', ['metadata.labels']) },
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'removing instance-ref is denied even with metadata ignored',
    req: () => update((o) => delete o.metadata!.annotations![ANNOTATION_INSTANCE_REF]),
    world: { template: aTemplate('strict', ['metadata']) },
    want: { allowed: false, reason: 'ProtectedFieldChanged', paths: [`metadata.annotations['${ANNOTATION_INSTANCE_REF}']`] },
  },
  {
    name: 'an invalid ignoreFields list exempts nothing in strict (fail-closed)',
    req: () => update((o) => (o.metadata!.annotations!.note = 'y')),
    world: { template: aTemplate('strict', ['metadata.annotations', 'spec..x']) },
    want: { allowed: false, reason: 'IgnoreFieldsInvalid', paths: ['metadata.annotations.note'] },
  },
  {
    name: 'an invalid ignoreFields list still lets a no-op UPDATE through',
    req: () => update(() => {}),
    world: { template: aTemplate('strict', ['spec..x']) },
    want: { allowed: true, reason: 'NoProtectedChange' },
  },
  {
    name: 'an invalid ignoreFields list under revert still warns',
    req: () => update(changeData),
    world: { template: aTemplate('revert', ['spec..x']) },
    want: { allowed: true, reason: 'SyncRevert', warned: true, paths: ['data.owner'] },
  },
  {
    name: 'an unexpected failure while comparing denies in strict',
    req: () => update(changeData),
    world: {
      getIgnore: () => {
        throw new Error('cache corrupted')
      },
    },
    want: { allowed: false, reason: 'EvaluationFailed' },
  },
  {
    name: 'an unexpected failure while comparing under revert warns and allows',
    req: () => update(changeData),
    world: {
      template: aTemplate('revert'),
      getIgnore: () => {
        throw new Error('cache corrupted')
      },
    },
    want: { allowed: true, reason: 'SyncRevert', warned: true },
  },
  // request shape
  {
    name: 'an UPDATE without oldObject is refused',
    req: () => request({ old: null, object: managedConfigMap() }),
    want: { allowed: false, reason: 'MalformedRequest' },
  },
  {
    name: 'a DELETE without oldObject is refused',
    req: () => request({ operation: 'DELETE', old: null }),
    want: { allowed: false, reason: 'MalformedRequest' },
  },
  {
    name: 'an UPDATE without object is refused',
    req: () => request({ object: null }),
    want: { allowed: false, reason: 'MalformedRequest' },
  },
  {
    name: 'exemptions still apply to an incomplete request',
    req: () => request({ old: null, username: OPERATOR }),
    want: { allowed: true, reason: 'OperatorIdentity' },
  },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    const d = judge(t, c.req(), lookups(c.world))
    t.equal(d.allowed, c.want.allowed, 'allowed')
    t.equal(d.reason, c.want.reason, 'reason')
    if (c.want.warned) {
      const want = c.want.warned === true ? 'this change will be reverted by TemplateInstance team-a/app1' : c.want.warned
      t.strictSame(d.warnings, [want])
    } else {
      t.equal(d.warnings, undefined, 'no warning')
    }
    if (c.want.paths !== undefined) t.strictSame(d.changedPaths, c.want.paths, 'changed paths')
    t.ok(d.message !== undefined && d.message.length > 0, 'says why')
  })
}

// ---- dry-run -----------------------------------------------------------------------

t.test('a dry-run request is judged like a real one', async (t) => {
  for (const [edit, world] of [
    [changeData, {}],
    [(o: KubeObject) => (o.metadata!.annotations!.note = 'y'), { template: aTemplate('strict', ['metadata.annotations']) }],
  ] as const) {
    const real = judge(t, update(edit), lookups(world))
    const dry = judge(t, update(edit, { dryRun: true }), lookups(world))
    t.strictSame(dry, real)
  }
  const realDelete = judge(t, request({ operation: 'DELETE' }))
  const dryDelete = judge(t, request({ operation: 'DELETE', dryRun: true }))
  t.strictSame(dryDelete, realDelete)
  t.equal(dryDelete.allowed, false)
})

// ---- the sync mode a decision was made under ------------------------------------------

t.test('a decision names the sync mode of the Template it was judged by, and none before one is known', async (t) => {
  const rows: { name: string; req: AdmissionRequest; world?: World; mode: SyncMode | undefined }[] = [
    { name: 'strict denial', req: update(changeData), mode: 'strict' },
    { name: 'strict, nothing guarded changed', req: update((o) => (o.status = { phase: 'x' })), mode: 'strict' },
    { name: 'revert warning', req: update(changeData), world: { template: aTemplate('revert') }, mode: 'revert' },
    { name: 'off', req: request({ operation: 'DELETE' }), world: { template: aTemplate('off') }, mode: 'off' },
    { name: 'exempt before ownership is read', req: request({ operation: 'DELETE', username: OPERATOR }), mode: undefined },
    { name: 'CREATE', req: request({ operation: 'CREATE' }), mode: undefined },
  ]
  for (const r of rows) t.equal(judge(t, r.req, lookups(r.world)).mode, r.mode, r.name)
})

// ---- /scale ------------------------------------------------------------------------

function aDeployment(mutate: (d: KubeObject) => void = () => {}): KubeObject {
  const d = managedConfigMap() as KubeObject
  d.apiVersion = 'apps/v1'
  d.kind = 'Deployment'
  d.metadata!.name = 'web'
  d.metadata!.uid = 'deploy-uid'
  delete d.data
  d.spec = { replicas: 2, template: { spec: { containers: [{ name: 'app', image: 'nginx' }] } } }
  mutate(d)
  return d
}

function aScale(replicas: number, uid = 'deploy-uid'): KubeObject {
  // What the API server sends for /scale: no labels, no annotations.
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: 'web', namespace: 'team-a', uid, resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { replicas },
    status: { replicas: 2, selector: 'app=web' },
  }
}

function scaleRequest(from: number, to: number, o: { username?: string; uid?: string } = {}): AdmissionRequest {
  const req = request({ old: aScale(from, o.uid), object: aScale(to, o.uid), subResource: 'scale', username: o.username })
  req.kind = { group: 'autoscaling', version: 'v1', kind: 'Scale' }
  req.resource = { group: 'apps', version: 'v1', resource: 'deployments' }
  req.name = 'web'
  return req
}

t.test('/scale is allowed when spec.replicas is ignored', async (t) => {
  const d = judge(t, scaleRequest(2, 5), lookups({ scaleTarget: aDeployment(), template: aTemplate('strict', ['spec.replicas']) }))
  t.equal(d.allowed, true)
  t.equal(d.reason, 'NoProtectedChange')
})

t.test('/scale is allowed when a parent of spec.replicas is ignored', async (t) => {
  const d = judge(t, scaleRequest(2, 5), lookups({ scaleTarget: aDeployment(), template: aTemplate('strict', ['spec']) }))
  t.equal(d.reason, 'NoProtectedChange')
})

t.test('/scale is denied when spec.replicas is not ignored', async (t) => {
  const d = judge(t, scaleRequest(2, 5), lookups({ scaleTarget: aDeployment(), template: aTemplate('strict', ['metadata.annotations']) }))
  t.equal(d.allowed, false)
  t.equal(d.reason, 'ProtectedFieldChanged')
  t.strictSame(d.changedPaths, ['spec.replicas'])
  t.match(d.message, /^deployments\/scale team-a\/web is managed by TemplateInstance team-a\/app1/)
})

t.test('/scale to the same replica count is allowed', async (t) => {
  const d = judge(t, scaleRequest(2, 2), lookups({ scaleTarget: aDeployment() }))
  t.equal(d.reason, 'NoProtectedChange')
})

t.test('/scale under revert warns', async (t) => {
  const d = judge(t, scaleRequest(2, 5), lookups({ scaleTarget: aDeployment(), template: aTemplate('revert') }))
  t.equal(d.reason, 'SyncRevert')
  t.strictSame(d.warnings, ['this change will be reverted by TemplateInstance team-a/app1'])
})

t.test('/scale of an object the caches do not know is allowed', async (t) => {
  t.equal(judge(t, scaleRequest(2, 5), lookups()).reason, 'ScaleTargetUnknown', 'no scale lookup at all')
  const other = aDeployment((d) => (d.metadata!.name = 'other'))
  t.equal(judge(t, scaleRequest(2, 5), lookups({ scaleTarget: other })).reason, 'ScaleTargetUnknown', 'not in the cache')
})

t.test('/scale ignores a cached target with another UID (recreated object)', async (t) => {
  const d = judge(t, scaleRequest(2, 5, { uid: 'new-uid' }), lookups({ scaleTarget: aDeployment() }))
  t.equal(d.reason, 'ScaleTargetUnknown')
})

t.test('/scale of an unmanaged cached object is not managed', async (t) => {
  const plain = aDeployment((d) => delete d.metadata!.annotations)
  t.equal(judge(t, scaleRequest(2, 5), lookups({ scaleTarget: plain })).reason, 'NotManaged')
})

t.test('/scale by the operator or the HPA identity follows the usual rules', async (t) => {
  t.equal(judge(t, scaleRequest(2, 5, { username: OPERATOR }), lookups({ scaleTarget: aDeployment() })).reason, 'OperatorIdentity')
  const hpa = 'system:serviceaccount:kube-system:horizontal-pod-autoscaler'
  t.equal(judge(t, scaleRequest(2, 5, { username: hpa }), lookups({ scaleTarget: aDeployment() })).allowed, false)
})

// ---- messages ---------------------------------------------------------------------------

t.test('a denial names the instance, the Template, at most 5 paths and what to do', async (t) => {
  const d = judge(
    t,
    update((o) => {
      for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'password']) o.data[k] = 'changed'
    }),
  )
  t.equal(d.allowed, false)
  if (d.allowed) return
  t.equal(
    d.message,
    'ConfigMap team-a/app1-cfg is managed by TemplateInstance team-a/app1 (Template platform/web, sync.mode strict) ' +
      'and this change touches protected fields: data.password, data.a, data.b, data.c, data.d and 2 more. ' +
      'To make it, edit Template platform/web, add the paths to its sync.ignoreFields, or change its sync.mode.',
  )
  t.equal(d.changedPaths?.length, 7, 'every path is kept on the decision')
  t.strictSame(d.auditAnnotations, {
    reason: 'ProtectedFieldChanged',
    instance: 'team-a/app1',
    paths: JSON.stringify(['data.password', 'data.a', 'data.b', 'data.c', 'data.d', 'data.e', 'data.f']),
  })
  t.equal(d.owner, 'team-a/app1')
})

t.test('exactly five paths are listed without "more"', async (t) => {
  const d = judge(
    t,
    update((o) => {
      for (const k of ['a', 'b', 'c', 'd', 'e']) o.data[k] = 'changed'
    }),
  )
  t.match(d.message, /data\.a, data\.b, data\.c, data\.d, data\.e\. To make it/)
  t.notMatch(d.message, /more/)
})

t.test('a DELETE denial says how to remove the object', async (t) => {
  const d = judge(t, request({ operation: 'DELETE' }))
  t.equal(
    d.message,
    'ConfigMap team-a/app1-cfg is managed by TemplateInstance team-a/app1 (Template platform/web, sync.mode strict) ' +
      'and cannot be deleted. To remove it, change Template platform/web so it no longer renders this object, ' +
      "delete TemplateInstance team-a/app1, or change the Template's sync.mode.",
  )
  t.strictSame(d.auditAnnotations, { reason: 'ProtectedObjectDeleted', instance: 'team-a/app1' })
})

t.test('an invalid ignoreFields denial quotes the problem, not the object', async (t) => {
  const d = judge(t, update(changeData), lookups({ template: aTemplate('strict', ['spec..x']) }))
  t.match(d.message, /sync\.ignoreFields is invalid \(ignoreFields\[0\] "spec\.\.x": /)
  t.match(d.message, /Fix sync\.ignoreFields in Template platform\/web/)
})

t.test('audit annotation keys carry no "/" (the API server adds the webhook name)', async (t) => {
  for (const req of [request({ operation: 'DELETE' }), update(changeData)]) {
    const d = judge(t, req)
    for (const key of Object.keys(d.auditAnnotations ?? {})) t.notMatch(key, /\//)
  }
})

t.test('allow decisions carry no audit annotations', async (t) => {
  t.equal(
    judge(
      t,
      update(() => {}),
    ).auditAnnotations,
    undefined,
  )
  t.equal(judge(t, update(changeData), lookups({ template: aTemplate('revert') })).auditAnnotations, undefined)
})

t.test('getIgnore sees the live Template and may throw FieldPathError', async (t) => {
  let seen: Template | undefined
  const template = aTemplate('strict', ['data'])
  const d = judge(
    t,
    update(changeData),
    lookups({
      template,
      getIgnore: (tpl) => {
        seen = tpl
        throw new FieldPathError('data', 0, 'made up', 0)
      },
    }),
  )
  t.equal(seen, template)
  t.equal(d.reason, 'IgnoreFieldsInvalid')
})

// ---- Pods: eviction, binding, ephemeral containers, resize -------------------------------

function aPod(mutate: (p: KubeObject) => void = () => {}): KubeObject {
  const p = managedConfigMap() as KubeObject
  p.kind = 'Pod'
  p.metadata!.name = 'web-0'
  p.metadata!.uid = 'pod-uid'
  delete p.data
  p.spec = { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m' } } }] }
  mutate(p)
  return p
}

function podRequest(subResource: string, operation: Operation, object: KubeObject | null, old: KubeObject | null): AdmissionRequest {
  const req = request({ operation, subResource, object, old })
  req.kind = { group: '', version: 'v1', kind: object?.kind ?? 'Pod' }
  req.resource = { group: '', version: 'v1', resource: 'pods' }
  req.name = 'web-0'
  return req
}

const eviction = (): AdmissionRequest =>
  podRequest('eviction', 'CREATE', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'team-a' } }, null)

const binding = (annotations?: Record<string, string>): AdmissionRequest =>
  podRequest(
    'binding',
    'CREATE',
    {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'web-0', namespace: 'team-a', ...(annotations ? { annotations } : {}) },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
    },
    null,
  )

t.test('pods/eviction of a strict Pod is judged as its DELETE', async (t) => {
  const d = judge(t, eviction(), lookups({ pod: aPod() }))
  t.equal(d.allowed, false)
  t.equal(d.reason, 'ProtectedObjectDeleted')
  t.match(d.message, /^pods\/eviction team-a\/web-0 is managed by TemplateInstance team-a\/app1 .* and cannot be deleted/)
})

t.test('pods/eviction follows the DELETE rules: revert warns, owner deleting allows, unmanaged or uncached allows', async (t) => {
  const revert = judge(t, eviction(), lookups({ pod: aPod(), template: aTemplate('revert') }))
  t.equal(revert.reason, 'SyncRevert')
  t.strictSame(revert.warnings, [revertDeleteWarning('team-a/app1')], 'the warning of a DELETE: the Pod comes back')
  const deleting = anInstance((i) => (i.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z'))
  t.equal(judge(t, eviction(), lookups({ pod: aPod(), instance: deleting })).reason, 'OwnerDeleting')
  t.equal(judge(t, eviction(), lookups({ pod: aPod((p) => delete p.metadata!.annotations) })).reason, 'NotManaged')
  t.equal(judge(t, eviction(), lookups()).reason, 'PodNotCached', 'no Pod lookup at all')
  t.equal(judge(t, eviction(), lookups({ pod: aPod((p) => (p.metadata!.name = 'other')) })).reason, 'PodNotCached')
  t.equal(judge(t, eviction(), lookups({ pod: aPod(), template: aTemplate('off') })).reason, 'SyncOff')
})

t.test('pods/binding is judged on the annotations it copies onto the Pod', async (t) => {
  const pod = aPod()
  t.equal(judge(t, binding(), lookups({ pod })).reason, 'NoProtectedChange', 'the scheduler binds without annotations')
  const hijack = judge(
    t,
    binding({ [ANNOTATION_INSTANCE_REF]: 'team-a/ghost' }),
    lookups({ pod, template: aTemplate('strict', ['metadata']) }),
  )
  t.equal(hijack.allowed, false, 'rewriting instance-ref through a Binding is denied, whatever ignoreFields says')
  t.strictSame(hijack.changedPaths, [`metadata.annotations['${ANNOTATION_INSTANCE_REF}']`])
  const added = judge(t, binding({ 'example.com/x': 'y' }), lookups({ pod }))
  t.equal(added.reason, 'ProtectedFieldChanged')
  t.strictSame(added.changedPaths, [`metadata.annotations['example.com/x']`])
  t.equal(
    judge(t, binding({ 'example.com/x': 'y' }), lookups({ pod, template: aTemplate('strict', ['metadata.annotations']) })).reason,
    'NoProtectedChange',
    'an annotation inside ignoreFields may be set',
  )
  t.equal(judge(t, binding({ note: 'x' }), lookups({ pod })).reason, 'NoProtectedChange', 'the same value is no change')
  t.equal(judge(t, binding({ a: 'b' }), lookups()).reason, 'PodNotCached')
})

t.test('the older bindings resource is judged like pods/binding', async (t) => {
  const req = binding({ [ANNOTATION_INSTANCE_REF]: 'team-a/ghost' })
  delete req.subResource
  req.resource = { group: '', version: 'v1', resource: 'bindings' }
  t.equal(judge(t, req, lookups({ pod: aPod() })).reason, 'ProtectedFieldChanged')
})

t.test('a binding without its Binding object cannot be judged', async (t) => {
  t.equal(judge(t, podRequest('binding', 'CREATE', null, null), lookups({ pod: aPod() })).reason, 'MalformedRequest')
})

t.test('pods/ephemeralcontainers and pods/resize are judged like UPDATEs of the Pod', async (t) => {
  const debug = aPod((p) => ((p.spec as Record<string, unknown>).ephemeralContainers = [{ name: 'dbg', image: 'busybox' }]))
  const eph = judge(t, podRequest('ephemeralcontainers', 'UPDATE', debug, aPod()))
  t.equal(eph.reason, 'ProtectedFieldChanged')
  t.strictSame(eph.changedPaths, ['spec.ephemeralContainers'])
  const bigger = aPod((p) => ((p.spec as { containers: { resources: unknown }[] }).containers[0]!.resources = { requests: { cpu: '2' } }))
  const resize = judge(t, podRequest('resize', 'UPDATE', bigger, aPod()))
  t.equal(resize.reason, 'ProtectedFieldChanged')
  t.strictSame(resize.changedPaths, ['spec.containers[0].resources.requests.cpu'])
  t.equal(
    judge(t, podRequest('resize', 'UPDATE', bigger, aPod()), lookups({ template: aTemplate('strict', ['spec.containers[*].resources']) }))
      .reason,
    'NoProtectedChange',
  )
})

// ---- bounded comparison ----------------------------------------------------------------

t.test('the comparison stops after the paths a decision reports', async (t) => {
  const d = judge(
    t,
    update((o) => {
      for (let i = 0; i < 500; i++) o.data[`k${i}`] = 'x'
    }),
  )
  t.equal(d.allowed, false)
  t.equal(d.changedPaths?.length, 20, 'twenty paths kept')
  t.equal(d.morePaths, true, 'and the decision says there are more')
  t.match(d.message, /data\.k0, data\.k1, data\.k2, data\.k3, data\.k4 and at least 16 more\. To make it/)
  t.equal(JSON.parse(d.auditAnnotations?.paths ?? '[]').length, 20)
  const few = judge(
    t,
    update((o) => {
      for (let i = 0; i < 20; i++) o.data[`k${i}`] = 'x'
    }),
  )
  t.equal(few.changedPaths?.length, 20)
  t.equal(few.morePaths, undefined, 'exactly twenty: nothing more')
  t.match(few.message, /and 15 more\./)
})
