// The chart archive reader on hostile and odd input: every rejection is a
// ChartLoadError with its code and the entry named, and every acceptance is
// what Helm's LoadArchiveFiles would load.

import { gzipSync } from 'node:zlib'
import t from 'tap'
import { ChartLoadCode, ChartLoadError, loadChartArchive } from '../../src/helm/index.ts'
import { bombTgz, CHART_YAML, chartTgz, type TarSpec, tar, tgz } from './helm-fixtures.ts'

async function rejection(archive: Buffer, helm: 'v3' | 'v4' = 'v3', limits = {}): Promise<ChartLoadError> {
  try {
    await loadChartArchive(archive, { helm, limits })
  } catch (err) {
    if (err instanceof ChartLoadError) return err
    throw err
  }
  throw new Error('the archive loaded')
}

interface Hostile {
  readonly name: string
  readonly entries: readonly TarSpec[]
  readonly code: ChartLoadCode
  readonly entry: string
  readonly message: RegExp
}

const hostile: Hostile[] = [
  {
    name: 'a ../ entry that climbs out of the chart',
    entries: [{ name: 'demo/../../etc/passwd', data: 'x' }],
    code: ChartLoadCode.UnsafePath,
    entry: 'demo/../../etc/passwd',
    message: /references parent directory/,
  },
  {
    name: 'an absolute path after the top directory',
    entries: [{ name: 'demo//etc/passwd', data: 'x' }],
    code: ChartLoadCode.UnsafePath,
    entry: 'demo//etc/passwd',
    message: /absolute paths/,
  },
  {
    name: 'a Windows path that climbs out',
    entries: [{ name: 'demo\\..\\..\\evil.yaml', data: 'x' }],
    code: ChartLoadCode.UnsafePath,
    entry: 'demo\\..\\..\\evil.yaml',
    message: /parent directory/,
  },
  {
    name: 'a drive-letter path',
    entries: [{ name: 'demo/c:/windows/x', data: 'x' }],
    code: ChartLoadCode.UnsafePath,
    entry: 'demo/c:/windows/x',
    message: /illegally named/,
  },
  {
    name: 'a file directly at the archive root',
    entries: [{ name: 'README.md', data: 'x' }],
    code: ChartLoadCode.UnsafePath,
    entry: 'README.md',
    message: /outside the base directory/,
  },
  {
    name: 'a symlink to an absolute path',
    entries: [{ name: 'demo/templates/passwd.yaml', type: '2', linkName: '/etc/passwd' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/templates/passwd.yaml',
    message: /symlink to an absolute or empty path: "\/etc\/passwd"/,
  },
  {
    name: 'a symlink that climbs out of the chart',
    entries: [{ name: 'demo/templates/x.yaml', type: '2', linkName: '../../../etc/shadow' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/templates/x.yaml',
    message: /pointing outside the chart/,
  },
  {
    name: 'a hardlink to a file outside the chart',
    entries: [{ name: 'demo/templates/x.yaml', type: '1', linkName: 'demo/../../etc/shadow' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/templates/x.yaml',
    message: /hardlink pointing outside the chart/,
  },
  {
    name: 'a hardlink that names an entry beside the chart directory',
    entries: [{ name: 'demo/templates/x.yaml', type: '1', linkName: '../etc/passwd' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/templates/x.yaml',
    message: /hardlink pointing outside the chart/,
  },
  {
    name: 'a hardlink into another top directory',
    entries: [{ name: 'demo/templates/x.yaml', type: '1', linkName: 'other/secret' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/templates/x.yaml',
    message: /hardlink pointing outside the chart/,
  },
  {
    name: 'a hardlink to an absolute path',
    entries: [{ name: 'demo/values.yaml', type: '1', linkName: '/etc/shadow' }],
    code: ChartLoadCode.UnsafeLink,
    entry: 'demo/values.yaml',
    message: /hardlink to an absolute/,
  },
  {
    name: 'a character device',
    entries: [{ name: 'demo/templates/tty', type: '3' }],
    code: ChartLoadCode.UnsupportedEntry,
    entry: 'demo/templates/tty',
    message: /char-device, not a file/,
  },
  {
    name: 'a block device',
    entries: [{ name: 'demo/disk', type: '4' }],
    code: ChartLoadCode.UnsupportedEntry,
    entry: 'demo/disk',
    message: /block-device/,
  },
  {
    name: 'a FIFO',
    entries: [{ name: 'demo/pipe', type: '6' }],
    code: ChartLoadCode.UnsupportedEntry,
    entry: 'demo/pipe',
    message: /fifo/,
  },
]

for (const h of hostile) {
  t.test(`refuses ${h.name}`, async (t) => {
    const err = await rejection(chartTgz(h.entries))
    t.equal(err.code, h.code)
    t.equal(err.entry, h.entry)
    t.match(err.message, h.message)
  })
}

t.test('a symlink or hardlink inside the chart loads as Helm loads it: the entry itself, never its target', async (t) => {
  const chart = await loadChartArchive(
    chartTgz([
      { name: 'demo/files/real.txt', data: 'secret-looking' },
      { name: 'demo/files/link.txt', type: '2', linkName: 'real.txt' },
      { name: 'demo/files/hard.txt', type: '1', linkName: 'demo/files/real.txt' },
    ]),
    { helm: 'v3' },
  )
  const byName = new Map(chart.files.map((f) => [f.name, f.data.toString()]))
  t.equal(byName.get('files/link.txt'), '')
  t.equal(byName.get('files/hard.txt'), '')
  t.equal(byName.get('files/real.txt'), 'secret-looking')
})

t.test('a 1 GiB-expanding archive stops at the header that announces it', async (t) => {
  const bomb = await bombTgz(1024 * 1024 * 1024)
  t.ok(bomb.length < 8 * 1024 * 1024, `the bomb is small compressed (${bomb.length} bytes)`)
  const err = await rejection(bomb, 'v4')
  t.equal(err.code, ChartLoadCode.TooLarge)
  t.equal(err.entry, 'demo/templates/bomb.yaml')
  t.match(err.message, /larger than the maximum size 104857600/)
})

t.test('many files that add up past the unpacked limit stop on the first one over it', async (t) => {
  const file = Buffer.alloc(1024 * 1024, 'a')
  const entries = Array.from({ length: 12 }, (_, i) => ({ name: `demo/files/f${i}.txt`, data: file }))
  const err = await rejection(chartTgz(entries), 'v4', { maxUnpackedBytes: 8 * 1024 * 1024 })
  t.equal(err.code, ChartLoadCode.TooLarge)
  t.equal(err.entry, 'demo/files/f7.txt', 'the eighth MiB file no longer fits beside Chart.yaml and the template')
})

t.test('Helm 3 refuses one file over 5 MiB; Helm 4 only counts the total', async (t) => {
  const big = [{ name: 'demo/files/big.bin', data: Buffer.alloc(5 * 1024 * 1024 + 1) }]
  const err = await rejection(chartTgz(big), 'v3')
  t.equal(err.code, ChartLoadCode.TooLarge)
  t.match(err.message, /"demo\/files\/big.bin" is larger than the maximum file size 5242880/)
  const chart = await loadChartArchive(chartTgz(big), { helm: 'v4' })
  t.equal(chart.files[0]?.data.length, 5 * 1024 * 1024 + 1)
})

t.test('too many entries', async (t) => {
  const entries = Array.from({ length: 50 }, (_, i) => ({ name: `demo/files/${i}`, data: '' }))
  const err = await rejection(chartTgz(entries), 'v3', { maxEntries: 40 })
  t.equal(err.code, ChartLoadCode.TooManyEntries)
  t.equal(err.entry, 'demo/files/38', 'the 41st entry, counting Chart.yaml and the template')
})

t.test('the compressed size is bounded before anything inflates', async (t) => {
  const err = await rejection(chartTgz(), 'v3', { maxCompressedBytes: 100 })
  t.equal(err.code, ChartLoadCode.TooLarge)
  t.match(err.message, /chart archive of \d+ bytes is larger than the maximum of 100/)
})

t.test('subcharts nested in archives share one budget, so nesting cannot multiply the limit', async (t) => {
  const half = Buffer.alloc(600 * 1024, 'b')
  const inner = tgz([
    { name: 'inner/Chart.yaml', data: 'apiVersion: v2\nname: inner\nversion: 1.0.0\n' },
    { name: 'inner/files/half.bin', data: half },
  ])
  const err = await rejection(
    chartTgz([
      { name: 'demo/files/half.bin', data: half },
      { name: 'demo/charts/inner-1.0.0.tgz', data: inner },
    ]),
    'v4',
    {
      maxUnpackedBytes: 1024 * 1024,
    },
  )
  t.equal(err.code, ChartLoadCode.TooLarge)
  t.match(err.message, /^error unpacking subchart inner-1\.0\.0\.tgz in demo: decompressed chart is larger/)
  t.equal(err.entry, 'charts/inner-1.0.0.tgz/inner/files/half.bin')
})

t.test('subcharts nested deeper than the limit', async (t) => {
  let archive = tgz([{ name: 'c0/Chart.yaml', data: 'apiVersion: v2\nname: c0\nversion: 1.0.0\n' }])
  for (let i = 1; i <= 3; i++) {
    archive = tgz([
      { name: `c${i}/Chart.yaml`, data: `apiVersion: v2\nname: c${i}\nversion: 1.0.0\n` },
      { name: `c${i}/charts/c${i - 1}.tgz`, data: archive },
    ])
  }
  const err = await rejection(archive, 'v3', { maxSubchartDepth: 2 })
  t.equal(err.code, ChartLoadCode.TooDeep)
  t.match(
    err.message,
    /error unpacking subchart c2\.tgz in c3: error unpacking subchart c1\.tgz in c2: error unpacking subchart c0\.tgz in c1: subcharts are nested more than 2/,
  )
  const ok = await loadChartArchive(archive, { helm: 'v3', limits: { maxSubchartDepth: 3 } })
  t.equal(ok.subcharts[0]?.chart.subcharts[0]?.chart.subcharts[0]?.chart.metadata.name, 'c0')
})

t.test('broken framing is CorruptArchive, not a crash', async (t) => {
  const whole = chartTgz()
  const truncatedGzip = await rejection(whole.subarray(0, whole.length - 30))
  t.equal(truncatedGzip.code, ChartLoadCode.CorruptArchive)
  const tarBytes = tar([{ name: 'demo/Chart.yaml', data: CHART_YAML }])
  const badChecksum = Buffer.from(tarBytes)
  badChecksum[0] = 'X'.charCodeAt(0)
  const err = await rejection(gzipSync(badChecksum))
  t.equal(err.code, ChartLoadCode.CorruptArchive)
  t.match(err.message, /checksum/)
  const midEntry = await rejection(gzipSync(tarBytes.subarray(0, 700)))
  t.equal(midEntry.code, ChartLoadCode.CorruptArchive)
  t.match(midEntry.message, /unexpected end of tar archive/)
})

t.test('not gzip at all', async (t) => {
  const err = await rejection(Buffer.from('apiVersion: v2\nname: demo\n'))
  t.equal(err.code, ChartLoadCode.NotGzip)
})

t.test('an archive with nothing but directories has no files', async (t) => {
  const err = await rejection(tgz([{ name: 'demo/', type: '5' }]))
  t.equal(err.code, ChartLoadCode.Empty)
  t.equal(err.message, 'no files in chart archive')
})

t.test('what Helm accepts: any top directory name, BOMs, pax long names, backslashes, directory entries', async (t) => {
  const longName = `other-top/files/${'x'.repeat(150)}.txt`
  const chart = await loadChartArchive(
    tgz([
      { name: 'other-top/', type: '5' },
      { name: 'other-top/Chart.yaml', data: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CHART_YAML)]) },
      { name: 'other-top\\templates\\win.yaml', data: 'kind: Secret\n' },
      { name: longName, data: 'long' },
      { name: 'other-top/./templates/../values.yaml', data: 'a: 1\n' },
      // The first component is the top directory, here "": what remains stays inside the chart.
      { name: '/etc/passwd', data: 'harmless' },
    ]),
    { helm: 'v3' },
  )
  t.equal(chart.metadata.name, 'demo')
  t.same(
    chart.templates.map((f) => f.name),
    ['templates/win.yaml'],
  )
  t.same(
    chart.files.map((f) => f.name),
    [`files/${'x'.repeat(150)}.txt`, 'etc/passwd'],
  )
  t.same(chart.values, { a: 1 })
})
