// The webhook process as the image runs it, for the memory figure of
// bench/webhook.ts: compiled JavaScript from dist/ (no TypeScript stripping
// at start), --enable-source-maps, the real server with its Reflector caches
// listing from the API server address it is given, and the production
// logger (writing to /dev/null). Plain JavaScript on purpose: loading a .ts
// file would load Node's type stripper, which the image never does.
//
// Protocol (IPC with the bench): sends {ready, port, imports, cached,
// cacheHeap, sizes} once the caches have synced; answers 'report' with
// {rss, maxRss, heap}, 'mark' with {} after starting to record how late its
// event loop runs, 'rejected' with {rejected: {"<code> <cause>": count},
// loopDelay: {maxMs, p99Ms}} (its metrics, and the event loop since 'mark');
// exits on 'exit'.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const settle = () => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().rss
}

const dist = new URL('../dist/', import.meta.url)
// What `template-sync webhook` loads before it starts (main.js imports the command module on demand).
await import(new URL('webhook/main.js', dist).href)
const { KubeClient } = await import(new URL('kube/client.js', dist).href)
const { startWebhookServer } = await import(new URL('webhook/server.js', dist).href)
const { createWebhookLogger, bufferedLogDestination } = await import(new URL('webhook/logger.js', dist).href)
const imports = settle()
const heapAtImports = process.memoryUsage().heapUsed

const { server, cert, key, operator, memoryLimitBytes } = JSON.parse(process.env.BENCH_MEMORY_CHILD ?? '{}')
const certDir = mkdtempSync(join(tmpdir(), 'ts-bench-wh-mem-'))
writeFileSync(join(certDir, 'tls.crt'), cert)
writeFileSync(join(certDir, 'tls.key'), key)

// In a Pod the credentials come from the service account; the bench's API server needs none.
const client = new KubeClient({ getCurrentCluster: () => ({ server }), applyToHTTPSOptions: async () => {} }, 'template-sync-webhook')
const webhook = await startWebhookServer({
  client,
  log: createWebhookLogger('info', bufferedLogDestination('/dev/null')),
  config: { operatorUsernames: [operator] },
  certDir,
  host: '127.0.0.1',
  port: 0,
  healthHost: '127.0.0.1',
  healthPort: 0,
  drainMs: 0,
  // The container limit the chart passes through the downward API.
  ...(memoryLimitBytes ? { memoryLimitBytes } : {}),
})
await webhook.synced()
const cached = settle()
const caches = webhook.caches
process.send({
  ready: true,
  port: webhook.port,
  imports,
  cached,
  cacheHeap: process.memoryUsage().heapUsed - heapAtImports,
  sizes: { templates: caches.templates.size(), instances: caches.instances.size(), namespaces: caches.namespaces.size() },
})
// How late the event loop runs, sampled every 10 ms: a stall of the webhook itself, told apart from time spent elsewhere.
const loop = monitorEventLoopDelay({ resolution: 10 })
process.on('message', (m) => {
  if (m === 'report') {
    const rss = settle()
    process.send({ rss, maxRss: process.resourceUsage().maxRSS * 1024, heap: process.memoryUsage().heapUsed })
  } else if (m === 'mark') {
    loop.reset()
    loop.enable()
    process.send({})
  } else if (m === 'rejected') {
    loop.disable()
    const loopDelay = { maxMs: Math.round(loop.max / 1e5) / 10, p99Ms: Math.round(loop.percentile(99) / 1e5) / 10 }
    void webhook.metrics.registry.render().then((text) => {
      const rejected = {}
      for (const line of text.split('\n')) {
        const hit = /^template_sync_webhook_rejected_requests_total\{code="(\d+)",cause="(\w+)"\} (\d+)/.exec(line)
        if (hit) rejected[`${hit[1]} ${hit[2]}`] = Number(hit[3])
      }
      process.send({ rejected, loopDelay })
    })
  } else if (m === 'exit') {
    void webhook.shutdown().finally(() => process.exit(0))
  }
})
