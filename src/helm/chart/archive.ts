// Unpacking a chart .tgz into memory: Helm's LoadArchiveFiles (path rules,
// top directory dropped, byte order marks stripped) plus what Helm leaves
// out for hostile archives: links that leave the chart and device entries
// are refused, and every size is bounded while the archive inflates, so a
// gzip bomb stops at the header that announces it.

import { createGunzip } from 'node:zlib'
import { ChartLoadCode, ChartLoadError } from './errors.ts'
import type { LoadBudget } from './limits.ts'
import { TarFormatError, type TarHeader, TarReader } from './tar.ts'
import type { HelmVersion } from './types.ts'

export interface ArchiveFile {
  /** Chart-relative '/'-separated path (the archive's top directory removed). */
  readonly name: string
  readonly data: Buffer
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])
const DRIVE = /^[a-zA-Z]:\//

export function stripBom(data: Buffer): Buffer {
  return data.subarray(0, 3).equals(BOM) ? data.subarray(3) : data
}

/** path.Clean for '/'-separated paths. */
export function cleanPath(p: string): string {
  const abs = p.startsWith('/')
  const out: string[] = []
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop()
      else if (!abs) out.push('..')
      continue
    }
    out.push(seg)
  }
  const joined = out.join('/')
  if (abs) return `/${joined}`
  return joined === '' ? '.' : joined
}

function unsafe(message: string, entry: string): ChartLoadError {
  return new ChartLoadError(ChartLoadCode.UnsafePath, message, { entry })
}

/**
 * The chart-relative path of an entry, checked as Helm checks it. Helm treats
 * "\" as the separator when a name contains one (archives made on Windows).
 */
export function chartPath(stored: string): string {
  const delimiter = stored.includes('\\') ? '\\' : '/'
  const parts = stored.split(delimiter)
  let n = parts.slice(1).join(delimiter).replaceAll(delimiter, '/')
  if (n.startsWith('/')) throw unsafe(`chart illegally contains absolute paths: ${JSON.stringify(stored)}`, stored)
  n = cleanPath(n)
  if (n === '.') throw unsafe(`chart illegally contains content outside the base directory: ${JSON.stringify(stored)}`, stored)
  if (n.startsWith('..')) throw unsafe(`chart illegally references parent directory: ${JSON.stringify(stored)}`, stored)
  if (DRIVE.test(n)) throw unsafe(`chart contains illegally named files: ${JSON.stringify(stored)}`, stored)
  if (parts[0] === 'Chart.yaml') throw unsafe(`chart yaml not in base directory: ${JSON.stringify(stored)}`, stored)
  return n
}

/**
 * A link entry may stay: Helm loads the entry's own (empty) data and never
 * follows it. One that points outside the chart is refused, so that nothing
 * that later extracts or follows it can be led out.
 */
function checkLink(h: TarHeader, path: string): void {
  const target = h.linkName.replaceAll('\\', '/')
  const bad = (why: string) =>
    new ChartLoadError(
      ChartLoadCode.UnsafeLink,
      `chart archive entry ${JSON.stringify(h.name)} is a ${h.kind} ${why}: ${JSON.stringify(h.linkName)}`,
      {
        entry: h.name,
      },
    )
  if (target === '' || target.startsWith('/') || DRIVE.test(target)) throw bad('to an absolute or empty path')
  const outside = (p: string) => p === '.' || p === '..' || p.startsWith('../') || p.startsWith('/')
  if (h.kind === 'symlink') {
    // A symlink resolves against its own directory inside the chart.
    if (outside(cleanPath(`${path.split('/').slice(0, -1).join('/')}/${target}`))) throw bad('pointing outside the chart')
    return
  }
  // A hardlink names another entry of the archive: it must lie under the same top directory.
  const top = h.name.replaceAll('\\', '/').split('/')[0] ?? ''
  const cleaned = cleanPath(target)
  if (outside(cleaned) || !cleaned.startsWith(`${top}/`) || outside(cleaned.slice(top.length + 1))) throw bad('pointing outside the chart')
}

function tooLarge(message: string, entry?: string): ChartLoadError {
  return new ChartLoadError(ChartLoadCode.TooLarge, message, entry === undefined ? {} : { entry })
}

/**
 * Reads every file of a gzip-compressed tar archive. `budget` is shared by a
 * chart and all its subcharts; it is charged with every entry and every byte
 * of entry data as the headers arrive.
 */
export function readChartArchive(archive: Buffer, helm: HelmVersion, budget: LoadBudget): Promise<ArchiveFile[]> {
  const { limits } = budget
  if (archive.length > limits.maxCompressedBytes) {
    return Promise.reject(tooLarge(`chart archive of ${archive.length} bytes is larger than the maximum of ${limits.maxCompressedBytes}`))
  }
  if (archive[0] !== 0x1f || archive[1] !== 0x8b || archive[2] !== 0x08) {
    return Promise.reject(new ChartLoadError(ChartLoadCode.NotGzip, 'the chart archive is not gzip-compressed (gzip: invalid header)'))
  }
  const files: ArchiveFile[] = []
  const checkHeader = (h: TarHeader) => {
    if (--budget.entriesLeft < 0) {
      throw new ChartLoadError(ChartLoadCode.TooManyEntries, `chart has more than ${limits.maxEntries} archive entries`, { entry: h.name })
    }
    if (h.size > budget.unpackedLeft) {
      throw tooLarge(
        `decompressed chart is larger than the maximum size ${limits.maxUnpackedBytes} (entry ${JSON.stringify(h.name)})`,
        h.name,
      )
    }
    budget.unpackedLeft -= h.size
    if (h.kind === 'metadata' || h.kind === 'directory') return
    const path = chartPath(h.name)
    if (h.kind === 'char-device' || h.kind === 'block-device' || h.kind === 'fifo' || h.kind === 'sparse') {
      throw new ChartLoadError(ChartLoadCode.UnsupportedEntry, `chart archive entry ${JSON.stringify(h.name)} is a ${h.kind}, not a file`, {
        entry: h.name,
      })
    }
    if (h.kind === 'symlink' || h.kind === 'hardlink') checkLink(h, path)
    if (helm === 'v3' && h.size > limits.maxFileBytes) {
      throw tooLarge(
        `decompressed chart file ${JSON.stringify(h.name)} is larger than the maximum file size ${limits.maxFileBytes}`,
        h.name,
      )
    }
    // Helm fails a chart that uses up its whole budget exactly, too.
    if (budget.unpackedLeft <= 0) throw tooLarge(`decompressed chart is larger than the maximum size ${limits.maxUnpackedBytes}`, h.name)
  }
  const tar = new TarReader({
    checkHeader,
    entry: (e) => {
      if (e.kind !== 'directory') files.push({ name: chartPath(e.name), data: stripBom(e.data) })
    },
  })
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip({ chunkSize: 64 * 1024 })
    let settled = false
    const finish = (err?: unknown) => {
      if (settled) return
      settled = true
      gunzip.destroy()
      if (err !== undefined) reject(asLoadError(err))
      else if (files.length === 0) reject(new ChartLoadError(ChartLoadCode.Empty, 'no files in chart archive'))
      else resolve(files)
    }
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return
      try {
        tar.write(chunk)
        // The end-of-archive marker: whatever follows is never inflated.
        if (tar.done) finish()
      } catch (err) {
        finish(err)
      }
    })
    gunzip.on('end', () => {
      try {
        tar.end()
        finish()
      } catch (err) {
        finish(err)
      }
    })
    gunzip.on('error', (err) => finish(err))
    gunzip.end(archive)
  })
}

function asLoadError(err: unknown): ChartLoadError {
  if (err instanceof ChartLoadError) return err
  if (err instanceof TarFormatError)
    return new ChartLoadError(ChartLoadCode.CorruptArchive, `chart archive: ${err.message}`, { cause: err })
  const message = err instanceof Error ? err.message : String(err)
  return new ChartLoadError(ChartLoadCode.CorruptArchive, `chart archive is not a valid gzip stream: ${message}`, { cause: err })
}
