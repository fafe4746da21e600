// The differential conformance test: every corpus case rendered by the
// TypeScript engine must match what Go text/template + Sprig v3.3.0 rendered
// (test/gotemplate/expected.json): the same bytes, or an error of the same
// class with Go's exact message. Cases listed in known-differences.json are reported, not failed,
// and must be removed from the list once they agree.

import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { allCases } from '../gotemplate/corpus/index.ts'
import { compare, describe, renderCase } from '../gotemplate/differential.ts'
import { EXPECTED_PATH } from '../gotemplate/record.ts'
import type { Expected } from '../gotemplate/record.ts'

interface KnownDifferences {
  readonly cases: Record<string, { readonly owner: string; readonly reason: string }>
}

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'gotemplate')
const expected = JSON.parse(readFileSync(EXPECTED_PATH, 'utf8')) as Expected
const known = JSON.parse(readFileSync(join(dir, 'known-differences.json'), 'utf8')) as KnownDifferences
const cases = allCases()

t.test('expected.json covers exactly the corpus (re-run test/gotemplate/record.ts after editing it)', async (t) => {
  const names = new Set(cases.map((c) => c.name))
  t.same(
    cases.filter((c) => expected.results[c.name] === undefined).map((c) => c.name),
    [],
    'cases without a recorded result',
  )
  t.same(
    Object.keys(expected.results).filter((n) => !names.has(n)),
    [],
    'recorded results without a case',
  )
  t.same(
    Object.keys(known.cases).filter((n) => !names.has(n)),
    [],
    'known differences that are not corpus cases',
  )
  t.ok(cases.length >= 600, `${cases.length} cases`)
})

const groups = new Map<string, typeof cases>()
for (const c of cases) {
  const g = c.name.slice(0, c.name.indexOf('/'))
  groups.set(g, [...(groups.get(g) ?? []), c])
}

let equal = 0
let errorsCompared = 0
const stillDifferent: string[] = []

for (const [group, list] of groups) {
  t.test(group, async (t) => {
    for (const c of list) {
      const want = expected.results[c.name]
      if (want === undefined) continue
      const cmp = compare(want, renderCase(c))
      if (cmp.equal) equal++
      if (want.errorClass !== undefined && cmp.equal) errorsCompared++
      const listed = known.cases[c.name]
      if (listed !== undefined) {
        if (cmp.equal) t.fail(`${c.name} agrees with Go now: remove it from known-differences.json`)
        else {
          stillDifferent.push(c.name)
          t.pass(`${c.name}: known difference (${listed.owner}): ${listed.reason}`)
        }
        continue
      }
      t.ok(cmp.equal, c.name, { diagnostic: !cmp.equal, template: c.template, diff: cmp.equal ? undefined : describe(cmp) })
    }
  })
}

// Runs after the groups above (tap runs subtests in order).
t.test('agreement with Go', async (t) => {
  t.comment(`${equal}/${cases.length} cases render exactly like Go, ${errorsCompared} of them failing with Go's error message`)
  if (stillDifferent.length > 0) t.comment(`known differences (${stillDifferent.length}): ${stillDifferent.join(', ')}`)
  t.equal(equal + stillDifferent.length, cases.length, 'every case agrees or is a listed known difference')
})
