// Notices new serving certificates without a restart. Kubernetes updates a
// Secret volume by writing a fresh hidden directory and swapping the `..data`
// symlink, so a watch on the certificate file itself goes quiet after the
// first swap. This watches the directory (each swap is an entry change there),
// waits for the burst of events to settle, and re-reads. A slow poll backs the
// watch up: inotify can be unavailable or overflow, and a watched directory
// can be replaced by a new mount.

import { watch, type FSWatcher } from 'node:fs'
import type { Logger } from 'pino'
import { parseKeyPair, readKeyPairFiles, type KeyPair, type KeyPairFiles, type RawKeyPair } from './keypair.ts'

export interface CertWatcherOptions {
  readonly files: KeyPairFiles
  readonly log: Logger
  /** Called with each new valid pair; an exception here counts as a rejection and the old pair stays. */
  readonly onLoad: (pair: KeyPair) => void
  /** Called once per distinct bad pair found on disk. */
  readonly onReject?: (error: unknown) => void
  /** Safety-net poll interval. */
  readonly pollMs?: number
  /** Quiet time after the last directory event before re-reading. */
  readonly debounceMs?: number
}

export type CheckResult = 'unchanged' | 'loaded' | 'rejected'

export class CertWatcher {
  private readonly opts: Required<Omit<CertWatcherOptions, 'onReject'>> & CertWatcherOptions
  private current: KeyPair
  /** Digest of the last pair that failed, so a bad pair left on disk is reported once. */
  private rejectedDigest: string | undefined
  private watcher: FSWatcher | undefined
  private poll: NodeJS.Timeout | undefined
  private debounce: NodeJS.Timeout | undefined
  private closed = false
  private unreadable = false
  /** Loads performed since start, for tests and metrics. */
  reloads = 0

  constructor(opts: CertWatcherOptions, initial: KeyPair) {
    this.opts = { pollMs: 60_000, debounceMs: 200, ...opts }
    this.current = initial
  }

  get pair(): KeyPair {
    return this.current
  }

  start(): this {
    this.watchDir()
    this.poll = setInterval(() => {
      // Re-arm a watch that failed or was closed by the directory going away.
      if (this.watcher === undefined) this.watchDir()
      this.check()
    }, this.opts.pollMs)
    this.poll.unref()
    return this
  }

  close(): void {
    this.closed = true
    if (this.poll) clearInterval(this.poll)
    if (this.debounce) clearTimeout(this.debounce)
    this.watcher?.close()
    this.watcher = undefined
  }

  /** Re-reads the files now and swaps the pair when it changed and is valid. */
  check(): CheckResult {
    if (this.closed) return 'unchanged'
    let found: RawKeyPair
    try {
      found = readKeyPairFiles(this.opts.files)
    } catch (err) {
      // Unreadable mid-swap is normal and the next event or poll looks again; a lasting gap is reported once.
      if (!this.unreadable)
        this.opts.log.warn({ err, dir: this.opts.files.dir }, 'serving certificate files unreadable; keeping the pair in use')
      this.unreadable = true
      return 'unchanged'
    }
    this.unreadable = false
    if (found.digest === this.current.digest || found.digest === this.rejectedDigest) return 'unchanged'
    let pair: KeyPair
    try {
      // The bytes just read are the ones checked and used: no second read that could see another state.
      pair = parseKeyPair(this.opts.files, found)
      this.opts.onLoad(pair)
    } catch (err) {
      this.rejectedDigest = found.digest
      this.opts.log.error({ err, dir: this.opts.files.dir }, 'new serving certificate rejected; keeping the one in use')
      this.opts.onReject?.(err)
      return 'rejected'
    }
    this.current = pair
    this.rejectedDigest = undefined
    this.reloads++
    this.opts.log.info(
      { dir: this.opts.files.dir, fingerprint: pair.fingerprint, notAfter: pair.notAfter.toISOString() },
      'serving certificate reloaded',
    )
    return 'loaded'
  }

  private watchDir(): void {
    try {
      const w = watch(this.opts.files.dir, { persistent: false }, () => this.schedule())
      w.on('error', (err) => {
        this.opts.log.warn({ err, dir: this.opts.files.dir }, 'certificate directory watch failed; polling until it can be re-armed')
        w.close()
        if (this.watcher === w) this.watcher = undefined
      })
      this.watcher = w
    } catch (err) {
      this.opts.log.warn({ err, dir: this.opts.files.dir }, 'cannot watch the certificate directory; relying on polling')
      this.watcher = undefined
    }
  }

  private schedule(): void {
    if (this.closed) return
    if (this.debounce) clearTimeout(this.debounce)
    this.debounce = setTimeout(() => {
      this.debounce = undefined
      this.check()
    }, this.opts.debounceMs)
    this.debounce.unref()
  }
}
