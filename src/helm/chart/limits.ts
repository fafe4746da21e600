// Bounds on what one chart may cost to load. docs/helm-archive-safety.md
// says why each number is what it is.

export interface ChartLimits {
  /** Bytes of one .tgz as downloaded (the outer archive; nested subchart archives count as unpacked data). */
  readonly maxCompressedBytes: number
  /** File data of the whole chart tree, subcharts included, after decompression. Helm: 100 MiB per archive. */
  readonly maxUnpackedBytes: number
  /** One file's size. Helm 3: 5 MiB; Helm 4 has no per-file limit, only the total. */
  readonly maxFileBytes: number
  /** Tar entries of the whole chart tree, directories and headers included. */
  readonly maxEntries: number
  /** charts/ inside charts/ inside ...: the root is depth 0. */
  readonly maxSubchartDepth: number
}

const MiB = 1024 * 1024

export const DEFAULT_CHART_LIMITS: ChartLimits = Object.freeze({
  maxCompressedBytes: 20 * MiB,
  maxUnpackedBytes: 100 * MiB,
  maxFileBytes: 5 * MiB,
  maxEntries: 10_000,
  maxSubchartDepth: 10,
})

/** What is left of the limits while one chart tree loads; shared by the root and all its subcharts. */
export class LoadBudget {
  readonly limits: ChartLimits
  unpackedLeft: number
  entriesLeft: number
  constructor(limits: ChartLimits) {
    this.limits = limits
    this.unpackedLeft = limits.maxUnpackedBytes
    this.entriesLeft = limits.maxEntries
  }
}
