// What the benchmarks share about the processes they measure: the webhook and
// the reconciler as the image runs them (dist/, compiled here) with the Node
// flags and memory limit the chart gives each by default.

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { load } from 'js-yaml'
import { parseMemoryQuantity } from '../../src/webhook/sizing.ts'

/** The chart's two processes. */
export type Component = 'webhook' | 'reconciler'

interface ComponentValues {
  nodeOptions?: string
  heapPercent?: number
  resources?: { limits?: { memory?: string } }
}

function chartValues(): Partial<Record<Component, ComponentValues>> {
  return load(readFileSync(new URL('../../charts/template-sync/values.yaml', import.meta.url), 'utf8')) as Partial<
    Record<Component, ComponentValues>
  >
}

/** The container memory limit the chart gives a component by default, in bytes. */
export function chartMemoryLimit(component: Component = 'webhook'): number | undefined {
  const limit = chartValues()[component]?.resources?.limits?.memory
  return limit === undefined ? undefined : parseMemoryQuantity(String(limit))
}

/**
 * The Node flags the chart gives a component by default: the heap limit it
 * derives from the memory limit (template-sync.heapFlag), then its
 * nodeOptions from values.yaml.
 */
export function chartNodeOptions(component: Component = 'webhook'): string[] {
  const v = chartValues()[component]
  const limit = chartMemoryLimit(component)
  const heap =
    limit === undefined || v?.heapPercent === undefined
      ? []
      : [`--max-old-space-size=${Math.floor(((limit / 1024 / 1024) * v.heapPercent) / 100)}`]
  return [...heap, ...(v?.nodeOptions ?? '').split(' ').filter((f) => f !== '')]
}

/** The entry point the image runs, and the flags its ENTRYPOINT gives Node (Dockerfile). */
export const DIST_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))
export const IMAGE_NODE_FLAGS: readonly string[] = ['--enable-source-maps']

/** Compiles src/ to dist/, the form the image runs. */
export function buildDist(): void {
  const started = performance.now()
  execFileSync(
    process.execPath,
    [
      fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)),
      '-p',
      fileURLToPath(new URL('../../tsconfig.build.json', import.meta.url)),
    ],
    { stdio: 'inherit' },
  )
  console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`)
}
