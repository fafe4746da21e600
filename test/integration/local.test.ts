// `template-sync local --check`: the newcomer's command, run non-interactively.
// It starts its own control plane, the webhook and the reconciler, applies
// examples/, then proves a strict edit is denied, an ignored annotation is
// allowed, revert-mode drift is reverted and an ignored spec.replicas is kept.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

t.test('template-sync local --check brings everything up and passes its walkthrough', async (t) => {
  const state = mkdtempSync(join(tmpdir(), 'ts-local-'))
  t.teardown(() => rmSync(state, { recursive: true, force: true }))
  const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))
  const t0 = Date.now()
  const r = spawnSync(process.execPath, [bin, 'local', '--check', '--skip-build', '--state-dir', state], {
    encoding: 'utf8',
    timeout: 240_000,
  })
  const out = `${r.stdout}${r.stderr}`
  t.equal(r.status, 0, `exit code 0 (output:\n${out.slice(-2000)})`)
  t.match(out, /ready in [\d.]+ s/, `reports its start time (${Date.now() - t0} ms in all)`)
  for (const line of [
    'strict edit denied: yes',
    'ignored annotation allowed: yes',
    'revert-mode drift reverted: yes',
    'ignored spec.replicas kept: yes',
  ]) {
    t.ok(out.includes(`check: ${line}`), line)
  }
})
