// Reading a chart directory (a local chart for `template-sync render`): the
// walk of Helm's LoadDir. Entries in sorted order, .helmignore applied,
// symlinks followed (Helm does; a loop is an error here instead of a hang),
// irregular files refused, byte order marks stripped, every byte charged to
// the same budget as an archive.

import type { Stats } from 'node:fs'
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type ArchiveFile, stripBom } from './archive.ts'
import { ChartLoadCode, ChartLoadError } from './errors.ts'
import { IgnoreRules, IgnoreSyntaxError } from './ignore.ts'
import type { LoadBudget } from './limits.ts'
import type { HelmVersion } from './types.ts'

function unreadable(message: string, entry: string | undefined, cause?: unknown): ChartLoadError {
  return new ChartLoadError(ChartLoadCode.DirectoryUnreadable, message, { ...(entry === undefined ? {} : { entry }), cause })
}

async function ignoreRules(dir: string): Promise<IgnoreRules> {
  let text = ''
  try {
    text = await readFile(join(dir, '.helmignore'), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(`cannot read ${join(dir, '.helmignore')}`, '.helmignore', err)
  }
  try {
    return IgnoreRules.parse(text)
  } catch (err) {
    if (err instanceof IgnoreSyntaxError) throw unreadable(err.message, '.helmignore', err)
    throw err
  }
}

export async function readChartDirectory(dir: string, helm: HelmVersion, budget: LoadBudget): Promise<ArchiveFile[]> {
  const rules = await ignoreRules(dir)
  const files: ArchiveFile[] = []
  const { limits } = budget

  // `rel` is the chart-relative name (through symlinks); `real` the resolved directory, to see loops.
  const walk = async (abs: string, rel: string, realDirs: ReadonlySet<string>): Promise<void> => {
    let names: string[]
    try {
      names = (await readdir(abs)).sort()
    } catch (err) {
      throw unreadable(`cannot read directory ${abs}: ${(err as Error).message}`, rel || undefined, err)
    }
    for (const name of names) {
      const path = join(abs, name)
      const relPath = rel === '' ? name : `${rel}/${name}`
      let st: Stats
      try {
        st = await lstat(path)
      } catch (err) {
        throw unreadable(`cannot read ${path}: ${(err as Error).message}`, relPath, err)
      }
      let real = path
      if (st.isSymbolicLink()) {
        try {
          real = await realpath(path)
          st = await stat(real)
        } catch (err) {
          throw unreadable(`error evaluating symlink ${path}: ${(err as Error).message}`, relPath, err)
        }
      }
      if (st.isDirectory()) {
        if (rules.ignores(relPath, true)) continue
        const resolved = await realpath(path)
        if (realDirs.has(resolved)) throw unreadable(`symlink loop at ${path}`, relPath)
        await walk(path, relPath, new Set([...realDirs, resolved]))
        continue
      }
      if (rules.ignores(relPath, false)) continue
      if (!st.isFile()) throw unreadable(`cannot load irregular file ${path} as it has file mode type bits set`, relPath)
      if (--budget.entriesLeft < 0)
        throw new ChartLoadError(ChartLoadCode.TooManyEntries, `chart has more than ${limits.maxEntries} files`, { entry: relPath })
      if (helm === 'v3' && st.size > limits.maxFileBytes) {
        throw new ChartLoadError(
          ChartLoadCode.TooLarge,
          `chart file ${JSON.stringify(name)} is larger than the maximum file size ${limits.maxFileBytes}`,
          {
            entry: relPath,
          },
        )
      }
      if (st.size > budget.unpackedLeft) {
        throw new ChartLoadError(ChartLoadCode.TooLarge, `chart exceeds maximum decompressed size of ${limits.maxUnpackedBytes} bytes`, {
          entry: relPath,
        })
      }
      let data: Buffer
      try {
        data = await readFile(real)
      } catch (err) {
        throw unreadable(`error reading ${relPath}: ${(err as Error).message}`, relPath, err)
      }
      // The file may have grown since stat.
      if (data.length > budget.unpackedLeft) {
        throw new ChartLoadError(ChartLoadCode.TooLarge, `chart exceeds maximum decompressed size of ${limits.maxUnpackedBytes} bytes`, {
          entry: relPath,
        })
      }
      budget.unpackedLeft -= data.length
      files.push({ name: relPath, data: stripBom(data) })
    }
  }
  let root: string
  try {
    root = await realpath(dir)
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory')
  } catch (err) {
    throw unreadable(`cannot load chart directory ${dir}: ${(err as Error).message}`, undefined, err)
  }
  await walk(root, '', new Set([root]))
  return files
}
