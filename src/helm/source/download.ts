// What a source hands back before the chart is loaded, and the digest check
// every download goes through.

import { createHash } from 'node:crypto'
import type { Credentials } from './auth.ts'
import { type ChartRef, ChartSourceCode, ChartSourceError } from './errors.ts'
import type { HttpDeps } from './http.ts'

export interface Download {
  readonly archive: Buffer
  /** "sha256:<hex>" of the archive bytes, verified against what the repository announced. */
  readonly digest: string
}

export interface SourceRequest {
  readonly ref: ChartRef
  readonly credentials: Credentials | undefined
}

export interface SourceDeps {
  readonly http: HttpDeps
  /** Bytes of index.yaml, a manifest, a token answer. */
  readonly maxMetadataBytes: number
  /** Bytes of the chart archive. */
  readonly maxArchiveBytes: number
  /** host[:port] of registries spoken to over plain HTTP (local test registries); everything else is HTTPS. */
  readonly plainHttpRegistries: readonly string[]
}

export function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

/** The archive's digest, or a DigestMismatch when it is not the announced one. */
export function verifiedDigest(archive: Buffer, expected: string | undefined, ref: ChartRef, from: string): string {
  const actual = sha256(archive)
  if (expected !== undefined && expected !== '' && actual !== expected) {
    throw new ChartSourceError(
      ChartSourceCode.DigestMismatch,
      ref,
      `the archive from ${from} has digest ${actual}, but ${expected} was announced`,
    )
  }
  return actual
}
