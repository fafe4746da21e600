// Records what real Go text/template + Sprig renders for every corpus case
// into expected.json, so the unit test can compare without Go installed.
//
//   bash test/cluster/build.sh gotemplate-oracle && node test/gotemplate/record.ts

import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { allCases } from './corpus/index.ts'
import { oracleAvailable, oraclePath, runOracle } from './oracle.ts'
import type { OracleResult } from './oracle.ts'

export interface Expected {
  readonly oracle: string
  readonly results: Record<string, Omit<OracleResult, 'name'>>
}

export const EXPECTED_PATH = join(dirname(fileURLToPath(import.meta.url)), 'expected.json')
export const ORACLE_DESCRIPTION = 'Go text/template + github.com/Masterminds/sprig/v3 v3.3.0 (test/cluster/oracle)'

export function toExpected(results: readonly OracleResult[]): Expected {
  const out: Record<string, Omit<OracleResult, 'name'>> = {}
  for (const { name, ...rest } of results) out[name] = rest
  return { oracle: ORACLE_DESCRIPTION, results: out }
}

if (import.meta.main) {
  if (!oracleAvailable()) {
    console.error(`oracle binary missing at ${oraclePath()}; build it with: bash test/cluster/build.sh gotemplate-oracle`)
    process.exit(1)
  }
  const cases = allCases()
  const results = runOracle(cases)
  const bad = results.filter((r) => r.errorClass === 'data')
  if (bad.length > 0) {
    console.error(`cases with invalid data: ${bad.map((r) => r.name).join(', ')}`)
    process.exit(1)
  }
  writeFileSync(EXPECTED_PATH, JSON.stringify(toExpected(results), null, 1) + '\n')
  const errors = results.filter((r) => r.errorClass !== undefined).length
  console.log(`recorded ${results.length} cases (${errors} expected errors) to ${EXPECTED_PATH}`)
}
