// Writes the serving pair into the certificate directory the way the kubelet
// updates a Secret volume: the files go into a fresh hidden directory, a
// `..data` symlink is swapped to it with one rename, and `tls.crt` etc. are
// symlinks through `..data`. A reader therefore sees the whole old set or the
// whole new set, never a new certificate with an old key, and the webhook's
// directory watcher sees the swap as an entry change.

import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const DATA = '..data'

/** The files as currently visible through `..data`; a missing or unreadable file is absent. */
export async function readCertDir(dir: string, names: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const name of names) {
    try {
      out[name] = await readFile(join(dir, name), 'utf8')
    } catch {
      // absent
    }
  }
  return out
}

async function isLinkTo(path: string, target: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink() && (await readlink(path)) === target
  } catch {
    return false
  }
}

/**
 * Replaces the directory's files with `files` in one step. Returns false
 * (and writes nothing) when every file already has that content.
 */
export async function writeCertDir(dir: string, files: Readonly<Record<string, string>>): Promise<boolean> {
  const names = Object.keys(files).sort()
  const current = await readCertDir(dir, names)
  if (names.every((n) => current[n] === files[n])) return false

  await mkdir(dir, { recursive: true })
  const stamp = `..${new Date().toISOString().replace(/[-:.]/g, '')}.${randomBytes(4).toString('hex')}`
  await mkdir(join(dir, stamp), { mode: 0o700 })
  for (const name of names) await writeFile(join(dir, stamp, name), files[name] ?? '', { mode: 0o600 })

  // rename(2) over an existing symlink is atomic; symlink(2) over one is not possible.
  const tmp = join(dir, `..data_tmp.${randomBytes(4).toString('hex')}`)
  await symlink(stamp, tmp)
  await rename(tmp, join(dir, DATA))

  for (const name of names) {
    const target = join(DATA, name)
    if (await isLinkTo(join(dir, name), target)) continue
    const link = join(dir, `..${name}.tmp.${randomBytes(4).toString('hex')}`)
    await symlink(target, link)
    await rename(link, join(dir, name))
  }

  // Earlier generations: hidden timestamped directories other than the one now in use.
  for (const entry of await readdir(dir)) {
    if (entry === stamp || entry === DATA || !/^\.\.\d{8}T\d+Z\.[0-9a-f]{8}$/.test(entry)) continue
    await rm(join(dir, entry), { recursive: true, force: true })
  }
  return true
}
