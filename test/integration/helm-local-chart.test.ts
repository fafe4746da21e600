// `template-sync local` renders the project's own chart with our Helm engine
// instead of the helm binary. The real helm is the oracle here: for the
// values local uses, every object of `helm template --include-crds` equals
// ours, in the same order.

import t from 'tap'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCAL_CHART_DIR, LOCAL_CHART_RELEASE, LOCAL_KUBE_VERSION, localChartInput, SYSTEM_NAMESPACE } from '../../src/cli/local-system.ts'
import { renderChart } from '../../src/helm/render/index.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { clusterBin } from './helpers/helm-repos.ts'

const home = mkdtempSync(join(tmpdir(), 'ts-helm-local-chart-'))
t.teardown(() => rmSync(home, { recursive: true, force: true }))

function helmTemplate(set: Record<string, string>): unknown[] {
  const out = execFileSync(
    clusterBin('helm'),
    [
      'template',
      LOCAL_CHART_RELEASE,
      LOCAL_CHART_DIR,
      '--namespace',
      SYSTEM_NAMESPACE,
      '--kube-version',
      LOCAL_KUBE_VERSION,
      '--include-crds',
      ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${v}`]),
    ],
    { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home } },
  )
  return parseYamlStream(out).map((d) => d.value)
}

t.test("our render of charts/template-sync equals helm template's for the values local uses", async (t) => {
  const url = 'https://127.0.0.1:41234/validate'
  const caPem = '-----BEGIN CERTIFICATE-----\nMIIBlocal\n-----END CERTIFICATE-----\n'
  const input = await localChartInput(url, caPem)
  const ours = renderChart(input).objects.map((o) => o.object)
  const theirs = helmTemplate({ 'webhook.url': url, 'webhook.caBundle': Buffer.from(caPem).toString('base64') })
  t.ok(ours.length > 10, `${ours.length} objects`)
  t.strictSame(ours, theirs)
  const webhook = ours.find((o) => o['kind'] === 'ValidatingWebhookConfiguration') as { webhooks: { clientConfig: unknown }[] }
  t.strictSame(webhook.webhooks[0]?.clientConfig, { url, caBundle: Buffer.from(caPem).toString('base64') }, 'pointed at the local webhook')
})
