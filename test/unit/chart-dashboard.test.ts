// The Grafana dashboard the chart ships (charts/template-sync/dashboards):
// it validates against the JSON schema of the Grafana dashboard model for the
// schemaVersion it declares (test/fixtures), its panels fit the grid without
// overlapping, its queries use only variables it defines, and every metric it
// reads is listed in docs/metrics.md. That the queries return data from a
// running system is the integration test's part (test/integration/observability.test.ts).

import t from 'tap'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@cfworker/json-schema'
import { dashboardQueries, type GrafanaDashboard, metricNamesIn } from '../fixtures/dashboard.ts'

const root = new URL('../../', import.meta.url).pathname
const dashboardFile = join(root, 'charts/template-sync/dashboards/template-sync.json')
const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8')) as GrafanaDashboard

function schemaFor(version: number): object {
  const file = join(root, `test/fixtures/grafana-dashboard-v${version}.schema.json`)
  if (!existsSync(file)) throw new Error(`no schema checked in for Grafana dashboard schemaVersion ${version}: ${file}`)
  return JSON.parse(readFileSync(file, 'utf8')) as object
}

const validate = (d: unknown): string[] => {
  const r = new Validator(schemaFor(39), '7', false).validate(d)
  return r.errors.map((e) => `${e.instanceLocation}: ${e.error}`)
}

t.test('the dashboard validates against the schema of the schemaVersion it declares', async (t) => {
  t.type(dashboard.schemaVersion, 'number')
  const r = new Validator(schemaFor(dashboard.schemaVersion), '7', false).validate(dashboard)
  t.strictSame(
    r.errors.map((e) => `${e.instanceLocation}: ${e.error}`),
    [],
  )
})

t.test('the schema rejects what Grafana would not load', async (t) => {
  const broken: Record<string, (d: GrafanaDashboard & Record<string, unknown>) => void> = {
    'an unknown top-level key': (d) => {
      d.refreshEvery = '1m'
    },
    'another schemaVersion': (d) => {
      d.schemaVersion = 41
    },
    'a panel wider than the grid': (d) => {
      const p = d.panels.find((x) => x.type !== 'row')
      if (p?.gridPos) p.gridPos.w = 25
    },
    'a query without refId': (d) => {
      const p = d.panels.find((x) => x.targets !== undefined)
      if (p?.targets?.[0]) delete (p.targets[0] as { refId?: string }).refId
    },
    'an unknown variable type': (d) => {
      const v = d.templating.list[0]
      if (v) v.type = 'list'
    },
  }
  for (const [name, mutate] of Object.entries(broken)) {
    const copy = structuredClone(dashboard) as GrafanaDashboard & Record<string, unknown>
    mutate(copy)
    t.not(validate(copy).length, 0, name)
  }
})

t.test('panels have unique ids and tile the 24-column grid without overlapping', async (t) => {
  const ids = dashboard.panels.map((p) => p.id)
  t.equal(new Set(ids).size, ids.length, 'unique ids')
  const taken = new Map<string, string>()
  for (const p of dashboard.panels) {
    const g = p.gridPos
    if (!g) {
      t.fail(`panel ${p.title} has no gridPos`)
      continue
    }
    t.ok(g.x + g.w <= 24, `${p.title} fits the width`)
    for (let x = g.x; x < g.x + g.w; x++)
      for (let y = g.y; y < g.y + g.h; y++) {
        const cell = `${x},${y}`
        const other = taken.get(cell)
        if (other !== undefined) t.fail(`${p.title} overlaps ${other} at ${cell}`)
        taken.set(cell, p.title ?? '')
      }
  }
})

t.test('every query uses only the variables the dashboard defines, and the data source variable', async (t) => {
  const defined = new Set(dashboard.templating.list.map((v) => v.name))
  const builtins = new Set(['__rate_interval', '__range', '__interval'])
  const queries = dashboardQueries(dashboard)
  t.ok(queries.length >= 30, `${queries.length} queries`)
  for (const q of queries) {
    for (const m of q.expr.matchAll(/\$\{?(\w+)\}?/g)) {
      const name = m[1] ?? ''
      t.ok(defined.has(name) || builtins.has(name), `${q.where}: $${name} is defined`)
    }
  }
  for (const p of dashboard.panels) {
    if (p.type === 'row') continue
    t.equal(p.datasource?.uid, '${datasource}', `${p.title}: reads the chosen data source`)
    t.ok((p.description ?? '').length > 0, `${p.title}: says what it answers`)
  }
})

t.test('every metric the dashboard reads is listed in docs/metrics.md', async (t) => {
  const docs = readFileSync(join(root, 'docs/metrics.md'), 'utf8')
  const names = new Set(dashboardQueries(dashboard).flatMap((q) => metricNamesIn(q.expr)))
  t.ok(names.size >= 25, `${names.size} metrics`)
  for (const name of names) t.ok(docs.includes(`\`${name}\``), `${name} in docs/metrics.md`)
})
