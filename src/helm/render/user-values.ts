// The user values of `helm template -f/--set/--set-string/--set-file`, in
// Helm's order (pkg/cli/values MergeValues): the -f files merged in turn,
// then every --set, --set-string and --set-file line read over them. The
// result is what renderChart takes as `values`. Files are read through the
// caller's function, so this stays free of I/O.

import { decodeValues, mergeMaps } from '../chart/yaml.ts'
import type { JsonMap } from './data.ts'
import { parseSetLine, type SetMode } from './strvals.ts'
import type { HelmMajor } from './types.ts'

export interface UserValueFlags {
  /** -f/--values paths, in order. */
  readonly valueFiles: readonly string[]
  readonly set: readonly string[]
  readonly setString: readonly string[]
  readonly setFile: readonly string[]
}

export class UserValuesError extends Error {
  override readonly name = 'UserValuesError'
  readonly code = 'UserValues'
}

/**
 * The values the flags give, as the Helm major reads them (a values file's
 * documents: Helm 3 the first, Helm 4 all merged). readFile returns a file's
 * text or throws; its message is kept. Throws UserValuesError naming the flag.
 */
export function userValues(helm: HelmMajor, flags: UserValueFlags, readFile: (path: string) => string): JsonMap {
  let base: JsonMap = {}
  for (const path of flags.valueFiles) {
    let text: string
    try {
      text = readFile(path)
    } catch (err) {
      throw new UserValuesError(`values file ${path}: ${(err as Error).message}`, { cause: err })
    }
    try {
      base = mergeMaps(base, decodeValues(text, helm))
    } catch (err) {
      throw new UserValuesError(`failed to parse ${path}: ${(err as Error).message}`, { cause: err })
    }
  }
  const lines: ReadonlyArray<readonly [flag: string, lines: readonly string[], mode: SetMode]> = [
    ['--set', flags.set, 'typed'],
    ['--set-string', flags.setString, 'string'],
    ['--set-file', flags.setFile, { readFile }],
  ]
  for (const [flag, list, mode] of lines) {
    for (const line of list) {
      try {
        parseSetLine(line, base, mode)
      } catch (err) {
        throw new UserValuesError(`failed parsing ${flag} data: ${(err as Error).message}`, { cause: err })
      }
    }
  }
  return base
}
