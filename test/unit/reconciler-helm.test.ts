// spec.helm at the reconciler's edges (src/reconciler/helm.ts) over a fake
// fetcher and Secret reader and the real engine on this thread: where each
// chart failure goes (SourceAccessible, Valid, ChartUnavailable with a
// retry), the auth Secret handed to the fetcher, the instance render, and the
// Template's dry run.

import t from 'tap'
import type { Template } from '../../src/api/template.ts'
import {
  ChartSourceCode,
  ChartSourceError,
  type ChartRequest,
  defaultCapabilities,
  type FetchedChart,
  loadChartFiles,
  renderChart,
} from '../../src/helm/index.ts'
import type { ChartFetcher } from '../../src/helm/source/fetcher.ts'
import {
  checkHelmSource,
  createHelmSupport,
  dryRunHelm,
  fetchTemplateChart,
  type HelmSupport,
  renderHelmTemplate,
  type SecretReader,
  validateHelmSpec,
} from '../../src/reconciler/helm.ts'
import { inlineTemplateRunner } from '../../src/render/template-job.ts'
import type { DryRunCheck } from '../../src/controller/pipeline.ts'
import type { KubeClient } from '../../src/kube/client.ts'

const repository = { url: 'https://charts.example.com/stable', name: 'web', version: '1.2.0' }
const ref = repository

function template(helm: Partial<NonNullable<Template['spec']['helm']>> = {}, extra: Partial<Template['spec']> = {}): Template {
  return {
    metadata: { name: 'web', namespace: 'platform', uid: 'u1', generation: 1 },
    spec: { helm: { chart: { repository }, ...helm }, ...extra },
  }
}

const chart = await loadChartFiles(
  [
    { name: 'Chart.yaml', data: Buffer.from('apiVersion: v2\nname: web\nversion: 1.2.0\n') },
    { name: 'values.yaml', data: Buffer.from('color: blue\n') },
    { name: 'values.schema.json', data: Buffer.from('{"properties":{"color":{"enum":["blue","green"]}}}') },
    {
      name: 'templates/cm.yaml',
      data: Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  color: {{ .Values.color }}\n'),
    },
    {
      name: 'templates/hook.yaml',
      data: Buffer.from('apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations: {"helm.sh/hook": test}\n'),
    },
  ],
  { helm: 'v3' },
)
const fetched: FetchedChart = { chart, digest: 'sha256:abc', ref, cached: false }

function fetcher(answer: (req: ChartRequest) => FetchedChart): ChartFetcher & { requests: ChartRequest[] } {
  const requests: ChartRequest[] = []
  return {
    requests,
    fetchChart: async (req) => {
      requests.push(req)
      return answer(req)
    },
  }
}

const noSecrets: SecretReader = async () => 'not-found'

t.test('the auth Secret is read from the Template namespace and handed to the fetcher', async (t) => {
  const reads: string[] = []
  const f = fetcher(() => fetched)
  const readSecret: SecretReader = async (ns, name) => {
    reads.push(`${ns}/${name}`)
    return { username: 'dXNlcg==', password: 'cHc=' }
  }
  const got = await fetchTemplateChart(
    template({ version: 'v4', chart: { repository: { ...repository, auth: { secretRef: { name: 'creds' } } } } }),
    f,
    readSecret,
  )
  t.ok(got.ok)
  t.strictSame(reads, ['platform/creds'])
  t.strictSame(f.requests[0], {
    repository: { ...repository, auth: { secretRef: { name: 'creds' } } },
    helm: 'v4',
    auth: { name: 'platform/creds', data: { username: 'dXNlcg==', password: 'cHc=' } },
  })
  const anonymous = fetcher(() => fetched)
  await fetchTemplateChart(template(), anonymous, noSecrets)
  t.strictSame(anonymous.requests[0], { repository, helm: 'v3' }, 'no auth: no Secret read, no credentials')
})

t.test('a missing or unreadable auth Secret is SourceAccessible, named without any value', async (t) => {
  const withAuth = template({ chart: { repository: { ...repository, auth: { secretRef: { name: 'creds' } } } } })
  t.strictSame(
    await fetchTemplateChart(
      withAuth,
      fetcher(() => fetched),
      noSecrets,
    ),
    {
      ok: false,
      condition: 'SourceAccessible',
      message:
        'chart web 1.2.0 from https://charts.example.com/stable: auth Secret platform/creds (spec.helm.chart.repository.auth.secretRef) not found',
    },
  )
  t.match(
    await fetchTemplateChart(
      withAuth,
      fetcher(() => fetched),
      async () => 'forbidden',
    ),
    {
      ok: false,
      condition: 'SourceAccessible',
      message: /auth Secret platform\/creds .* may not be read by template-sync: grant it get on secrets/,
    },
  )
})

t.test('fetcher failures keep their condition and message', async (t) => {
  for (const [code, condition] of [
    [ChartSourceCode.Unreachable, 'SourceAccessible'],
    [ChartSourceCode.Unauthorized, 'SourceAccessible'],
    [ChartSourceCode.VersionNotFound, 'Valid'],
    [ChartSourceCode.BadArchive, 'Valid'],
  ] as const) {
    const f = fetcher(() => {
      throw new ChartSourceError(code, ref, 'detail')
    })
    t.strictSame(await fetchTemplateChart(template(), f, noSecrets), {
      ok: false,
      condition,
      message: 'https://charts.example.com/stable chart web version 1.2.0: detail',
    })
  }
  const broken = fetcher(() => {
    throw new Error('a bug')
  })
  await t.rejects(fetchTemplateChart(template(), broken, noSecrets), /a bug/, 'other errors propagate (the reconcile is retried)')
})

function support(chartFor: HelmSupport['chartFor']): HelmSupport & { renders: number } {
  const s = {
    renders: 0,
    chartFor,
    capabilities: async () => defaultCapabilities(),
    render: async (i: Parameters<typeof renderChart>[0]) => {
      s.renders++
      return renderChart(i)
    },
    runTemplate: inlineTemplateRunner(),
    retryMs: 60_000,
    limits: { timeMs: 10_000 },
    close: async () => {},
  }
  return s
}

const instance = { metadata: { name: 'app1', namespace: 'team-a', labels: {} } }
const scope = { namespaced: () => true }

t.test('an instance render: the chart objects, namespaced, hooks left out', async (t) => {
  const helm = support(async () => ({ ok: true, fetched }))
  const skipped: string[] = []
  const r = await renderHelmTemplate(
    helm,
    template({ valuesTemplate: 'color: {{ .parameters.c }}' }),
    instance,
    { c: 'green' },
    scope,
    (s) => skipped.push(...s.map((x) => x.template)),
  )
  t.strictSame(r, {
    ok: true,
    objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app1', namespace: 'team-a' }, data: { color: 'green' } }],
  })
  t.strictSame(skipped, ['web/templates/hook.yaml'])
})

t.test('an unavailable chart is Rendered=False/ChartUnavailable, retried after retryMs', async (t) => {
  const helm = support(async () => ({
    ok: false,
    condition: 'SourceAccessible',
    message: 'https://charts.example.com/stable chart web version 1.2.0: unreachable',
  }))
  t.strictSame(await renderHelmTemplate(helm, template(), instance, {}, scope), {
    ok: false,
    reason: 'ChartUnavailable',
    message: 'https://charts.example.com/stable chart web version 1.2.0: unreachable',
    retryAfterMs: 60_000,
  })
})

t.test('a values schema violation and a valuesTemplate parse error are TemplateExecutionFailed', async (t) => {
  const helm = support(async () => ({ ok: true, fetched }))
  const r = await renderHelmTemplate(helm, template({ valuesTemplate: 'color: red' }), instance, {}, scope)
  t.match(r, {
    ok: false,
    reason: 'TemplateExecutionFailed',
    message: /^chart web 1\.2\.0 from https:\/\/charts\.example\.com\/stable: values don't meet the specifications/,
  })
  const p = await renderHelmTemplate(helm, template({ valuesTemplate: '{{ end }}' }), instance, {}, scope)
  t.strictSame(p, { ok: false, reason: 'TemplateExecutionFailed', message: 'template: spec.helm.valuesTemplate:1: unexpected {{end}}' })
})

t.test('Valid: the valuesTemplate must parse', async (t) => {
  const helm = support(async () => ({ ok: true, fetched }))
  t.strictSame(await validateHelmSpec(helm, template({ valuesTemplate: 'a: {{ .x' })), {
    ok: false,
    reason: 'ValidationFailed',
    message: 'template: spec.helm.valuesTemplate:1: unclosed action',
  })
  t.strictSame(await validateHelmSpec(helm, template()), { ok: true })
})

t.test('SourceAccessible: the fetched chart and its digest, or the failure with its retry', async (t) => {
  t.strictSame(
    await checkHelmSource(
      support(async () => ({ ok: true, fetched })),
      template(),
    ),
    {
      ok: true,
      message: 'chart web 1.2.0 from https://charts.example.com/stable: fetched (sha256:abc)',
    },
  )
  t.strictSame(
    await checkHelmSource(
      support(async () => ({ ok: false, condition: 'Valid', message: 'no version' })),
      template(),
    ),
    {
      ok: false,
      condition: 'Valid',
      message: 'no version',
      retryAfterMs: 60_000,
    },
  )
})

t.test('the dry run: literal defaults, skipped without them, a schema violation on Valid, memoized per generation', async (t) => {
  const helm = support(async () => ({ ok: true, fetched }))
  const memo = new Map<string, DryRunCheck>()
  const params = { parameters: [{ name: 'c', value: 'green' }] }
  t.strictSame(await dryRunHelm(helm, template({ valuesTemplate: 'color: {{ .parameters.c }}' }, params), memo), { ok: true })
  t.equal(helm.renders, 1)
  t.strictSame(await dryRunHelm(helm, template({ valuesTemplate: 'color: {{ .parameters.c }}' }, params), memo), { ok: true })
  t.equal(helm.renders, 1, 'the same generation and chart digest render once')
  t.equal(
    await dryRunHelm(helm, template({ valuesTemplate: 'color: {{ .parameters.c }}' }, { parameters: [{ name: 'c' }] }), new Map()),
    'skipped',
  )
  t.strictSame(
    await dryRunHelm(helm, template({}, { parameters: [{ name: 'c' }] }), new Map()),
    { ok: true },
    'no valuesTemplate: parameters do not matter',
  )
  const bad = await dryRunHelm(helm, template({ valuesTemplate: 'color: red' }), new Map())
  t.match(bad, { ok: false, condition: 'Valid', reason: 'ValidationFailed', message: /values don't meet the specifications/ })
  const failing = await dryRunHelm(helm, template({ valuesTemplate: '{{ fail "nope" }}' }), new Map())
  t.match(failing, { ok: false, condition: 'DryRunRendered', reason: 'RenderFailed', message: /nope/ })
})

t.test('createHelmSupport retries an unavailable chart every 60 s unless told otherwise', async (t) => {
  const client = {} as KubeClient
  const renderer = {
    render: async () => ({ objects: [], skipped: [] }),
    runTemplate: inlineTemplateRunner(),
    workers: () => 0,
    close: async () => {},
  }
  t.equal(createHelmSupport({ client, renderer }).retryMs, 60_000)
  t.equal(createHelmSupport({ client, renderer, retryMs: 1000 }).retryMs, 1000)
})
