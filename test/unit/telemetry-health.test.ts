// The health listener both processes serve (src/telemetry/health.ts):
// liveness, readiness with its reasons, and the metrics of the registry given,
// collected at scrape time.

import t from 'tap'
import pino from 'pino'
import { buildHealthApp, type Readiness } from '../../src/telemetry/health.ts'
import { MetricsRegistry, PROMETHEUS_CONTENT_TYPE } from '../../src/telemetry/metrics.ts'

t.test('/healthz, /readyz and /metrics', async (t) => {
  const registry = new MetricsRegistry()
  const scrapes = registry.counter({ name: 'scrape_hooks_total', help: 'Collect hook runs.' })
  registry.onCollect(() => scrapes.inc())
  let readiness: Readiness = { ready: false, reasons: ['cache templates not synced', 'shutting down'] }
  const app = buildHealthApp({ log: pino({ level: 'silent' }), registry, readiness: () => readiness })
  t.teardown(() => app.close())

  const live = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(live.statusCode, 200, 'live even while not ready')
  t.equal(live.body, 'ok\n')

  let ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 503)
  t.equal(ready.body, 'not ready: cache templates not synced; shutting down\n', 'every reason is given')
  readiness = { ready: true, reasons: [] }
  ready = await app.inject({ method: 'GET', url: '/readyz' })
  t.equal(ready.statusCode, 200)
  t.equal(ready.body, 'ok\n')

  const first = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(first.statusCode, 200)
  t.equal(first.headers['content-type'], PROMETHEUS_CONTENT_TYPE)
  t.match(first.body, /^scrape_hooks_total 1$/m, 'the collect hooks ran before the text was made')
  const second = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(second.body, /^scrape_hooks_total 2$/m, 'once per scrape')
})
