// The render time limit's pure parts (src/render/time-limit.ts,
// src/render/template-job.ts): how a stop is recognised, how it reads, and
// that every kind of job stops at its deadline as a RenderTimeout outcome.

import t from 'tap'
import { ExecError } from '../../src/gotemplate/index.ts'
import { HelmRenderError } from '../../src/helm/index.ts'
import { inlineTemplateRunner, jobInstance, ParseCache, runTemplateJob, type TemplateJob } from '../../src/render/template-job.ts'
import {
  chartTimedOut,
  DEFAULT_RENDER_TIMEOUT_MS,
  formatLimit,
  isTimeLimit,
  renderTimeoutMessage,
  templateSubject,
} from '../../src/render/time-limit.ts'

const instance = jobInstance({ metadata: { name: 'app1', namespace: 'team-a', labels: { tier: 'web' } } })
/** A clock whose "now" is long past: any deadline it sets has passed at the engine's first check. */
const past = (): number => -1e12
const LOOP = '{{ range $i := until 5000 }}{{ $i }}{{ end }}'

function execError(code: ExecError['code']): ExecError {
  return new ExecError({ code, templateName: 't', executing: 't', line: 1, column: 2, action: 'x', detail: 'd' })
}

t.test('the default limit is 10 s, as charts had before', async (t) => {
  t.equal(DEFAULT_RENDER_TIMEOUT_MS, 10_000)
})

t.test('limits read in seconds', async (t) => {
  t.equal(formatLimit(10_000), '10 s')
  t.equal(formatLimit(2500), '2.5 s')
  t.equal(formatLimit(250), '0.25 s')
})

t.test('only the engine`s time limit is a time-out of a Go template', async (t) => {
  t.ok(isTimeLimit(execError('TEMPLATE_TIME_LIMIT')))
  t.notOk(isTimeLimit(execError('TEMPLATE_RANGE_LIMIT')), 'another limit is a failure of the template')
  t.notOk(isTimeLimit(execError('TEMPLATE_EXEC')))
  t.notOk(isTimeLimit(new Error('execution exceeded its time limit')), 'never by the text of a message')
})

t.test('a chart is timed out when a limit stopped it after its whole time limit', async (t) => {
  const limit = new HelmRenderError('Limit', 'rendering took longer than the limit of 100 ms')
  t.ok(chartTimedOut(limit, 100, 100))
  t.ok(chartTimedOut(limit, 5000, 100))
  t.notOk(chartTimedOut(limit, 99, 100), 'another limit, reached early')
  t.notOk(chartTimedOut(new HelmRenderError('TemplateExec', 'boom'), 5000, 100), 'a template error, however slow')
  t.notOk(chartTimedOut(new Error('x'), 5000, 100))
})

t.test('the message names what did not render, the limit and the flag, then where it was', async (t) => {
  t.equal(templateSubject({ metadata: { namespace: 'platform', name: 'slow' } }), 'Template platform/slow')
  t.equal(
    renderTimeoutMessage(
      'Template platform/slow',
      10_000,
      'template: slow:1:59: executing "slow" at <sha256sum>: execution exceeded its time limit',
    ),
    'Template platform/slow did not render within the time limit of 10 s (reconciler --render-timeout-seconds) and was stopped: ' +
      'template: slow:1:59: executing "slow" at <sha256sum>: execution exceeded its time limit',
  )
  t.equal(
    renderTimeoutMessage('Template platform/web: spec.helm.valuesTemplate', 2000, ''),
    'Template platform/web: spec.helm.valuesTemplate did not render within the time limit of 2 s (reconciler --render-timeout-seconds) and was stopped',
  )
})

t.test('every job kind with an execution stops at its deadline as a RenderTimeout outcome', async (t) => {
  const cache = new ParseCache()
  const jobs: TemplateJob[] = [
    { kind: 'manifests', name: 'loop', text: LOOP, instance, values: {}, timeMs: 1000 },
    { kind: 'values', text: `a: ${LOOP}`, instance, values: {}, timeMs: 1000 },
  ]
  for (const job of jobs) {
    const out = runTemplateJob(job, cache, past)
    t.match(out, { ok: false, reason: 'RenderTimeout', message: /execution exceeded its time limit$/ }, job.kind)
    t.match(runTemplateJob(job, cache), { ok: true }, `${job.kind}: within the limit, the same job is no time-out`)
  }
  t.strictSame(
    runTemplateJob({ kind: 'parse', name: 'loop', text: LOOP, timeMs: 1000 }, cache, past),
    { ok: true },
    'a parse has no deadline',
  )
})

t.test('a job renders as the template engine does, and fails as a value', async (t) => {
  const cache = new ParseCache()
  const cm = 'kind: ConfigMap\nmetadata: {name: {{ .instance.name }}}\ndata: {t: {{ .instance.labels.tier }}, v: {{ .parameters.v }}}\n'
  t.strictSame(runTemplateJob({ kind: 'manifests', name: 'web', text: cm, instance, values: { v: 'x' }, timeMs: 1000 }, cache), {
    ok: true,
    documents: [{ document: 1, line: 1, value: { kind: 'ConfigMap', metadata: { name: 'app1' }, data: { t: 'web', v: 'x' } } }],
  })
  t.strictSame(runTemplateJob({ kind: 'values', text: 'count: {{ .parameters.n }}', instance, values: { n: '3' }, timeMs: 1000 }, cache), {
    ok: true,
    values: { count: 3 },
  })
  t.strictSame(runTemplateJob({ kind: 'parse', name: 'web', text: '{{ end }}', timeMs: 1000 }, cache), {
    ok: false,
    reason: 'TemplateExecutionFailed',
    message: 'template: web:1: unexpected {{end}}',
  })
  t.match(runTemplateJob({ kind: 'manifests', name: 'web', text: '{{ .parameters.x }}', instance, values: {}, timeMs: 1000 }, cache), {
    ok: false,
    reason: 'TemplateExecutionFailed',
    message: /map has no entry for key "x"/,
  })
  t.strictSame(
    await inlineTemplateRunner()({ kind: 'manifests', name: 'web', text: cm, instance, values: { v: 'x' }, timeMs: 1000 }),
    runTemplateJob({ kind: 'manifests', name: 'web', text: cm, instance, values: { v: 'x' }, timeMs: 1000 }, cache),
    'the inline runner is the same run',
  )
})

t.test('parsed templates are kept by name and text, least recently used dropped first', async (t) => {
  const cache = new ParseCache(2)
  const a = cache.get('a', 'A')
  t.equal(cache.get('a', 'A'), a, 'the same parse')
  const b = cache.get('b', 'A')
  t.not(b, a, 'the name is part of the key: messages carry it')
  t.equal(b.name, 'b')
  cache.get('a', 'A')
  cache.get('c', 'C')
  t.equal(cache.get('a', 'A'), a, 'used last, kept')
  t.not(cache.get('b', 'A'), b, 'the least recently used was dropped and is parsed again')
})

t.test('the instance a job carries is plain data: name, namespace and labels only', async (t) => {
  t.strictSame(jobInstance({ metadata: { name: 'i', namespace: 'n', labels: { a: 'b' }, uid: 'u', annotations: { x: 'y' } } }), {
    metadata: { name: 'i', namespace: 'n', labels: { a: 'b' } },
  })
  t.strictSame(jobInstance({}), { metadata: { name: '', namespace: '', labels: {} } })
})
