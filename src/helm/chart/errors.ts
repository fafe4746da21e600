// Why a chart could not be loaded. One class with a stable code, so callers
// map failures to conditions by code, never by message text. The message
// names the archive entry or chart file at fault.

export const ChartLoadCode = {
  /** The bytes are not gzip (a values file or an HTML error page where a chart was expected). */
  NotGzip: 'NotGzip',
  /** gzip or tar framing is broken: truncated, bad checksum, bad header. */
  CorruptArchive: 'CorruptArchive',
  /** An entry path is absolute, escapes the chart, or is otherwise one Helm refuses. */
  UnsafePath: 'UnsafePath',
  /** A symlink or hardlink points outside the chart. */
  UnsafeLink: 'UnsafeLink',
  /** A device, FIFO, sparse or otherwise non-file entry. */
  UnsupportedEntry: 'UnsupportedEntry',
  /** Compressed size, unpacked size or one file's size over its limit. */
  TooLarge: 'TooLarge',
  TooManyEntries: 'TooManyEntries',
  /** Subcharts nested deeper than the limit. */
  TooDeep: 'TooDeep',
  /** No files at all. */
  Empty: 'Empty',
  /** Chart.yaml, values.yaml, a lock file or requirements.yaml does not decode, or Chart.yaml fails validation. */
  InvalidChart: 'InvalidChart',
  /** Chart.yaml's apiVersion is one the selected Helm major does not render. */
  UnsupportedApiVersion: 'UnsupportedApiVersion',
  /** Reading a chart directory failed: irregular file, symlink loop, unreadable file, bad .helmignore. */
  DirectoryUnreadable: 'DirectoryUnreadable',
} as const
export type ChartLoadCode = (typeof ChartLoadCode)[keyof typeof ChartLoadCode]

export class ChartLoadError extends Error {
  override readonly name = 'ChartLoadError'
  readonly code: ChartLoadCode
  /** The archive entry or chart-relative file at fault, when there is one. */
  readonly entry: string | undefined
  constructor(code: ChartLoadCode, message: string, opts: { entry?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.code = code
    this.entry = opts.entry
  }

  /** The same failure seen from the chart that holds the subchart (Helm: "error unpacking subchart X in Y: ..."). */
  inSubchart(entry: string, parent: string): ChartLoadError {
    return new ChartLoadError(this.code, `error unpacking subchart ${entry} in ${parent}: ${this.message}`, {
      entry: this.entry === undefined ? `charts/${entry}` : `charts/${entry}/${this.entry}`,
      cause: this,
    })
  }
}
