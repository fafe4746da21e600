// ParameterSources over the Kubernetes API: Secret and ConfigMap keys and
// objectFieldRef reads. A definite "not there" (404, missing key, unknown
// kind, no JSONPath match) is a SourceError so the instance's defaultValue
// applies; anything else (timeouts, 5xx, 403) propagates and the reconcile is
// retried. Messages name the object and key, never a value.

import type { ObjectFieldRef } from '../api/templateinstance.ts'
import type { KubeClient } from '../kube/client.ts'
import { KubeApiError } from '../kube/errors.ts'
import { type RestMapper, UnknownKindError, resourcePath } from '../kube/discovery.ts'
import { SourceError, type ParameterSources } from '../render/sources.ts'
import { evaluateObjectField } from '../render/objectfield.ts'
import type { ParamValue } from '../render/types.ts'

interface DataObject {
  data?: Record<string, string>
}

async function getOrSourceError<T>(client: KubeClient, path: string, what: string): Promise<T> {
  try {
    return await client.get<T>(path)
  } catch (e) {
    if (e instanceof KubeApiError && e.code === 404) throw new SourceError(`${what} not found`)
    throw e
  }
}

export function apiParameterSources(client: KubeClient, mapper: RestMapper): ParameterSources {
  return {
    async namespaced(apiVersion, kind) {
      try {
        return (await mapper.mapping(apiVersion, kind)).namespaced
      } catch (e) {
        if (e instanceof UnknownKindError) return undefined
        throw e
      }
    },
    async secretValue(namespace, name, key) {
      const what = `Secret ${namespace}/${name}`
      const s = await getOrSourceError<DataObject>(
        client,
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
        what,
      )
      const v = s.data?.[key]
      if (v === undefined) throw new SourceError(`${what} has no key ${JSON.stringify(key)}`)
      return Buffer.from(v, 'base64').toString('utf8')
    },
    async configMapValue(namespace, name, key) {
      const what = `ConfigMap ${namespace}/${name}`
      const cm = await getOrSourceError<DataObject>(
        client,
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`,
        what,
      )
      const v = cm.data?.[key]
      if (v === undefined) throw new SourceError(`${what} has no key ${JSON.stringify(key)}`)
      return v
    },
    async objectField(ref: ObjectFieldRef, defaultNamespace: string): Promise<ParamValue> {
      let mapping
      try {
        mapping = await mapper.mapping(ref.apiVersion, ref.kind)
      } catch (e) {
        if (e instanceof UnknownKindError) throw new SourceError(e.message)
        throw e
      }
      if (ref.name) {
        const ns = mapping.namespaced ? ref.namespace || defaultNamespace : undefined
        const what = `${ref.kind} ${ns ? `${ns}/` : ''}${ref.name}`
        const obj = await getOrSourceError<unknown>(client, resourcePath(mapping, ns, ref.name), what)
        return evaluateObjectField(obj, ref.jsonPath, 'get')
      }
      const ns = mapping.namespaced && ref.namespace ? ref.namespace : undefined
      const list = await client.get<{ items?: unknown[] }>(resourcePath(mapping, ns))
      if (!list.items || list.items.length === 0) throw new SourceError(`no ${ref.kind} found${ns ? ` in namespace ${ns}` : ''}`)
      return evaluateObjectField(list, ref.jsonPath, 'list')
    },
  }
}
