// What bench:webhook and bench:webhook-apiserver share: the webhook as the
// image runs it (dist/, compiled here) with the Node flags and memory limit
// the chart gives it by default.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { load } from 'js-yaml'
import { parseMemoryQuantity } from '../src/webhook/sizing.ts'

interface ChartWebhookValues {
  webhook?: { nodeOptions?: string; heapPercent?: number; resources?: { limits?: { memory?: string } } }
}

function chartValues(): ChartWebhookValues {
  return load(readFileSync(new URL('../charts/template-sync/values.yaml', import.meta.url), 'utf8')) as ChartWebhookValues
}

/** The container memory limit the chart gives the webhook by default, in bytes. */
export function chartMemoryLimit(): number | undefined {
  const limit = chartValues().webhook?.resources?.limits?.memory
  return limit === undefined ? undefined : parseMemoryQuantity(String(limit))
}

/**
 * The Node flags the chart gives the webhook by default: the heap limit it
 * derives from the memory limit (template-sync.webhookHeapFlag), then
 * values.yaml webhook.nodeOptions.
 */
export function chartNodeOptions(): string[] {
  const w = chartValues().webhook
  const limit = chartMemoryLimit()
  const heap = limit === undefined ? [] : [`--max-old-space-size=${Math.floor(((limit / 1024 / 1024) * (w?.heapPercent ?? 50)) / 100)}`]
  return [...heap, ...(w?.nodeOptions ?? '').split(' ').filter((f) => f !== '')]
}

/** Compiles src/ to dist/, the form the image runs. */
export function buildDist(): void {
  const started = performance.now()
  execFileSync(
    process.execPath,
    [
      fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)),
      '-p',
      fileURLToPath(new URL('../tsconfig.build.json', import.meta.url)),
    ],
    { stdio: 'inherit' },
  )
  console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`)
}
