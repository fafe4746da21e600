// Regenerates test/helm/expected from the real helm binaries (Helm 3 and 4,
// built by test/cluster/build.sh into TEMPLATE_SYNC_BIN_DIR):
//
//   npm run gen:helm-expected
//
// Each case's file holds helm's result per major; commit them with the change.

import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CASES } from './cases.ts'
import { EXPECTED_DIR, majorsOf, runHelm } from './corpus.ts'

await mkdir(EXPECTED_DIR, { recursive: true })
const keep = new Set(CASES.map((c) => `${c.id}.json`))
for (const f of await readdir(EXPECTED_DIR)) if (!keep.has(f)) await rm(join(EXPECTED_DIR, f))
for (const c of CASES) {
  const out: Record<string, unknown> = {}
  for (const major of majorsOf(c)) out[major] = await runHelm(c, major)
  await writeFile(join(EXPECTED_DIR, `${c.id}.json`), `${JSON.stringify(out, null, 2)}\n`)
}
console.log(`generate: ${CASES.length} cases written to ${EXPECTED_DIR}`)
