// Runs the real helm (Helm 3 and 4, built into TEMPLATE_SYNC_BIN_DIR by
// test/cluster/build.sh, which `npm run test:unit` runs first) over the
// corpus now, and checks (1) that the committed expectations are what helm
// prints today and (2) that renderChart agrees with it, known differences
// aside. Without the binaries this test fails and says how to build them.

import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { CASES } from '../helm/cases.ts'
import { type CorpusResult, compareResults, EXPECTED_DIR, helmBinary, majorsOf, runHelm, runOurs } from '../helm/corpus.ts'

const known = JSON.parse(await readFile(new URL('../helm/known-differences.json', import.meta.url), 'utf8')) as Record<string, string>
const missing = (['v3', 'v4'] as const).map(helmBinary).filter((b) => !existsSync(b))

if (missing.length > 0) {
  t.fail(`${missing.join(', ')} not found: build them with "bash test/cluster/build.sh helm helm4" (needs Go)`)
} else {
  for (const c of CASES) {
    t.test(c.id, async (t) => {
      const committed = JSON.parse(await readFile(join(EXPECTED_DIR, `${c.id}.json`), 'utf8')) as Record<string, CorpusResult>
      // Both helm binaries at once: their start-up is most of a case's time.
      const majors = majorsOf(c)
      const results = await Promise.all(majors.map((m) => runHelm(c, m)))
      for (const [i, major] of majors.entries()) {
        const fresh = results[i] as CorpusResult
        t.same(fresh, committed[major], `${c.id}/${major}: committed expectation is current (else run test/helm/generate.ts)`)
        const diffs = compareResults(fresh, await runOurs(c, major))
        if (!Object.hasOwn(known, `${c.id}/${major}`)) t.same(diffs, [], `${c.id}/${major} agrees with helm`)
      }
    })
  }
}
