// The chart model: Chart.yaml decoded and validated as Helm does, files in
// their buckets, subcharts from charts/, values per Helm major, and the
// directory loader with .helmignore and symlinks.

import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import {
  ChartLoadCode,
  ChartLoadError,
  compareSemver,
  loadChartDirectory,
  loadChartFiles,
  loadChartPath,
  parseSemver,
} from '../../src/helm/index.ts'
import { CHART_YAML, chartTgz, tgz } from './helm-fixtures.ts'

const file = (name: string, data: string | Buffer) => ({ name, data: typeof data === 'string' ? Buffer.from(data) : data })

async function loadError(files: { name: string; data: Buffer }[], helm: 'v3' | 'v4' = 'v3'): Promise<ChartLoadError> {
  try {
    await loadChartFiles(files, { helm })
  } catch (err) {
    if (err instanceof ChartLoadError) return err
    throw err
  }
  throw new Error('the chart loaded')
}

t.test('Chart.yaml validation, with Helm messages, in Helm order', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['no name', 'apiVersion: v2\nversion: 1.0.0\n', /^validation: chart.metadata.name is required$/],
    ['no version', 'apiVersion: v2\nname: x\n', /^validation: chart.metadata.version is required$/],
    ['a version that is no SemVer', 'apiVersion: v2\nname: x\nversion: 1.0.0.0\n', /chart.metadata.version "1.0.0.0" is invalid/],
    ['a name with a slash', 'apiVersion: v2\nname: a/b\nversion: 1.0.0\n', /chart.metadata.name "a\/b" is invalid/],
    ['name ..', 'apiVersion: v2\nname: ..\nversion: 1.0.0\n', /chart.metadata.name "\.\." is not allowed/],
    ['an unknown type', 'apiVersion: v2\nname: x\nversion: 1.0.0\ntype: plugin\n', /chart.metadata.type must be application or library/],
    [
      'a bad alias',
      'apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: db\n  alias: "a.b"\n',
      /dependency "db" has disallowed characters in the alias/,
    ],
    [
      'two dependencies under one alias',
      'apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: db\n  alias: z\n- name: z\n',
      /more than one dependency with name or alias "z"/,
    ],
    [
      'a null dependency',
      'apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- ~\n',
      /dependencies must not contain empty or null nodes/,
    ],
    [
      'a null maintainer',
      'apiVersion: v2\nname: x\nversion: 1.0.0\nmaintainers:\n- null\n',
      /maintainers must not contain empty or null nodes/,
    ],
    [
      'a list where a string belongs',
      'apiVersion: v2\nname: [x]\nversion: 1.0.0\n',
      /^cannot load Chart.yaml: name: expected a string, found a list$/,
    ],
    ['a string where a bool belongs', 'apiVersion: v2\nname: x\nversion: 1.0.0\ndeprecated: "yes"\n', /deprecated: expected true or false/],
    ['YAML that does not parse', 'apiVersion: v2\nname: [x\n', /^cannot load Chart.yaml: /],
  ]
  for (const [name, yaml, want] of cases) {
    const err = await loadError([file('Chart.yaml', yaml)])
    t.equal(err.code, ChartLoadCode.InvalidChart, name)
    t.equal(err.entry, 'Chart.yaml', name)
    t.match(err.message, want, name)
  }
  const missing = await loadError([file('values.yaml', 'a: 1\n')])
  t.equal(missing.message, 'Chart.yaml file is missing')
})

t.test('Chart.yaml reads like sigs.k8s.io/yaml into Go structs', async (t) => {
  const chart = await loadChartFiles(
    [
      file(
        'Chart.yaml',
        [
          'name: x',
          // Numbers go into string fields as Go formats a float32: 1.10 -> "1.1".
          'version: 1.10',
          'appVersion: 1.10',
          'Description: "keys match case-insensitively"',
          'home: "tab\there"',
          'annotations: {replicas: 3, enabled: true}',
          'unknownField: ignored',
          'keywords: [a, ~, 7]',
          'dependencies:',
          '- name: redis',
          '  version: ">=17"',
          '  condition: redis.enabled,global.redis',
          '  tags: [cache]',
          '  import-values: [data, {child: a.b, parent: c}]',
          '  alias: cache',
          '---',
          'this: is never read',
        ].join('\n'),
      ),
    ],
    { helm: 'v3' },
  )
  const md = chart.metadata
  t.equal(md.apiVersion, 'v1', 'no apiVersion means a Helm 2 (v1) chart')
  t.equal(md.version, '1.1')
  t.equal(md.appVersion, '1.1')
  t.equal(md.description, 'keys match case-insensitively')
  t.equal(md.home, 'tab here', 'whitespace sanitised to a space')
  t.same(md.annotations, { replicas: '3', enabled: 'true' })
  t.same(md.keywords, ['a', '', '7'])
  t.same(md.dependencies, [
    {
      name: 'redis',
      version: '>=17',
      repository: '',
      condition: 'redis.enabled,global.redis',
      tags: ['cache'],
      enabled: false,
      importValues: ['data', { child: 'a.b', parent: 'c' }],
      alias: 'cache',
    },
  ])
  t.ok(Object.isFrozen(chart) && Object.isFrozen(chart.metadata.dependencies), 'the loaded chart is frozen')
})

t.test('files go to their buckets as in Helm LoadFiles', async (t) => {
  const chart = await loadChartFiles(
    [
      file('templates/_helpers.tpl', '{{ define "x" }}{{ end }}'),
      file('templates/NOTES.txt', 'notes'),
      file('templates/sub/deploy.yaml', 'kind: Deployment'),
      file('crds/crd.yaml', 'kind: CustomResourceDefinition'),
      file('crds/README.md', 'not a CRD'),
      file('crds/other.JSON', '{}'),
      file('values.schema.json', '{"type":"object"}'),
      file('Chart.lock', 'generated: "2024-01-02T03:04:05Z"\ndigest: sha256:abc\ndependencies: []\n'),
      file('charts/sub-1.0.0.tgz.prov', 'signature'),
      file('README.md', 'readme'),
      file('Chart.yaml', CHART_YAML),
    ],
    { helm: 'v3' },
  )
  t.same(
    chart.templates.map((f) => f.name),
    ['templates/_helpers.tpl', 'templates/NOTES.txt', 'templates/sub/deploy.yaml'],
  )
  t.same(
    chart.crds.map((f) => f.name),
    ['crds/crd.yaml', 'crds/other.JSON'],
  )
  t.same(
    chart.files.map((f) => f.name),
    ['crds/crd.yaml', 'crds/README.md', 'crds/other.JSON', 'charts/sub-1.0.0.tgz.prov', 'README.md'],
  )
  t.equal(chart.schema?.toString(), '{"type":"object"}')
  t.same(chart.lock, { generated: '2024-01-02T03:04:05Z', digest: 'sha256:abc', dependencies: [] })
  t.same(chart.values, {})
  t.equal(chart.valuesRaw, undefined)
})

t.test('values.yaml: Helm 3 reads the first document, Helm 4 merges them all', async (t) => {
  const values = 'a: 1\nm: {p: 1, q: 2}\n---\nb: 2\nm: {q: 3}\n'
  const files = [file('Chart.yaml', CHART_YAML), file('values.yaml', values)]
  const v3 = await loadChartFiles(files, { helm: 'v3' })
  const v4 = await loadChartFiles(files, { helm: 'v4' })
  t.same(v3.values, { a: 1, m: { p: 1, q: 2 } })
  t.same(v4.values, { a: 1, b: 2, m: { p: 1, q: 3 } })
  t.equal(v3.valuesRaw, values)
  const brokenLater = [file('Chart.yaml', CHART_YAML), file('values.yaml', 'a: 1\n---\nb: [\n')]
  t.same((await loadChartFiles(brokenLater, { helm: 'v3' })).values, { a: 1 }, 'Helm 3 never reads the broken second document')
  const err = await loadError(brokenLater, 'v4')
  t.equal(err.code, ChartLoadCode.InvalidChart)
  t.match(err.message, /^cannot load values\.yaml: document 2: /)
  const list = await loadError([file('Chart.yaml', CHART_YAML), file('values.yaml', '- a\n')])
  t.match(list.message, /cannot load values.yaml: values must be a YAML mapping, found a list/)
  t.same(
    (await loadChartFiles([file('Chart.yaml', CHART_YAML), file('values.yaml', 'on: yes\nn: 0755\n')], { helm: 'v3' })).values,
    { true: true, false: 493 },
    'YAML 1.1 as go-yaml v2 reads it: on/yes/n are booleans, 0755 is octal',
  )
})

t.test('Helm 4 renders chart apiVersion v1 and v2 only; Helm 3 takes any', async (t) => {
  for (const api of ['v3', 'foo']) {
    const files = [file('Chart.yaml', `apiVersion: ${api}\nname: x\nversion: 1.0.0\n`)]
    const err = await loadError(files, 'v4')
    t.equal(err.code, ChartLoadCode.UnsupportedApiVersion, api)
    t.match(err.message, api === 'v3' ? /invalid chart apiVersion/ : /unsupported chart version/)
    t.equal((await loadChartFiles(files, { helm: 'v3' })).metadata.apiVersion, api)
  }
})

t.test('requirements.yaml feeds the dependencies; only v1 charts expose it in Files', async (t) => {
  const req = 'dependencies:\n- name: db\n  version: 1.x\n  repository: https://example.invalid/charts\n'
  const v1 = await loadChartFiles([file('Chart.yaml', 'name: x\nversion: 1.0.0\n'), file('requirements.yaml', req)], { helm: 'v3' })
  t.equal(v1.metadata.dependencies[0]?.name, 'db')
  t.same(
    v1.files.map((f) => f.name),
    ['requirements.yaml'],
  )
  const v2 = await loadChartFiles([file('requirements.yaml', req), file('Chart.yaml', CHART_YAML)], { helm: 'v3' })
  t.equal(v2.metadata.dependencies[0]?.name, 'db', 'read whatever the file order')
  t.same(v2.files, [])
})

t.test('subcharts: directories and archives, recursively; "_" and "." entries skipped; strays are errors', async (t) => {
  const tgzSub = tgz([
    { name: 'db/Chart.yaml', data: 'apiVersion: v2\nname: db\nversion: 2.0.0\n' },
    { name: 'db/charts/leaf/Chart.yaml', data: 'apiVersion: v2\nname: leaf\nversion: 0.0.1\n' },
  ])
  const chart = await loadChartFiles(
    [
      file('Chart.yaml', CHART_YAML),
      file('charts/web/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n'),
      file('charts/web/templates/x.yaml', 'x'),
      file('charts/db-2.0.0.tgz', tgzSub),
      file('charts/_skip/Chart.yaml', 'not even yaml: ['),
      file('charts/.hidden.tgz', 'not an archive'),
    ],
    { helm: 'v3' },
  )
  t.same(
    chart.subcharts.map((s) => [s.entry, s.chart.metadata.name]),
    [
      ['db-2.0.0.tgz', 'db'],
      ['web', 'web'],
    ],
  )
  t.same(
    chart.subcharts[1]?.chart.templates.map((f) => f.name),
    ['templates/x.yaml'],
  )
  t.equal(chart.subcharts[0]?.chart.subcharts[0]?.chart.metadata.name, 'leaf')
  const stray = await loadError([file('Chart.yaml', CHART_YAML), file('charts/README.md', 'read me')])
  t.equal(stray.message, 'error unpacking subchart README.md in demo: Chart.yaml file is missing')
  t.equal(stray.entry, 'charts/README.md/Chart.yaml')
  const badSub = await loadError([file('Chart.yaml', CHART_YAML), file('charts/bad/Chart.yaml', 'apiVersion: v2\nname: bad\n')])
  t.equal(badSub.message, 'error unpacking subchart bad in demo: validation: chart.metadata.version is required')
})

t.test('loadChartPath: a .tgz file, a directory, and the hint for a values file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'helm-load-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'demo-0.1.0.tgz'), chartTgz())
  await writeFile(join(dir, 'values.yaml'), 'a: 1\n')
  t.equal((await loadChartPath(join(dir, 'demo-0.1.0.tgz'), { helm: 'v4' })).metadata.name, 'demo')
  await t.rejects(loadChartPath(join(dir, 'values.yaml'), { helm: 'v4' }), {
    code: ChartLoadCode.NotGzip,
    message: /seems to be a YAML file/,
  })
  await t.rejects(loadChartPath(join(dir, 'nope'), { helm: 'v4' }), { code: ChartLoadCode.DirectoryUnreadable })
})

t.test('the directory loader: sorted walk, .helmignore, symlinks followed, loops and irregular files refused', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'helm-dir-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const c = join(root, 'chart')
  await mkdir(join(c, 'templates'), { recursive: true })
  await mkdir(join(c, 'docs'), { recursive: true })
  await mkdir(join(c, 'ci'), { recursive: true })
  await writeFile(join(c, 'Chart.yaml'), CHART_YAML)
  await writeFile(join(c, '.helmignore'), '# comment\n*.bak\nci/\n/docs/secret.txt\n')
  await writeFile(join(c, 'templates', 'b.yaml'), 'b')
  await writeFile(join(c, 'templates', 'a.yaml'), 'a')
  await writeFile(join(c, 'templates', '.hidden.yaml'), 'ignored by the built-in rule')
  await writeFile(join(c, 'old.bak'), 'ignored')
  await writeFile(join(c, 'ci', 'values.yaml'), 'ignored with its directory')
  await writeFile(join(c, 'docs', 'secret.txt'), 'ignored by path')
  await writeFile(join(c, 'docs', 'guide.txt'), 'kept')
  await writeFile(join(root, 'outside.txt'), 'linked in')
  await symlink(join(root, 'outside.txt'), join(c, 'docs', 'linked.txt'))
  const chart = await loadChartDirectory(c, { helm: 'v3' })
  t.same(
    chart.templates.map((f) => f.name),
    ['templates/a.yaml', 'templates/b.yaml'],
  )
  t.same(
    chart.files.map((f) => [f.name, f.data.toString()]),
    [
      ['.helmignore', '# comment\n*.bak\nci/\n/docs/secret.txt\n'],
      ['docs/guide.txt', 'kept'],
      ['docs/linked.txt', 'linked in'],
    ],
  )
  await symlink(c, join(c, 'docs', 'loop'))
  await t.rejects(loadChartDirectory(c, { helm: 'v3' }), { code: ChartLoadCode.DirectoryUnreadable, message: /symlink loop/ })
  await rm(join(c, 'docs', 'loop'))
  await writeFile(join(c, '.helmignore'), 'a**b\n')
  await t.rejects(loadChartDirectory(c, { helm: 'v3' }), { code: ChartLoadCode.DirectoryUnreadable, message: /line 1: double-star/ })
  await writeFile(join(c, '.helmignore'), '!templates/a.yaml\n')
  const negated = await loadChartDirectory(c, { helm: 'v3' }).catch((e: unknown) => e)
  // Helm's negation ignores everything that does not match, Chart.yaml included.
  t.match(negated, { code: ChartLoadCode.InvalidChart, message: 'Chart.yaml file is missing' })
})

t.test('versions as Masterminds/semver reads them for Helm', async (t) => {
  const valid = ['1', '1.2', 'v1.2.3', '01.02.03', '1.2.3-rc.1+build.5', '1.2.3-0', '1.2.3-x-y.01a']
  const invalid = [
    '',
    'x',
    '1.2.3.4',
    '1.2.3-01',
    '1.2.3-',
    '1.2.3+',
    '1.2.3-a..b',
    'v',
    '18446744073709551616.0.0',
    `1.${'9'.repeat(300)}`,
  ]
  for (const v of valid) t.ok(parseSemver(v), `${v} is a version`)
  for (const v of invalid) t.equal(parseSemver(v), undefined, `${JSON.stringify(v).slice(0, 20)} is not`)
  const order = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.10.0',
  ]
  for (let i = 1; i < order.length; i++) {
    t.equal(compareSemver(parseSemver(order[i - 1]!)!, parseSemver(order[i]!)!), -1, `${order[i - 1]} < ${order[i]}`)
  }
  t.equal(compareSemver(parseSemver('1.0.0+a')!, parseSemver('v1.0.0+b')!), 0, 'build metadata does not count')
})

t.test('case-folded Chart.yaml keys: the last in byte order wins, as after sigs.k8s.io/yaml sorts them', async (t) => {
  const chart = await loadChartFiles([file('Chart.yaml', 'apiVersion: v2\nname: lower\nNAME: upper\nNaMe: mixed\nversion: 1.0.0\n')], {
    helm: 'v3',
  })
  t.equal(chart.metadata.name, 'lower')
  const upperLast = await loadChartFiles([file('Chart.yaml', 'apiVersion: v2\nNAME: upper\nversion: 1.0.0\n')], { helm: 'v3' })
  t.equal(upperLast.metadata.name, 'upper')
})
