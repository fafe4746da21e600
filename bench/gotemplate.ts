// Render a realistic ~200-line manifest template (bench/fixtures) 10,000 times
// with our engine and with the Go oracle (text/template + Sprig, built from
// the Go module proxy by test/cluster/build.sh), each timed inside its own
// process, on the same template and data. Checks the outputs are identical
// first. Prints both times per render and the ratio (ours / Go).

import { readFileSync, existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parse, execute, builtinFuncs, toGoValue } from '../src/gotemplate/index.ts'
import { sprigFuncs } from '../src/gotemplate/sprig/index.ts'
import { defaultBinDir } from '../src/local/controlplane.ts'

const N = Number(process.env.BENCH_RENDERS ?? 10_000)
const tmplPath = fileURLToPath(new URL('fixtures/manifest.tmpl', import.meta.url))
const dataPath = fileURLToPath(new URL('fixtures/manifest.json', import.meta.url))
const oracle = `${defaultBinDir()}/gotemplate-oracle`
if (!existsSync(oracle)) {
  console.error(`the Go oracle is missing: run "bash test/cluster/build.sh gotemplate-oracle"`)
  process.exit(2)
}
const text = readFileSync(tmplPath, 'utf8')
const data = toGoValue(JSON.parse(readFileSync(dataPath, 'utf8')))
const t = parse('bench', text, { ...builtinFuncs, ...sprigFuncs })

// Same output as Go, byte for byte, before timing anything.
const ours = execute(t, data)
const check = spawnSync(oracle, [], {
  input: JSON.stringify([{ name: 'bench', template: text, data: JSON.parse(readFileSync(dataPath, 'utf8')) }]),
  encoding: 'utf8',
})
const goOut = (JSON.parse(check.stdout) as { output?: string; error?: string }[])[0]
if (goOut?.output !== ours) {
  console.error('outputs differ from Go; not benchmarking', goOut?.error ?? '')
  process.exit(1)
}

const rounds = 3
const oursNs: number[] = []
const goNs: number[] = []
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < Math.min(1000, N); i++) execute(t, data) // warm-up
  const start = process.hrtime.bigint()
  for (let i = 0; i < N; i++) execute(t, data)
  oursNs.push(Number(process.hrtime.bigint() - start) / N)
  const go = spawnSync(oracle, ['-bench', String(N), '-template', tmplPath, '-data', dataPath], { encoding: 'utf8' })
  if (go.status !== 0) throw new Error(`oracle bench failed: ${go.stderr}`)
  goNs.push((JSON.parse(go.stdout) as { nsPerRender: number }).nsPerRender)
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const o = median(oursNs)
const g = median(goNs)
console.log(`template: ${text.split('\n').length} lines, output ${Buffer.byteLength(ours)} bytes, identical to Go`)
console.log(`ours: ${(o / 1000).toFixed(1)} us/render  go: ${(g / 1000).toFixed(1)} us/render  (median of ${rounds} rounds of ${N})`)
console.log(
  JSON.stringify({
    bench: 'gotemplate',
    renders: N,
    ours_us: Number((o / 1000).toFixed(1)),
    go_us: Number((g / 1000).toFixed(1)),
    ratio: Number((o / g).toFixed(2)),
    lines: text.split('\n').length,
  }),
)
