// The built-in objects of a chart's templates other than .Capabilities:
// .Chart (Helm 3: the Metadata struct plus IsRoot; Helm 4: a map of the
// same fields by their Go names), .Files (a map of file name to bytes with
// Helm's methods), .Release.

import { newMap, setKey } from '../../gotemplate/index.ts'
import type { GoFuncSpec, GoMap, GoValue } from '../../gotemplate/index.ts'
import { base64Encode } from '../../gotemplate/sprig/encoding.ts'
import { bytesValue, nilSlice, tagType, withMethods } from '../../gotemplate/sprig/types.ts'
import type { ChartFile, ChartMaintainer, ChartMetadata } from '../chart/types.ts'
import { compileGlob } from './glob.ts'
import { GoStruct } from './gostruct.ts'
import type { DependencyEntry } from './model.ts'
import type { HelmMajor } from './types.ts'

const strings = (list: readonly string[]): GoValue => (list.length === 0 ? nilSlice('[]string') : tagType([...list], '[]string'))

function stringMap(m: Readonly<Record<string, string>> | undefined): GoValue {
  if (m === undefined) return tagType(newMap(), 'map[string]string')
  const out = newMap()
  for (const [k, v] of Object.entries(m)) setKey(out, k, v)
  return tagType(out, 'map[string]string')
}

function anyList(list: readonly unknown[]): GoValue {
  return list.map((v) => toValue(v))
}

function toValue(v: unknown): GoValue {
  if (v === null || v === undefined) return null
  if (Array.isArray(v)) return anyList(v)
  if (typeof v === 'object') {
    const m = newMap()
    for (const [k, e] of Object.entries(v)) setKey(m, k, toValue(e))
    return m
  }
  return v as GoValue
}

function maintainerV3(m: ChartMaintainer): GoValue {
  return new GoStruct('*chart.Maintainer', 'ptr', [
    { name: 'Name', value: m.name, json: 'name', omitempty: true },
    { name: 'Email', value: m.email, json: 'email', omitempty: true },
    { name: 'URL', value: m.url, json: 'url', omitempty: true },
  ])
}

function dependencyV3(d: DependencyEntry): GoValue {
  return new GoStruct('*chart.Dependency', 'ptr', [
    { name: 'Name', value: d.name, json: 'name' },
    { name: 'Version', value: d.version, json: 'version', omitempty: true },
    { name: 'Repository', value: d.repository, json: 'repository' },
    { name: 'Condition', value: d.condition, json: 'condition', omitempty: true },
    { name: 'Tags', value: strings(d.tags), json: 'tags', omitempty: true },
    { name: 'Enabled', value: d.enabled, json: 'enabled', omitempty: true },
    { name: 'ImportValues', value: anyList(d.importValues), json: 'import-values', omitempty: true },
    { name: 'Alias', value: d.alias, json: 'alias', omitempty: true },
  ])
}

/** .Chart. `deps` are the Chart.yaml dependencies after processing (aliases, disabled ones removed). */
export function chartObject(helm: HelmMajor, md: ChartMetadata, deps: readonly DependencyEntry[], isRoot: boolean): GoValue {
  if (helm === 'v3') {
    return new GoStruct('struct { chart.Metadata; IsRoot bool }', 'struct', [
      { name: 'Name', value: md.name, json: 'name' },
      { name: 'Home', value: md.home, json: 'home', omitempty: true },
      { name: 'Sources', value: strings(md.sources), json: 'sources', omitempty: true },
      { name: 'Version', value: md.version, json: 'version' },
      { name: 'Description', value: md.description, json: 'description', omitempty: true },
      { name: 'Keywords', value: strings(md.keywords), json: 'keywords', omitempty: true },
      { name: 'Maintainers', value: md.maintainers.map(maintainerV3), json: 'maintainers', omitempty: true },
      { name: 'Icon', value: md.icon, json: 'icon', omitempty: true },
      { name: 'APIVersion', value: md.apiVersion, json: 'apiVersion' },
      { name: 'Condition', value: md.condition, json: 'condition', omitempty: true },
      { name: 'Tags', value: md.tags, json: 'tags', omitempty: true },
      { name: 'AppVersion', value: md.appVersion, json: 'appVersion', omitempty: true },
      { name: 'Deprecated', value: md.deprecated, json: 'deprecated', omitempty: true },
      { name: 'Annotations', value: md.annotations === undefined ? null : stringMap(md.annotations), json: 'annotations', omitempty: true },
      { name: 'KubeVersion', value: md.kubeVersion, json: 'kubeVersion', omitempty: true },
      {
        name: 'Dependencies',
        value: deps.length === 0 ? nilSlice('[]*chart.Dependency') : deps.map(dependencyV3),
        json: 'dependencies',
        omitempty: true,
      },
      { name: 'Type', value: md.type, json: 'type', omitempty: true },
      { name: 'IsRoot', value: isRoot, json: 'IsRoot' },
    ])
  }
  const m = newMap()
  const put = (k: string, v: GoValue) => setKey(m, k, v)
  put('Name', md.name)
  put('Home', md.home)
  put('Sources', anyList(md.sources))
  put('Version', md.version)
  put('Description', md.description)
  put('Keywords', anyList(md.keywords))
  put(
    'Maintainers',
    md.maintainers.map((x) => toValue({ Name: x.name, Email: x.email, URL: x.url })),
  )
  put('Icon', md.icon)
  put('APIVersion', md.apiVersion)
  put('Condition', md.condition)
  put('Tags', md.tags)
  put('AppVersion', md.appVersion)
  put('Deprecated', md.deprecated)
  put('Annotations', md.annotations === undefined ? tagType(newMap(), 'map[string]string') : stringMap(md.annotations))
  put('KubeVersion', md.kubeVersion)
  put(
    'Dependencies',
    deps.map((d) => {
      const dm = newMap()
      setKey(dm, 'Name', d.name)
      setKey(dm, 'Version', d.version)
      setKey(dm, 'Repository', d.repository)
      setKey(dm, 'Condition', d.condition)
      setKey(dm, 'Tags', anyList(d.tags))
      setKey(dm, 'Enabled', d.enabled)
      setKey(dm, 'ImportValues', anyList(d.importValues))
      setKey(dm, 'Alias', d.alias)
      return dm
    }),
  )
  put('Type', md.type)
  put('IsRoot', isRoot)
  return m
}

export type YamlOfMap = (m: GoMap) => string

const basename = (p: string): string => p.slice(p.lastIndexOf('/') + 1)

/** .Files: file name -> []byte, with Get, GetBytes, Glob, Lines, AsConfig, AsSecrets. Bytes are built on first read. */
export function filesObject(files: ReadonlyMap<string, Buffer>, toYaml: YamlOfMap): GoMap {
  const m = newMap()
  for (const [name, data] of files) {
    let cached: GoValue | undefined
    Object.defineProperty(m, name, {
      enumerable: true,
      configurable: false,
      get: () => {
        cached ??= bytesValue(data)
        return cached
      },
    })
  }
  const spec = (params: GoFuncSpec['params'], fn: GoFuncSpec['fn']): GoFuncSpec => ({ fn, params })
  const methods: Record<string, GoFuncSpec> = {
    GetBytes: spec(['string'], (name) => bytesValue(files.get(name as string) ?? Buffer.alloc(0))),
    Get: spec(['string'], (name) => (files.get(name as string) ?? Buffer.alloc(0)).toString('utf8')),
    Glob: spec(['string'], (pattern) => {
      const match = compileGlob(pattern as string)
      const picked = new Map<string, Buffer>()
      for (const [name, data] of files) if (match(name)) picked.set(name, data)
      return filesObject(picked, toYaml)
    }),
    AsConfig: spec([], () => {
      const out = newMap()
      for (const [name, data] of files) setKey(out, basename(name), data.toString('utf8'))
      return toYaml(out)
    }),
    AsSecrets: spec([], () => {
      const out = newMap()
      for (const [name, data] of files) setKey(out, basename(name), base64Encode(data))
      return toYaml(out)
    }),
    Lines: spec(['string'], (path) => {
      const data = files.get(path as string)
      if (data === undefined || data.length === 0) return tagType([], '[]string')
      let s = data.toString('utf8')
      if (s.endsWith('\n')) s = s.slice(0, -1)
      return tagType(s.split('\n'), '[]string')
    }),
  }
  return withMethods(m, 'engine.files', (name) => (Object.hasOwn(methods, name) ? methods[name] : undefined))
}

export function filesOf(list: readonly ChartFile[]): Map<string, Buffer> {
  return new Map(list.map((f) => [f.name, f.data]))
}

export interface ReleaseInfo {
  readonly name: string
  readonly namespace: string
}

/** .Release as `helm template` fills it: an install, revision 1. */
export function releaseObject(r: ReleaseInfo): GoMap {
  const m = newMap()
  setKey(m, 'Name', r.name)
  setKey(m, 'Namespace', r.namespace)
  setKey(m, 'IsUpgrade', false)
  setKey(m, 'IsInstall', true)
  setKey(m, 'Revision', 1n)
  setKey(m, 'Service', 'Helm')
  return m
}
