// A chart reference is fetched once even when requests keep arriving while
// the first one is still unpacking its archive (the Template reconcile and
// its instances ask at nearly the same time). Regression: the shared download
// used to end before the archive was loaded and cached, so a request in that
// window downloaded the chart a second time.

import t from 'tap'
import { createHash } from 'node:crypto'
import { createChartFetcher, type FetchedChart, type FetchFn } from '../../src/helm/index.ts'
import { chartTgz } from './helm-fixtures.ts'

// Many files: unpacking takes a good number of event loop turns.
const archive = chartTgz(Array.from({ length: 400 }, (_, i) => ({ name: `demo/files/f${i}.txt`, data: `file ${i}\n`.repeat(200) })))
const digest = createHash('sha256').update(archive).digest('hex')
const index = `apiVersion: v1\nentries:\n  demo:\n  - {apiVersion: v2, name: demo, version: 0.1.0, urls: [demo-0.1.0.tgz], digest: ${digest}}\n`
const repository = { url: 'https://charts.example.test/stable', name: 'demo', version: '0.1.0' }

t.test('requests arriving during the first fetch, at every stage of it, share that one fetch', async (t) => {
  const calls: string[] = []
  const fetch: FetchFn = async (url) => {
    calls.push(url)
    return url.endsWith('index.yaml') ? new Response(index) : new Response(archive)
  }
  const fetcher = createChartFetcher({ fetch })
  const first = fetcher.fetchChart({ repository, helm: 'v3' })
  const later: Promise<FetchedChart>[] = []
  let done = false
  void first.finally(() => {
    done = true
  })
  // One more request on every turn of the event loop until the first has finished.
  while (!done) {
    later.push(fetcher.fetchChart({ repository, helm: 'v3' }))
    await new Promise((r) => setImmediate(r))
  }
  const results = await Promise.all([first, ...later])
  t.ok(later.length > 3, `requests arrived while the first was running (${later.length})`)
  t.strictSame(calls, [`${repository.url}/index.yaml`, `${repository.url}/demo-0.1.0.tgz`], 'one index read, one download')
  t.ok(
    results.every((r) => r.chart === results[0]?.chart),
    'all got the same chart',
  )
})

t.test('a failed fetch is shared by the requests that waited for it, and the next request tries again', async (t) => {
  let answers = 0
  const fetch: FetchFn = async () => {
    answers++
    return new Response('down', { status: 503 })
  }
  const fetcher = createChartFetcher({ fetch })
  const both = await Promise.allSettled([fetcher.fetchChart({ repository, helm: 'v3' }), fetcher.fetchChart({ repository, helm: 'v3' })])
  t.strictSame(
    both.map((r) => r.status),
    ['rejected', 'rejected'],
  )
  t.equal(answers, 1, 'the waiting request shared the failure')
  await t.rejects(fetcher.fetchChart({ repository, helm: 'v3' }))
  t.equal(answers, 2, 'failures are not cached')
})
