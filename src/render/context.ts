// The data a Template executes with (dot):
//
//   .parameters.<name>   resolved values: strings stay strings, lists and maps
//                        become Go slices and maps (numbers inside are float64,
//                        as Go's JSON decoding gives)
//   .instance.name       TemplateInstance name
//   .instance.namespace  TemplateInstance namespace
//   .instance.labels     TemplateInstance labels (an empty map when it has none)
//
// Nothing else: no namespace labels, no cluster facts, no Template metadata.

import type { ObjectMeta } from '../api/meta.ts'
import { toGoValue } from '../gotemplate/index.ts'
import { newMap, setKey } from '../gotemplate/value.ts'
import type { GoMap } from '../gotemplate/value.ts'
import type { ParamValue } from './types.ts'

export function buildRenderContext(instance: { readonly metadata?: ObjectMeta }, values: Readonly<Record<string, ParamValue>>): GoMap {
  const parameters = newMap()
  for (const [name, value] of Object.entries(values)) {
    setKey(parameters, name, toGoValue(value))
  }
  const labels = newMap()
  for (const [k, v] of Object.entries(instance.metadata?.labels ?? {})) setKey(labels, k, toGoValue(v))
  const inst = newMap()
  setKey(inst, 'name', instance.metadata?.name ?? '')
  setKey(inst, 'namespace', instance.metadata?.namespace ?? '')
  setKey(inst, 'labels', labels)
  const data = newMap()
  setKey(data, 'parameters', parameters)
  setKey(data, 'instance', inst)
  return data
}
