// Strict holds against the instance's own author (docs/security.md): the
// object is judged by the Template that rendered it, an orphan of a strict
// Template stays strict, ownerReferences and finalizers are guarded even when
// metadata is ignored, the garbage collector may not delete a strict object,
// and a write in another apiVersion than the rendered one is compared in full.

import t from 'tap'
import type { KubeObject } from '../../src/api/meta.ts'
import {
  ANNOTATION_INSTANCE_REF,
  ANNOTATION_RENDERED_VERSION,
  ANNOTATION_TEMPLATE_REF,
  LABEL_INSTANCE,
  LABEL_INSTANCE_UID,
  LABEL_SYNC_MODE,
  type SyncMode,
} from '../../src/api/names.ts'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { decide } from '../../src/admission/decide.ts'
import type { AdmissionLookups, Decision } from '../../src/admission/decision.ts'
import { GARBAGE_COLLECTOR } from '../../src/admission/exemptions.ts'
import type { AdmissionRequest } from '../../src/admission/types.ts'
import { compileIgnoreFields } from '../../src/fieldpath/compile.ts'
import { deepFreeze } from '../../src/kube/freeze.ts'

const UID = 'uid-of-app1'
const CONFIG = { operatorUsernames: ['system:serviceaccount:template-sync:reconciler'] }

function template(name: string, mode: SyncMode, ignoreFields: string[] = []): Template {
  return { metadata: { name, namespace: 'platform', generation: 1 }, spec: { gotemplate: 'x', sync: { mode, ignoreFields } } }
}

function instance(templateName: string, uid = UID): TemplateInstance {
  return { metadata: { name: 'app1', namespace: 'team-a', uid }, spec: { templateRef: { name: templateName, namespace: 'platform' } } }
}

interface World {
  readonly instance?: TemplateInstance
  readonly templates: readonly Template[]
}

function lookups(w: World): AdmissionLookups {
  deepFreeze(w)
  return {
    getInstance: (ns, name) => (w.instance?.metadata?.namespace === ns && w.instance.metadata.name === name ? w.instance : undefined),
    getTemplate: (ns, name) => w.templates.find((x) => x.metadata?.namespace === ns && x.metadata?.name === name),
    getIgnore: (tpl) => compileIgnoreFields(tpl.spec.sync?.ignoreFields ?? []),
    isNamespaceTerminating: () => false,
  }
}

/** A rendered ConfigMap as stored; `renderedBy` null: written by a release that did not stamp the Template. */
function stored(renderedBy: string | null = 'platform/strict', extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  const annotations: Record<string, string> = { [ANNOTATION_INSTANCE_REF]: 'team-a/app1' }
  if (renderedBy !== null) {
    annotations[ANNOTATION_TEMPLATE_REF] = renderedBy
    annotations[ANNOTATION_RENDERED_VERSION] = 'v1'
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cfg',
      namespace: 'team-a',
      uid: 'cm',
      labels: { [LABEL_INSTANCE]: 'app1', [LABEL_INSTANCE_UID]: UID, [LABEL_SYNC_MODE]: 'strict' },
      annotations,
      ...extra,
    },
    data: { a: '1' },
  }
}

function update(old: KubeObject, edit: (o: KubeObject & { data: Record<string, string> }) => void, user = 'mallory'): AdmissionRequest {
  const object = structuredClone(old) as KubeObject & { data: Record<string, string> }
  edit(object)
  return {
    uid: 'r',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cfg',
    namespace: 'team-a',
    operation: 'UPDATE',
    userInfo: { username: user },
    object,
    oldObject: old,
  }
}

function remove(old: KubeObject, user = 'mallory'): AdmissionRequest {
  return { ...update(old, () => {}, user), operation: 'DELETE', object: null }
}

const STRICT = template('strict', 'strict')
const OFF = template('off', 'off')
const changeData = (o: { data: Record<string, string> }): void => {
  o.data.a = '2'
}

function judge(req: AdmissionRequest, w: World): Decision {
  return decide(deepFreeze(req), lookups(w), CONFIG)
}

t.test('the Template that rendered the object judges it, not the one the instance names now', async (t) => {
  const toMissing = judge(update(stored(), changeData), { instance: instance('does-not-exist'), templates: [STRICT] })
  t.equal(toMissing.allowed, false, 'templateRef pointed at a missing Template')
  t.equal(toMissing.reason, 'ProtectedFieldChanged')
  t.match(toMissing.message, /Template platform\/strict, sync\.mode strict/)
  const toOff = judge(update(stored(), changeData), { instance: instance('off'), templates: [STRICT, OFF] })
  t.equal(toOff.allowed, false, 'templateRef pointed at an off Template')
  const deleted = judge(remove(stored()), { instance: instance('off'), templates: [STRICT, OFF] })
  t.equal(deleted.reason, 'ProtectedObjectDeleted')
})

t.test('a Template that is really gone lets the object go', async (t) => {
  const d = judge(update(stored(), changeData), { instance: instance('strict'), templates: [] })
  t.equal(d.allowed, true)
  t.equal(d.reason, 'TemplateNotFound')
  t.match(d.message, /Template platform\/strict referenced/)
})

t.test('an object from a release that did not stamp its Template is judged by the instance', async (t) => {
  t.equal(judge(update(stored(null), changeData), { instance: instance('off'), templates: [STRICT, OFF] }).reason, 'SyncOff')
  t.equal(judge(update(stored(null), changeData), { instance: instance('strict'), templates: [STRICT] }).allowed, false)
})

t.test('an orphan of a strict Template stays protected; of any other, it is let go', async (t) => {
  const gone = judge(update(stored(), changeData), { templates: [STRICT] })
  t.equal(gone.allowed, false, 'the instance was deleted without cleanup')
  t.match(
    gone.message,
    /rendered by Template platform\/strict \(sync\.mode strict\) for TemplateInstance team-a\/app1, which no longer exists/,
  )
  const namesake = judge(remove(stored()), { instance: instance('off', 'another-uid'), templates: [STRICT, OFF] })
  t.equal(namesake.allowed, false, 'a namesake instance does not release it')
  t.equal(namesake.reason, 'ProtectedObjectDeleted')
  t.equal(judge(update(stored('platform/off'), changeData), { templates: [OFF] }).reason, 'OwnerNotFound')
  t.equal(judge(update(stored(null), changeData), { templates: [STRICT] }).reason, 'OwnerNotFound', 'no stamp: nothing to judge by')
  t.equal(judge(update(stored(), changeData), { templates: [] }).reason, 'OwnerNotFound', 'its Template is gone too')
})

t.test('ownerReferences and finalizers are guarded even when metadata is ignored', async (t) => {
  const open = template('strict', 'strict', ['metadata'])
  const w = { instance: instance('strict'), templates: [open] }
  t.equal(
    judge(
      update(stored(), (o) => (o.metadata!.annotations!.note = 'x')),
      w,
    ).allowed,
    true,
    'metadata is ignored',
  )
  const owned = judge(
    update(stored(), (o) => {
      o.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'mine', uid: 'u' }]
    }),
    w,
  )
  t.equal(owned.allowed, false)
  t.same(owned.changedPaths, ['metadata.ownerReferences'])
  const held = judge(
    update(stored(), (o) => (o.metadata!.finalizers = ['example.com/hold'])),
    w,
  )
  t.equal(held.allowed, false)
  t.same(held.changedPaths, ['metadata.finalizers'])
  // Terminating, other controllers' finalizers still go.
  const terminating = stored('platform/strict', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/other'] })
  t.equal(
    judge(
      update(terminating, (o) => delete o.metadata!.finalizers),
      w,
    ).reason,
    'ObjectTerminating',
  )
})

t.test('the garbage collector may update but not delete a strict object', async (t) => {
  const w = { instance: instance('strict'), templates: [STRICT] }
  t.equal(judge(remove(stored(), GARBAGE_COLLECTOR), w).reason, 'ProtectedObjectDeleted')
  t.equal(judge(update(stored(), changeData, GARBAGE_COLLECTOR), w).reason, 'GarbageCollector')
  t.equal(judge(remove(stored('platform/off'), GARBAGE_COLLECTOR), { instance: instance('off'), templates: [OFF] }).reason, 'SyncOff')
})

/** An HPA rendered as autoscaling/v2 and written through autoscaling/v1, where v2-only fields travel in annotations. */
function hpa(version: 'v1' | 'v2', behavior: string): KubeObject {
  return {
    apiVersion: `autoscaling/${version}`,
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: 'web',
      namespace: 'team-a',
      uid: 'h',
      labels: { [LABEL_INSTANCE]: 'app1', [LABEL_INSTANCE_UID]: UID, [LABEL_SYNC_MODE]: 'strict' },
      annotations: {
        [ANNOTATION_INSTANCE_REF]: 'team-a/app1',
        [ANNOTATION_TEMPLATE_REF]: 'platform/strict',
        [ANNOTATION_RENDERED_VERSION]: 'autoscaling/v2',
        ...(version === 'v1' ? { 'autoscaling.alpha.kubernetes.io/behavior': behavior } : {}),
      },
    },
    spec: { maxReplicas: 3 },
  }
}

function hpaUpdate(version: 'v1' | 'v2', before: KubeObject, after: KubeObject): AdmissionRequest {
  return {
    uid: 'r',
    kind: { group: 'autoscaling', version, kind: 'HorizontalPodAutoscaler' },
    resource: { group: 'autoscaling', version, resource: 'horizontalpodautoscalers' },
    name: 'web',
    namespace: 'team-a',
    operation: 'UPDATE',
    userInfo: { username: 'mallory' },
    object: after,
    oldObject: before,
  }
}

t.test('a write in another apiVersion than the rendered one is compared in full', async (t) => {
  const w = { instance: instance('strict'), templates: [template('strict', 'strict', ['metadata.annotations'])] }
  const sideDoor = judge(
    hpaUpdate(
      'v1',
      hpa('v1', '{"scaleDown":{"stabilizationWindowSeconds":300}}'),
      hpa('v1', '{"scaleDown":{"stabilizationWindowSeconds":0}}'),
    ),
    w,
  )
  t.equal(sideDoor.allowed, false, 'the v2 field changed through a v1 annotation')
  t.same(sideDoor.changedPaths, ["metadata.annotations['autoscaling.alpha.kubernetes.io/behavior']"])
  t.match(sideDoor.message, /written as autoscaling\/v1, but the Template renders autoscaling\/v2/)
  const own = hpa('v2', '')
  const annotated = structuredClone(own)
  annotated.metadata!.annotations!.team = 'x'
  t.equal(judge(hpaUpdate('v2', own, annotated), w).allowed, true, 'in the rendered version, ignoreFields apply')
  t.equal(judge(hpaUpdate('v1', hpa('v1', 'a'), hpa('v1', 'a')), w).allowed, true, 'no change is no change in any version')
})
