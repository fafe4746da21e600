// The chart's default table of the cluster's components is the one the
// processes use without flags: a component added to one and not the other
// would be a writer the chart treats differently from `template-sync local`.

import t from 'tap'
import { readFileSync } from 'node:fs'
import { load } from 'js-yaml'
import { DEFAULT_COMPONENTS } from '../../src/api/writers.ts'

const root = new URL('../../', import.meta.url).pathname
const values = load(readFileSync(`${root}charts/template-sync/values.yaml`, 'utf8')) as {
  writers: { components: Record<string, string[]>; extraComponents: Record<string, string[]> }
}

t.test('values writers.components equals DEFAULT_COMPONENTS, list by list', async (t) => {
  const { components } = values.writers
  t.same(Object.keys(components).sort(), Object.keys(DEFAULT_COMPONENTS).sort(), 'the same lists')
  for (const [list, want] of Object.entries(DEFAULT_COMPONENTS)) {
    t.same([...(components[list] ?? [])].sort(), [...want].sort(), `writers.components.${list}`)
  }
})

t.test('writers.extraComponents adds nothing by default', async (t) => {
  for (const [list, extra] of Object.entries(values.writers.extraComponents)) t.same(extra, [], `writers.extraComponents.${list}`)
})
