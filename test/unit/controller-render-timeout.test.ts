// Where a render stopped at the time limit is reported
// (docs/render-time-limit.md): the Template validator makes it Valid=False
// and DryRunRendered=False with reason RenderTimeout, the Template
// reconcile writes both, an instance's render is Rendered=False/RenderTimeout
// and is not run again for the same inputs. Go templates run on this thread
// here (the inline runner), with a short limit; the pool is tested on its own.

import t from 'tap'
import pino from 'pino'
import { FINALIZER_TEMPLATE } from '../../src/api/names.ts'
import type { Template } from '../../src/api/template.ts'
import type { TemplateInstance } from '../../src/api/templateinstance.ts'
import { DEFAULT_FIGHT_OPTIONS } from '../../src/apply/fight.ts'
import type { RenderOutcome, RenderPipeline, TemplateValidator } from '../../src/controller/pipeline.ts'
import { newMemory } from '../../src/controller/instance/memory.ts'
import { InstanceRecord } from '../../src/controller/instance/record.ts'
import { renderObjects } from '../../src/controller/instance/render.ts'
import type { WatchRegistry } from '../../src/controller/registry.ts'
import { TemplateReconciler } from '../../src/controller/template.ts'
import { defaultCapabilities } from '../../src/helm/index.ts'
import type { KubeClient } from '../../src/kube/client.ts'
import { dryRunFailure, type HelmSupport } from '../../src/reconciler/helm.ts'
import { createRenderPipeline, createTemplateValidator, gotemplateFailure } from '../../src/reconciler/wiring.ts'
import { inlineTemplateRunner, type TemplateRunner } from '../../src/render/template-job.ts'

const SLOW = '{{ range $i := until 400000 }}{{ $s := repeat 20000 "ab" | sha256sum }}{{ end }}'
const LIMIT = 200
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .instance.name }}}\n'

function template(gotemplate: string, extra: Partial<Template['spec']> = {}, generation = 1): Template {
  return { metadata: { name: 'slow', namespace: 'platform', uid: 'u1', generation }, spec: { gotemplate, ...extra } }
}

/** The render side of HelmSupport over the inline runner, counting the jobs it runs. */
function support(): HelmSupport & { jobs: string[] } {
  const inline = inlineTemplateRunner()
  const jobs: string[] = []
  const runTemplate: TemplateRunner = (job) => {
    jobs.push(job.kind)
    return inline(job)
  }
  return {
    jobs,
    chartFor: async () => ({ ok: false, condition: 'SourceAccessible', message: 'no charts here' }),
    capabilities: async () => defaultCapabilities(),
    render: async () => ({ objects: [], skipped: [] }),
    runTemplate,
    retryMs: 60_000,
    limits: { timeMs: LIMIT },
    close: async () => {},
  }
}

const TIMEOUT_MESSAGE =
  /^Template platform\/slow did not render within the time limit of 0\.2 s \(reconciler --render-timeout-seconds\) and was stopped: template: slow:1:59: executing "slow" at <sha256sum>: execution exceeded its time limit$/

t.test('a dry run over the limit makes the Template invalid, once per generation', async (t) => {
  const helm = support()
  const validator = createTemplateValidator(helm)
  const slow = template(SLOW)
  t.strictSame(await validator.validate(slow), { ok: true }, 'it parses')
  t.match(await validator.dryRun(slow), { ok: false, condition: 'Valid', reason: 'RenderTimeout', message: TIMEOUT_MESSAGE })
  const runs = helm.jobs.filter((k) => k === 'manifests').length
  t.match(await validator.dryRun(slow), { reason: 'RenderTimeout' })
  t.equal(helm.jobs.filter((k) => k === 'manifests').length, runs, 'a status-only update renders nothing again')
  t.equal(await validator.dryRun(template(SLOW, { parameters: [{ name: 'p' }] }, 5)), 'skipped', 'without literal defaults, no dry run')
  t.match(await validator.dryRun(template('{{ fail "no" }}', {}, 2)), { ok: false, condition: 'DryRunRendered', reason: 'RenderFailed' })
  t.strictSame(await validator.dryRun(template(CM, {}, 3)), { ok: true })
  t.match(await validator.validate(template('{{ if }}', {}, 4)), { ok: false, reason: 'ValidationFailed', message: /^template: slow:1:/ })
})

t.test('an instance render over the limit is Rendered=False/RenderTimeout naming the Template and the limit', async (t) => {
  const pipeline = createRenderPipeline({} as KubeClient, support())
  const inst: TemplateInstance = {
    metadata: { name: 'app1', namespace: 'team-a', uid: 'i1', generation: 1 },
    spec: { templateRef: { name: 'slow', namespace: 'platform' } },
  }
  t.match(await pipeline.render(template(SLOW), inst, {}), { ok: false, reason: 'RenderTimeout', message: TIMEOUT_MESSAGE })
})

t.test('failures map to reasons: a time-out to RenderTimeout everywhere, others as before', async (t) => {
  t.strictSame(dryRunFailure('RenderTimeout', 'm'), { ok: false, condition: 'Valid', reason: 'RenderTimeout', message: 'm' })
  t.strictSame(dryRunFailure('TemplateExecutionFailed', 'm'), {
    ok: false,
    condition: 'DryRunRendered',
    reason: 'RenderFailed',
    message: 'm',
  })
  const tpl = template(SLOW)
  t.strictSame(gotemplateFailure(tpl, 1500, { ok: false, reason: 'TemplateExecutionFailed', message: 'bad' }), {
    ok: false,
    reason: 'TemplateExecutionFailed',
    message: 'bad',
  })
  t.strictSame(gotemplateFailure(tpl, 1500, { ok: false, reason: 'RenderTimeout', message: 'where' }), {
    ok: false,
    reason: 'RenderTimeout',
    message:
      'Template platform/slow did not render within the time limit of 1.5 s (reconciler --render-timeout-seconds) and was stopped: where',
  })
})

t.test('the Template reconcile writes Valid=False and DryRunRendered=False with RenderTimeout, and warns', async (t) => {
  const patches: { path: string; body: unknown }[] = []
  const client = {
    request: async (_method: string, path: string, opts: { body: unknown }) => {
      patches.push({ path, body: opts.body })
      return {}
    },
  } as unknown as KubeClient
  const tpl: Template = { ...template(SLOW), metadata: { ...template(SLOW).metadata, finalizers: [FINALIZER_TEMPLATE] } }
  const validator: TemplateValidator = {
    validate: async () => ({ ok: true }),
    checkSource: async () => undefined,
    dryRun: async () => dryRunFailure('RenderTimeout', 'Template platform/slow did not render within ...'),
  }
  const warnings: string[] = []
  const r = new TemplateReconciler({
    client,
    getTemplate: () => tpl,
    instancesUsing: () => [],
    grantRefusals: () => [],
    validator,
    events: { normal: () => {}, warning: (_o, reason) => warnings.push(reason) },
    now: () => new Date('2026-01-01T00:00:00Z'),
  })
  await r.reconcile('platform', 'slow')
  const written = patches.at(-1)?.body as { status?: { conditions?: { type: string; status: string; reason: string }[] } } | undefined
  const status = written?.status
  const byType = Object.fromEntries((status?.conditions ?? []).map((c) => [c.type, [c.status, c.reason]]))
  t.strictSame(byType.Valid, ['False', 'RenderTimeout'])
  t.strictSame(byType.DryRunRendered, ['False', 'RenderTimeout'])
  t.strictSame(warnings, ['RenderTimeout'])
})

t.test('an instance whose render timed out is not rendered again for the same inputs', async (t) => {
  let renders = 0
  const timedOut: RenderOutcome = { ok: false, reason: 'RenderTimeout', message: 'Template platform/slow did not render within ...' }
  const pipeline = {
    resolveParameters: async () => ({ ok: true, values: {}, resolved: [], sources: [], withheld: [], secretValues: [] }),
    render: async () => {
      renders++
      return renders > 2 ? { ok: true, objects: [] } : timedOut
    },
  } as unknown as RenderPipeline
  const deps = { pipeline, sources: { setOwnerKeys: () => {} } as unknown as WatchRegistry }
  const memory = newMemory('i1')
  const pass = async (generation: number) => {
    const inst: TemplateInstance = {
      metadata: { name: 'app1', namespace: 'team-a', uid: 'i1', generation },
      spec: { templateRef: { name: 'slow', namespace: 'platform' } },
    }
    const record = new InstanceRecord(
      {
        client: {} as KubeClient,
        events: { normal: () => {}, warning: () => {} },
        log: pino({ level: 'silent' }),
        fight: DEFAULT_FIGHT_OPTIONS,
      },
      inst,
      memory.record,
      new Date(),
    )
    const out = await renderObjects(deps, { key: 'team-a/app1', inst, template: template(SLOW), mode: 'revert' }, memory, record)
    return { ok: out.ok, rendered: record.conditions.find((c) => c.type === 'Rendered') }
  }
  t.match(await pass(1), { ok: false, rendered: { status: 'False', reason: 'RenderTimeout' } })
  t.match(await pass(1), { ok: false, rendered: { status: 'False', reason: 'RenderTimeout' } }, 'reported again')
  t.equal(renders, 1, 'without running it again')
  t.match(await pass(2), { ok: false, rendered: { reason: 'RenderTimeout' } })
  t.equal(renders, 2, 'new inputs (a new instance generation) render again')
  t.match(await pass(3), { ok: true, rendered: { status: 'True' } })
})
