// The reconciler's watches: the three primary caches (Templates,
// TemplateInstances, Namespaces) and the three kinds of shared watch that
// instances hold by key (drift watches per rendered kind, parameter-source
// watches per collection, single-object watches per ownership conflict).
// Each factory only builds the Reflector and says which events mean what,
// through the callbacks it is given; the Manager wires them to its queues.

import type { Template } from '../api/template.ts'
import type { TemplateInstance } from '../api/templateinstance.ts'
import { GROUP, LABEL_INSTANCE_UID, VERSION } from '../api/names.ts'
import type { KubeObject } from '../api/meta.ts'
import { parseCollectionKey, parseObjectKey } from '../api/identity.ts'
import { parseTrackedKind } from '../api/templateinstance-kinds.ts'
import type { KubeClient } from '../kube/client.ts'
import { type RestMapper, resourcePath } from '../kube/discovery.ts'
import { Reflector } from '../kube/reflector.ts'
import { instanceIndexers, renderedObjectIndexers } from './indexes.ts'
import { driftCacheTransform, FieldSetInterner, slimManagedFields } from './managed-fields-slim.ts'
import { WatchRegistry } from './registry.ts'

export interface NamespaceMeta extends KubeObject {
  status?: { phase?: string }
}

export interface WatchDeps {
  readonly client: KubeClient
  readonly mapper: RestMapper
  /** Called when a watch had to recover (a relist, a reconnect). */
  readonly onRecover: (what: string, detail: string) => void
}

export interface PrimaryCaches {
  readonly templates: Reflector<Template>
  readonly instances: Reflector<TemplateInstance>
  readonly namespaces: Reflector<NamespaceMeta>
}

const base = `/apis/${GROUP}/${VERSION}`

/** Namespaces as the target-namespace policy reads them: identity, labels, deletion and phase. */
function namespaceMeta(o: KubeObject): NamespaceMeta {
  const m = o.metadata
  return {
    metadata: {
      name: m?.name,
      uid: m?.uid,
      labels: m?.labels,
      resourceVersion: m?.resourceVersion,
      deletionTimestamp: m?.deletionTimestamp,
    },
    status: { phase: (o as NamespaceMeta).status?.phase },
  } as NamespaceMeta
}

export function primaryCaches({ client, onRecover }: WatchDeps): PrimaryCaches {
  return {
    templates: new Reflector(client, { path: `${base}/templates`, name: 'templates', onRecover, transform: slimManagedFields<Template> }),
    instances: new Reflector(client, {
      path: `${base}/templateinstances`,
      name: 'templateinstances',
      onRecover,
      transform: slimManagedFields<TemplateInstance>,
      indexers: instanceIndexers,
    }),
    namespaces: new Reflector<NamespaceMeta>(client, {
      path: '/api/v1/namespaces',
      name: 'namespaces',
      onRecover,
      transform: namespaceMeta,
    }),
  }
}

export interface DriftEvents {
  /** A rendered object was added, changed or deleted; `synced`: after the initial list. */
  changed(kind: string, obj: KubeObject, synced: boolean): void
  deleted(kind: string): void
  /** The watch of `kind` has listed everything it covers. */
  synced(kind: string): void
}

/** One label-selected watch per rendered kind ("apps/v1/Deployment"), indexed by the owner's UID. */
export function driftWatches({ client, mapper, onRecover }: WatchDeps, on: DriftEvents): WatchRegistry {
  // One for every drift cache: the objects of one Template share a field set whatever their kind.
  const transform = driftCacheTransform(new FieldSetInterner())
  return new WatchRegistry(async (gvk) => {
    const { apiVersion, kind } = parseTrackedKind(gvk)
    const m = await mapper.mapping(apiVersion, kind)
    const r = new Reflector(client, {
      path: resourcePath(m),
      labelSelector: LABEL_INSTANCE_UID,
      name: `drift ${gvk}`,
      onRecover,
      transform,
      stallMs: 90_000,
      indexers: renderedObjectIndexers,
    })
    const changed = (o: KubeObject): void => on.changed(gvk, o, r.hasSynced())
    r.on('add', changed).on('update', changed)
    r.on('delete', (o) => {
      changed(o)
      on.deleted(gvk)
    })
    r.on('synced', () => on.synced(gvk))
    return r
  })
}

/** Metadata is enough to know that a parameter source changed: the pass reads the value itself. */
function metadataOnly(obj: KubeObject): KubeObject {
  const m = obj.metadata ?? {}
  return { metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion } } as KubeObject
}

/** One watch per collection of parameter sources (collectionKey); `changed` after the initial list only. */
export function sourceWatches({ client, mapper, onRecover }: WatchDeps, changed: (key: string) => void): WatchRegistry {
  return new WatchRegistry(async (key) => {
    const { apiVersion, kind, namespace } = parseCollectionKey(key)
    const m = await mapper.mapping(apiVersion, kind)
    const r = new Reflector(client, { path: resourcePath(m, namespace), name: `source ${key}`, onRecover, transform: metadataOnly })
    const onChange = (): void => {
      if (r.hasSynced()) changed(key)
    }
    r.on('add', onChange).on('update', onChange).on('delete', onChange)
    return r
  })
}

/**
 * One watch per object an instance is in an ownership conflict with, by name
 * (objectKey): it carries none of our labels, so no drift watch sees it.
 * `changed` also after the initial list: the object may have changed since
 * its owner last read it.
 */
export function conflictWatches({ client, mapper, onRecover }: WatchDeps, changed: (key: string) => void): WatchRegistry {
  return new WatchRegistry(async (key) => {
    const { apiVersion, kind, namespace, name } = parseObjectKey(key)
    const m = await mapper.mapping(apiVersion, kind)
    const r = new Reflector(client, {
      path: resourcePath(m, namespace),
      fieldSelector: `metadata.name=${name}`,
      name: `conflict ${key}`,
      onRecover,
      transform: slimManagedFields,
    })
    const onChange = (): void => {
      if (r.hasSynced()) changed(key)
    }
    r.on('add', onChange)
      .on('update', onChange)
      .on('delete', onChange)
      .on('synced', () => changed(key))
    return r
  })
}
