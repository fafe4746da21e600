// The image runs the compiled entry point (see Dockerfile). Build it the way
// the image build does and run the same command line.

import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

t.test('npm run build produces dist/main.js and the image start command runs it', async (t) => {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', timeout: 240_000 })
  t.equal(build.status, 0, `build succeeds: ${build.stdout}${build.stderr}`)
  t.ok(existsSync(`${root}/dist/main.js`), 'dist/main.js exists')
  const run = spawnSync(process.execPath, ['--enable-source-maps', '--title=template-sync', `${root}/dist/main.js`, '--help'], {
    encoding: 'utf8',
    timeout: 60_000,
  })
  t.equal(run.status, 0, `exit code 0: ${run.stderr}`)
  t.match(run.stdout, /usage: template-sync <command>/)
  for (const cmd of ['webhook', 'reconciler', 'render', 'diff']) {
    const help = spawnSync(process.execPath, [`${root}/dist/main.js`, cmd, '--help'], { encoding: 'utf8', timeout: 60_000 })
    t.equal(help.status, 0, `${cmd} --help exits 0: ${help.stderr.slice(0, 500)}`)
  }
})
