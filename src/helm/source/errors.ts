// Why a chart could not be obtained from its repository. The code decides
// the Template condition (see conditionOf); the message always names the
// repository URL, the chart and the version, and never a credential: it is
// built only from the reference and from what the server said, and the URL
// has any user info removed.

import type { ChartLoadError } from '../chart/errors.ts'
import { displayUrl } from '../../encoding/url.ts'

export const ChartSourceCode = {
  /** No answer, a timeout, a TLS failure or a 5xx: the repository is down or unreachable from here. */
  Unreachable: 'Unreachable',
  /** 401/403, or the token service refused the credentials. */
  Unauthorized: 'Unauthorized',
  /** The repository answered with something that is no chart repository (bad index.yaml, bad manifest, odd status). */
  BadRepository: 'BadRepository',
  /** The repository has no chart of that name. */
  ChartNotFound: 'ChartNotFound',
  /** The chart exists but not in that version. */
  VersionNotFound: 'VersionNotFound',
  /** The downloaded archive does not have the digest the index or manifest announced. */
  DigestMismatch: 'DigestMismatch',
  /** A download was larger than its limit. */
  TooLarge: 'TooLarge',
  /** The archive downloaded but does not load as a chart (cause: a ChartLoadError). */
  BadArchive: 'BadArchive',
  /** spec.helm.chart.repository itself is unusable (URL scheme, credentials in the URL, version syntax). */
  InvalidReference: 'InvalidReference',
  /** The auth Secret has neither username/password nor a usable .dockerconfigjson. */
  InvalidAuthSecret: 'InvalidAuthSecret',
} as const
export type ChartSourceCode = (typeof ChartSourceCode)[keyof typeof ChartSourceCode]

/** The Template condition a failure belongs on. */
export type SourceConditionType = 'SourceAccessible' | 'Valid'

const CONDITION: Readonly<Record<ChartSourceCode, SourceConditionType>> = {
  Unreachable: 'SourceAccessible',
  Unauthorized: 'SourceAccessible',
  BadRepository: 'SourceAccessible',
  TooLarge: 'SourceAccessible',
  InvalidAuthSecret: 'SourceAccessible',
  ChartNotFound: 'Valid',
  VersionNotFound: 'Valid',
  DigestMismatch: 'Valid',
  BadArchive: 'Valid',
  InvalidReference: 'Valid',
}

export function conditionOf(code: ChartSourceCode): SourceConditionType {
  return CONDITION[code]
}

export interface ChartRef {
  /** The repository URL as written in spec.helm.chart.repository.url (user info removed for display). */
  readonly url: string
  readonly name: string
  readonly version: string
}

export class ChartSourceError extends Error {
  override readonly name = 'ChartSourceError'
  readonly code: ChartSourceCode
  readonly ref: ChartRef
  /** HTTP status of the response that decided the failure, when there was one. */
  readonly status: number | undefined
  constructor(code: ChartSourceCode, ref: ChartRef, detail: string, opts: { status?: number; cause?: Error | ChartLoadError } = {}) {
    super(
      `${displayUrl(ref.url)} chart ${ref.name} version ${ref.version}: ${detail}`,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    )
    this.code = code
    this.ref = { ...ref, url: displayUrl(ref.url) }
    this.status = opts.status
  }

  get condition(): SourceConditionType {
    return conditionOf(this.code)
  }
}
