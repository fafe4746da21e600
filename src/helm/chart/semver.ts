// Chart versions as Helm reads them: github.com/Masterminds/semver/v3's
// NewVersion, which is looser than SemVer 2 ("1", "1.2" and a leading "v" are
// versions), and its precedence order (build metadata ignored).

export interface SemVer {
  readonly major: bigint
  readonly minor: bigint
  readonly patch: bigint
  /** Pre-release identifiers without the "-", "" when there are none. */
  readonly prerelease: string
  /** Build metadata without the "+", "" when there is none. */
  readonly build: string
  readonly original: string
}

/** Masterminds' guard against huge inputs. */
const MAX_VERSION_LENGTH = 256
// Masterminds' "loose" pattern: with CoerceNewVersion (its default, which Helm
// keeps) NewVersion accepts leading zeros in the numeric parts ("01.2.3").
const LOOSE =
  /^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/
const UINT64_MAX = 2n ** 64n - 1n

/** Parses like Masterminds' NewVersion; undefined when Helm would call the version invalid. */
export function parseSemver(text: string): SemVer | undefined {
  if (text.length > MAX_VERSION_LENGTH) return undefined
  const m = LOOSE.exec(text)
  if (m === null) return undefined
  const major = BigInt(m[1] ?? '0')
  const minor = BigInt(m[2] ?? '0')
  const patch = BigInt(m[3] ?? '0')
  if (major > UINT64_MAX || minor > UINT64_MAX || patch > UINT64_MAX) return undefined
  const prerelease = m[4] ?? ''
  // A numeric pre-release identifier must not have a leading zero, even when coercing.
  if (prerelease.split('.').some((p) => /^0[0-9]+$/.test(p))) return undefined
  return { major, minor, patch, prerelease, build: m[5] ?? '', original: text }
}

/** SemVer 2 precedence: -1, 0 or 1. Build metadata does not count. */
export function compareSemver(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) {
    if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1
  }
  return comparePrerelease(a.prerelease, b.prerelease)
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0
  // A version without a pre-release ranks above one with it.
  if (a === '') return 1
  if (b === '') return -1
  const pa = a.split('.')
  const pb = b.split('.')
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i]
    const y = pb[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    if (x === y) continue
    const nx = /^[0-9]+$/.test(x)
    const ny = /^[0-9]+$/.test(y)
    if (nx && ny) return BigInt(x) < BigInt(y) ? -1 : 1
    // Numeric identifiers rank below alphanumeric ones.
    if (nx) return -1
    if (ny) return 1
    return x < y ? -1 : 1
  }
  return 0
}
