// Regenerates the expectations from the Go oracle binary and checks (1) that
// the committed expected.json is current and (2) that the engine agrees with
// Go on a fresh batch of generated templates that is not committed anywhere.
// `npm run test:unit` builds the oracle first (bash test/cluster/build.sh
// gotemplate-oracle, a few seconds); without it this test fails and says so.

import { readFileSync } from 'node:fs'
import t from 'tap'
import { allCases } from '../gotemplate/corpus/index.ts'
import { compare, describe, renderCase } from '../gotemplate/differential.ts'
import { generateCases } from '../gotemplate/generate.ts'
import { oracleAvailable, oraclePath, runOracle } from '../gotemplate/oracle.ts'
import { EXPECTED_PATH, toExpected } from '../gotemplate/record.ts'
import type { Expected } from '../gotemplate/record.ts'

if (!oracleAvailable()) {
  t.fail(`gotemplate-oracle not found at ${oraclePath()}: build it with "bash test/cluster/build.sh gotemplate-oracle" (needs Go)`)
} else {
  t.test('committed expected.json matches a fresh oracle run', async (t) => {
    const committed = JSON.parse(readFileSync(EXPECTED_PATH, 'utf8')) as Expected
    const fresh = toExpected(runOracle(allCases()))
    const stale = Object.keys(fresh.results).filter((n) => JSON.stringify(fresh.results[n]) !== JSON.stringify(committed.results[n]))
    t.same(stale, [], 'cases whose recorded result differs from Go today (run node test/gotemplate/record.ts)')
  })

  t.test('engine agrees with Go on templates generated from another seed', async (t) => {
    // The seed changes with GOTEMPLATE_FUZZ_SEED to explore; CI uses the default.
    const seed = Number(process.env['GOTEMPLATE_FUZZ_SEED'] ?? '777')
    const cases = generateCases(seed, 300)
    const results = runOracle(cases)
    let equal = 0
    for (const [i, c] of cases.entries()) {
      const want = results[i]
      if (want === undefined) continue
      const cmp = compare(want, renderCase(c))
      if (cmp.equal) equal++
      else t.fail(c.name, { template: c.template, data: c.data, diff: describe(cmp) })
    }
    t.equal(equal, cases.length, `generated seed ${seed}: templates equal to Go`)
  })
}
