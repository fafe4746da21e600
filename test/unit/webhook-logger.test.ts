// The webhook's logger: the per-millisecond time cache writes what pino's ISO
// time function writes, mistaken log calls do not leak object contents, and
// the buffered destination loses nothing when the process exits.

import { execFileSync } from 'node:child_process'
import { Writable } from 'node:stream'
import pino from 'pino'
import t from 'tap'
import { cachedIsoTime, createWebhookLogger } from '../../src/webhook/logger.ts'

t.test('cached ISO time matches pino.stdTimeFunctions.isoTime and follows the clock', async (t) => {
  let clock = Date.UTC(2026, 10, 29, 21, 30, 0, 5)
  const time = cachedIsoTime(() => clock)
  const first = time()
  t.equal(first, `,"time":"${new Date(clock).toISOString()}"`)
  t.match(pino.stdTimeFunctions.isoTime(), /^,"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/, 'the same shape as pino writes')
  t.equal(time(), first, 'same millisecond, same value')
  clock += 1
  t.equal(time(), `,"time":"2026-11-29T21:30:00.006Z"`, 'the next millisecond is formatted anew')
  clock -= 1000
  t.equal(time(), `,"time":"2026-11-29T21:29:59.006Z"`, 'a clock that steps back is followed too')
  // Every millisecond of two seconds across a minute boundary, against a Date formatted each time.
  let wrong = 0
  for (clock = Date.UTC(2026, 11, 31, 23, 59, 59, 0); clock < Date.UTC(2027, 0, 1, 0, 0, 1, 0); clock++) {
    if (time() !== `,"time":"${new Date(clock).toISOString()}"`) wrong++
  }
  t.equal(wrong, 0, 'the same text as formatting a Date, through a year boundary')
})

function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'))
      done()
    },
  })
  const text = (): string => chunks.join('')
  return {
    stream,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  }
}

t.test('objects passed to the logger by mistake are masked', async (t) => {
  const out = capture()
  const log = createWebhookLogger('info', out.stream)
  const secret = { apiVersion: 'v1', kind: 'Secret', data: { password: 'aHVudGVyMg==' }, stringData: { token: 'hunter2' } }
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', object: secret, oldObject: secret, options: { dryRun: ['All'] } },
  }
  log.info({ request: review.request }, 'request')
  log.info({ review }, 'review')
  log.info({ object: secret, oldObject: secret }, 'objects')
  log.info({ body: JSON.stringify(review) }, 'body')
  log.info({ req: { headers: { authorization: 'Bearer hunter2' }, body: review } }, 'raw request')
  const text = out.text()
  t.notMatch(text, /hunter2|aHVudGVyMg==/, 'no secret value is written')
  const lines = out.lines()
  t.equal(lines.length, 5)
  t.equal((lines[0]?.request as Record<string, unknown> | undefined)?.uid, 'u1', 'fields next to the masked ones stay readable')
  t.equal((lines[0]?.request as Record<string, unknown> | undefined)?.object, '[masked]')
  t.equal(
    ((lines[1]?.review as Record<string, unknown> | undefined)?.request as Record<string, unknown> | undefined)?.oldObject,
    '[masked]',
  )
  t.equal(lines[2]?.object, '[masked]')
  t.equal(lines[3]?.body, '[masked]')
  t.match(lines[0]?.time, /^\d{4}-\d\d-\d\dT/, 'ISO timestamps')
  t.equal(lines[0]?.process, 'template-sync-webhook')
})

t.test('the buffered stdout writes every line when the process exits', async (t) => {
  const logger = new URL('../../src/webhook/logger.ts', import.meta.url).href
  // Fewer bytes than the 4 KiB buffer and an exit before the 1 s flush: only the exit flush can write them.
  const script = `
    import { createWebhookLogger } from ${JSON.stringify(logger)}
    const log = createWebhookLogger('info')
    for (let i = 0; i < 3; i++) log.info({ i }, 'line')
    log.fatal('cannot start')
    process.exit(3)
  `
  let stdout = ''
  let code = 0
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' })
  } catch (err) {
    code = (err as { status: number }).status
    stdout = String((err as { stdout: Buffer }).stdout)
  }
  t.equal(code, 3, 'the child exited through process.exit')
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i?: number; msg: string })
  t.same(
    lines.map((l) => l.i ?? l.msg),
    [0, 1, 2, 'cannot start'],
  )
})
