// The chart loader against the real Helm 3 and Helm 4: each archive below is
// given to `helm template` of both majors and to loadChartPath; both must
// accept it or both must refuse it. The only allowed differences are listed
// in DEVIATIONS with their reason (archives Helm loads that we refuse as
// hostile); the test fails if Helm starts refusing one of them too, so the
// list stays true.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { ChartLoadError, loadChartPath } from '../../src/helm/index.ts'
import { bombTgz, chartTgz, type TarSpec, tar, tgz } from '../unit/helm-fixtures.ts'

const root = new URL('../../', import.meta.url).pathname
const binDir = process.env['TEMPLATE_SYNC_BIN_DIR'] ?? join(root, 'test/cluster/bin')
const work = mkdtempSync(join(tmpdir(), 'ts-helm-loader-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const env = { ...process.env, HELM_CACHE_HOME: join(work, 'h'), HELM_CONFIG_HOME: join(work, 'h'), HELM_DATA_HOME: join(work, 'h') }

const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n'
const chartYaml = (extra = '', api = 'v2', name = 'demo', version = '0.1.0') =>
  `apiVersion: ${api}\nname: ${name}\nversion: ${version}\n${extra}`
const withChartYaml = (yaml: string, extra: readonly TarSpec[] = []) =>
  tgz([{ name: 'demo/Chart.yaml', data: yaml }, { name: 'demo/templates/cm.yaml', data: CM }, ...extra])
const sub = (name: string) =>
  tgz([
    { name: `${name}/Chart.yaml`, data: chartYaml('', 'v2', name, '1.0.0') },
    { name: `${name}/templates/cm.yaml`, data: CM.replace('name: cm', `name: ${name}`) },
  ])

interface Case {
  readonly name: string
  readonly archive: () => Buffer | Promise<Buffer>
}

const cases: Case[] = [
  { name: 'a valid chart', archive: () => withChartYaml(chartYaml()) },
  { name: 'a ../ entry', archive: () => chartTgz([{ name: 'demo/../../x.yaml', data: 'x' }]) },
  { name: 'an absolute path after the top directory', archive: () => chartTgz([{ name: 'demo//etc/x', data: 'x' }]) },
  { name: 'an absolute entry name', archive: () => withChartYaml(chartYaml(), [{ name: '/etc/x', data: 'x' }]) },
  { name: 'a drive-letter path', archive: () => chartTgz([{ name: 'demo/c:/x', data: 'x' }]) },
  { name: 'a file at the archive root', archive: () => chartTgz([{ name: 'README.md', data: 'x' }]) },
  { name: 'Chart.yaml as the top directory', archive: () => chartTgz([{ name: 'Chart.yaml/x', data: 'x' }]) },
  { name: 'Windows separators', archive: () => withChartYaml(chartYaml(), [{ name: 'demo\\files\\a.txt', data: 'x' }]) },
  { name: 'a pax long name', archive: () => withChartYaml(chartYaml(), [{ name: `demo/files/${'x'.repeat(160)}`, data: 'x' }]) },
  {
    name: 'a symlink inside the chart',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/l', type: '2', linkName: '../templates/cm.yaml' }]),
  },
  {
    name: 'a symlink out of the chart',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/l', type: '2', linkName: '/etc/passwd' }]),
  },
  {
    name: 'a hardlink out of the chart',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/h', type: '1', linkName: '../etc/passwd' }]),
  },
  { name: 'a character device', archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/tty', type: '3' }]) },
  { name: 'a FIFO', archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/fifo', type: '6' }]) },
  {
    name: 'a 6 MiB file',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/files/big', data: Buffer.alloc(6 * 1024 * 1024, 'a') }]),
  },
  { name: 'a 1 GiB-expanding entry', archive: () => bombTgz(1024 * 1024 * 1024) },
  { name: 'no Chart.yaml', archive: () => tgz([{ name: 'demo/templates/cm.yaml', data: CM }]) },
  { name: 'only directories', archive: () => tgz([{ name: 'demo/', type: '5' }]) },
  { name: 'not gzip', archive: () => tar([{ name: 'demo/Chart.yaml', data: chartYaml() }]) },
  { name: 'truncated gzip', archive: () => withChartYaml(chartYaml()).subarray(0, 60) },
  {
    name: 'a bad tar checksum',
    archive: () => gzipSync(Buffer.concat([Buffer.from('garbage'), tar([{ name: 'demo/Chart.yaml', data: chartYaml() }])])),
  },
  { name: 'a version that is no SemVer', archive: () => withChartYaml(chartYaml('', 'v2', 'demo', '1.0.0.0')) },
  { name: 'a version with leading zeros', archive: () => withChartYaml(chartYaml('', 'v2', 'demo', '01.02.03')) },
  { name: 'a pre-release with a leading zero', archive: () => withChartYaml(chartYaml('', 'v2', 'demo', '1.0.0-01')) },
  { name: 'case-folded Chart.yaml keys', archive: () => withChartYaml('apiVersion: v2\nNAME: demo\nVersion: 0.1.0\n') },
  { name: 'a float version (1.10 becomes "1.1")', archive: () => withChartYaml('apiVersion: v2\nname: demo\nversion: 1.10\n') },
  { name: 'a name with a slash', archive: () => withChartYaml(chartYaml('', 'v2', 'a/b')) },
  { name: 'no apiVersion (a v1 chart)', archive: () => withChartYaml('name: demo\nversion: 0.1.0\n') },
  { name: 'apiVersion v3', archive: () => withChartYaml(chartYaml('', 'v3')) },
  { name: 'apiVersion foo', archive: () => withChartYaml(chartYaml('', 'foo')) },
  { name: 'a list for name', archive: () => withChartYaml('apiVersion: v2\nname: [demo]\nversion: 0.1.0\n') },
  {
    name: 'a Chart.lock',
    archive: () =>
      withChartYaml(chartYaml(), [
        { name: 'demo/Chart.lock', data: 'generated: "2024-01-02T03:04:05.5+01:00"\ndigest: sha256:ab\ndependencies: []\n' },
      ]),
  },
  {
    name: 'a Chart.lock with a date that is no RFC 3339 time',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/Chart.lock', data: 'generated: "2024-01-02"\n' }]),
  },
  {
    name: 'requirements.yaml in a v1 chart',
    archive: () => withChartYaml('name: demo\nversion: 0.1.0\n', [{ name: 'demo/requirements.yaml', data: 'dependencies: []\n' }]),
  },
  {
    name: 'a requirements.yaml that does not decode',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/requirements.yaml', data: 'dependencies: {a: 1}\n' }]),
  },
  { name: 'values that are a list', archive: () => withChartYaml(chartYaml(), [{ name: 'demo/values.yaml', data: '- a\n' }]) },
  {
    name: 'a broken second values document',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/values.yaml', data: 'a: 1\n---\nb: [\n' }]),
  },
  { name: 'a stray file in charts/', archive: () => withChartYaml(chartYaml(), [{ name: 'demo/charts/README.md', data: 'x' }]) },
  {
    name: 'subcharts as a directory and an archive',
    archive: () =>
      withChartYaml(chartYaml(), [
        { name: 'demo/charts/db-1.0.0.tgz', data: sub('db') },
        { name: 'demo/charts/web/Chart.yaml', data: chartYaml('', 'v2', 'web', '1.0.0') },
      ]),
  },
  {
    name: 'a subchart archive that is not gzip',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/charts/db-1.0.0.tgz', data: 'not gzip' }]),
  },
  {
    name: 'an invalid subchart',
    archive: () => withChartYaml(chartYaml(), [{ name: 'demo/charts/bad/Chart.yaml', data: 'apiVersion: v2\nname: bad\n' }]),
  },
  { name: 'an invalid alias', archive: () => withChartYaml(chartYaml('dependencies:\n- name: db\n  alias: "a.b"\n')) },
]

/** Archives Helm loads and we refuse, and why. */
const DEVIATIONS: Readonly<Record<string, string>> = {
  'a symlink out of the chart': 'Helm loads the link entry as an empty file; a link leaving the chart is only ever hostile',
  'a hardlink out of the chart': 'as for symlinks',
  'a character device': 'Helm loads device entries as empty files; no chart tool writes them',
  'a FIFO': 'as for devices',
}

type Verdict = 'accepts' | 'refuses'

function helmVerdict(binary: string, path: string): { verdict: Verdict; detail: string } {
  const r = spawnSync(join(binDir, binary), ['template', 'r', path], { env, encoding: 'utf8', timeout: 60_000 })
  return { verdict: r.status === 0 ? 'accepts' : 'refuses', detail: (r.stderr || r.stdout).trim().slice(0, 300) }
}

async function ourVerdict(path: string, helm: 'v3' | 'v4'): Promise<{ verdict: Verdict; detail: string }> {
  try {
    await loadChartPath(path, { helm })
    return { verdict: 'accepts', detail: '' }
  } catch (err) {
    if (err instanceof ChartLoadError) return { verdict: 'refuses', detail: err.message }
    throw err
  }
}

for (const b of ['helm', 'helm4']) {
  if (!existsSync(join(binDir, b))) throw new Error(`${join(binDir, b)} missing: run bash test/cluster/build.sh ${b}`)
}

for (const [i, c] of cases.entries()) {
  t.test(c.name, async (t) => {
    const path = join(work, `case-${i}.tgz`)
    writeFileSync(path, await c.archive())
    for (const [binary, major] of [
      ['helm', 'v3'],
      ['helm4', 'v4'],
    ] as const) {
      const helm = helmVerdict(binary, path)
      const ours = await ourVerdict(path, major)
      const deviation = DEVIATIONS[c.name]
      if (deviation === undefined) {
        t.equal(ours.verdict, helm.verdict, `Helm ${major} ${helm.verdict} it (${helm.detail}); we ${ours.verdict} (${ours.detail})`)
      } else {
        t.same([helm.verdict, ours.verdict], ['accepts', 'refuses'], `listed deviation under Helm ${major}: ${deviation}`)
      }
    }
  })
}
