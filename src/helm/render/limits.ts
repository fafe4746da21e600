// Bounds on one render. A chart is untrusted input: its templates must not
// be able to hold the reconciler's event loop or its memory. The numbers
// are far above what real charts need (the largest public charts render a
// few megabytes in well under a second).

import type { HelmRenderLimits } from './types.ts'

export const DEFAULT_RENDER_LIMITS: HelmRenderLimits = Object.freeze({
  timeMs: 10_000,
  outputBytes: 32 * 1024 * 1024,
  depth: 100,
  rangeIterations: 2_000_000,
  calls: 200_000,
  objects: 10_000,
})
