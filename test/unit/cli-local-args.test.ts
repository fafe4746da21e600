// `template-sync local --help` documents every flag and the exit codes;
// usage mistakes exit 2 before anything starts.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { localUsage, runLocal } from '../../src/cli/local.ts'

async function local(argv: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const code = await runLocal(argv, {}, { stdout: { write: (s: string) => (out += s) } })
  return { code, out }
}

t.test('--help documents --check, --skip-build, --state-dir and the exit codes', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await local([flag])
    t.equal(r.code, 0, flag)
    t.equal(r.out, `${localUsage()}\n`)
  }
  const usage = localUsage()
  t.match(usage, /--skip-build\s+do not run test\/cluster\/build\.sh; use the binaries already in\s+\$TEMPLATE_SYNC_BIN_DIR/)
  t.match(usage, /--state-dir DIR\s+where the kubeconfigs, the webhook certificate and the logs/)
  t.match(usage, /\[\$TEMPLATE_SYNC_LOCAL_DIR\]/)
  t.match(usage, /--check\s+run the walkthrough/)
  t.match(usage, /Exit codes: 0 stopped by Ctrl-C \(SIGINT\), SIGTERM or SIGHUP, or --check passed;\n1 .*\n.*; 2 usage error\./)
})

t.test('the command line reaches the same help', async (t) => {
  const bin = fileURLToPath(new URL('../../bin/template-sync.js', import.meta.url))
  const r = spawnSync(process.execPath, [bin, 'local', '--help'], { encoding: 'utf8' })
  t.equal(r.status, 0)
  t.match(r.stdout, /^usage: template-sync local \[--check\] \[--skip-build\] \[--state-dir DIR\]/)
})

t.test('usage errors exit 2 with the usage', async (t) => {
  for (const argv of [['--no-such-flag'], ['extra'], ['--state-dir']]) {
    const r = await local(argv)
    t.equal(r.code, 2, argv.join(' '))
    t.match(r.out, /^template-sync local: .+\n\nusage: template-sync local/)
  }
})
