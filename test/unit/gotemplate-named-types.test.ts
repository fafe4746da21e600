// Named slice and map types with methods (withMethods) and the execution
// deadline: what Helm's VersionSet, its files map and its render time bound need.

import t from 'tap'
import { ExecError, execute, newMap, parse, setKey } from '../../src/gotemplate/index.ts'
import { sprigFuncs } from '../../src/gotemplate/sprig/index.ts'
import { namedValuesMap, tagType, withMethods } from '../../src/gotemplate/sprig/types.ts'

const run = (text: string, data: Record<string, unknown>, limits = {}) =>
  execute(parse('t', text, sprigFuncs), data as never, { limits, missingKey: 'zero' })

t.test('a named slice type answers its methods and still ranges, len and index like a slice', async (t) => {
  const set = withMethods(['v1', 'apps/v1'], 'chartutil.VersionSet', (name) =>
    name === 'Has' ? { fn: (v) => v === 'v1' || v === 'apps/v1', params: ['string'] } : undefined,
  )
  const data = { set }
  t.equal(run('{{ .set.Has "apps/v1" }} {{ .set.Has "x/v1" }}', data), 'true false')
  t.equal(run('{{ range .set }}{{ . }},{{ end }}{{ len .set }} {{ index .set 1 }}', data), 'v1,apps/v1,2 apps/v1')
  t.equal(run('{{ typeOf .set }}', data), 'chartutil.VersionSet')
  t.throws(() => run('{{ .set.Nope }}', data), /can't evaluate field Nope in type/)
})

t.test('a named map type: methods come before keys, keys still read and range', async (t) => {
  const m = newMap()
  setKey(m, 'a.txt', 'A')
  setKey(m, 'Get', 'shadowed')
  const files = withMethods(m, 'engine.files', (name) =>
    name === 'Get' ? { fn: (k) => `got ${String(k)}`, params: ['string'] } : undefined,
  )
  const data = { files, plain: tagType(newMap(), 'map[string]string') }
  t.equal(run('{{ .files.Get "a.txt" }}', data), 'got a.txt')
  t.equal(run('{{ range $k, $v := .files }}{{ $k }}={{ $v }};{{ end }}', data), 'Get=shadowed;a.txt=A;')
  t.equal(run('{{ len .files }}', data), '2')
})

t.test('a deadline stops a long loop with TEMPLATE_TIME_LIMIT', async (t) => {
  try {
    run('{{ range $i := until 1000000 }}{{ $i }}{{ end }}', {}, { deadline: performance.now() - 1 })
    t.fail('no error')
  } catch (e) {
    t.ok(e instanceof ExecError)
    t.equal((e as ExecError).code, 'TEMPLATE_TIME_LIMIT')
    t.match((e as ExecError).message, /execution exceeded its time limit/)
  }
})

t.test('a named values map (type Values map[string]interface{}) passes where a map[string]interface{} is expected', async (t) => {
  const m = newMap()
  setKey(m, 'b', 2)
  setKey(m, 'a', 1)
  const data = { v: namedValuesMap(m, 'chartutil.Values') }
  t.equal(
    run('{{ typeOf .v }} {{ kindOf .v }} {{ keys .v | sortAlpha | join "," }} {{ hasKey .v "a" }}', data),
    'chartutil.Values map a,b true',
  )
  t.equal(run('{{ merge (dict "c" 3) .v | toJson }}', data), '{"a":1,"b":2,"c":3}')
})

t.test('a named values map is converted to map[string]interface{} for a map parameter, as Go converts a call argument', async (t) => {
  const m = newMap()
  setKey(m, 'a', 1)
  const data = { v: namedValuesMap(m, 'chartutil.Values') }
  t.equal(run('{{ typeOf (merge .v (dict "b" 2)) }}', data), 'map[string]interface {}', 'merge returns its parameter, unnamed')
  t.equal(run('{{ typeOf (set .v "c" 3) }} {{ typeOf .v }}', data), 'map[string]interface {} chartutil.Values')
  t.same(Object.keys(m), ['a', 'b', 'c'], 'writes through the converted map reach the original')
  t.equal(run('{{ dig "a" 0 (merge .v dict) }}', data), '1', 'dig takes the unnamed result')
})

t.test('deepCopy keeps the named type; dig, which asserts a plain map, refuses it as Go does', async (t) => {
  const m = newMap()
  setKey(m, 'a', 1)
  const data = { v: namedValuesMap(m, 'chartutil.Values') }
  t.equal(run('{{ typeOf (deepCopy .v) }} {{ hasKey (deepCopy .v) "a" }}', data), 'chartutil.Values true')
  t.throws(
    () => run('{{ dig "a" 0 .v }}', data),
    /interface conversion: interface \{\} is chartutil\.Values, not map\[string\]interface \{\}/,
  )
  t.throws(() => run('{{ dig "a" 0 (deepCopy .v) }}', data), /is chartutil\.Values, not map/)
})
