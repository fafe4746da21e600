// spec.helm.valuesTemplate: the gotemplate context, one YAML mapping, and
// every failure with the line that caused it.

import t from 'tap'
import { renderValuesTemplate, type ValuesTemplateResult } from '../../src/render/values-template.ts'

const instance = { metadata: { name: 'app1', namespace: 'team-a', labels: { tier: 'web' } } }

function run(text: string | undefined, values: Record<string, string> = {}): ValuesTemplateResult {
  return renderValuesTemplate({ text, instance, values })
}

function message(r: ValuesTemplateResult): string {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.values)}`)
  t.equal(r.reason, 'TemplateExecutionFailed')
  return r.message
}

t.test('renders a mapping over .parameters and .instance, decoded as Helm decodes values files', async (t) => {
  const r = run(
    [
      'fullnameOverride: {{ .instance.name }}',
      'namespaceLabel: {{ .instance.namespace }}',
      'tier: {{ .instance.labels.tier }}',
      'replicaCount: {{ .parameters.replicas }}',
      'image:',
      '  tag: {{ .parameters.tag | quote }}',
      'enabled: yes',
      'mode: 0755',
    ].join('\n'),
    { replicas: '3', tag: '1.10' },
  )
  t.ok(r.ok)
  if (!r.ok) return
  t.strictSame(r.values, {
    fullnameOverride: 'app1',
    namespaceLabel: 'team-a',
    tier: 'web',
    replicaCount: 3,
    image: { tag: '1.10' },
    enabled: true,
    mode: 493,
  })
})

t.test('no valuesTemplate, an empty output and a comment-only output are no values', async (t) => {
  for (const text of [undefined, '', '{{- /* nothing */ -}}', '# only a comment\n', '---\n']) {
    const r = run(text)
    t.ok(r.ok, JSON.stringify(text))
    if (r.ok) t.strictSame(r.values, {})
  }
})

t.test('a parse error names the field and the line', async (t) => {
  t.equal(message(run('a: 1\nb: {{ end }}\n')), 'template: spec.helm.valuesTemplate:2: unexpected {{end}}')
})

t.test('an execution error names the field, the line and the action', async (t) => {
  t.match(message(run('a: 1\n\nb: {{ .parameters.missing.key }}\n')), /^template: spec\.helm\.valuesTemplate:3:\d+: executing /)
  t.match(message(run('a: {{ fail "no" }}')), /^template: spec\.helm\.valuesTemplate:1:\d+: .*no/)
})

t.test('invalid YAML names the line of the rendered output', async (t) => {
  t.equal(message(run('a: 1\nb: [\n')), 'spec.helm.valuesTemplate rendered invalid YAML: line 3: deficient indentation')
  t.equal(message(run('a: 1\n  b: 2\n')), 'spec.helm.valuesTemplate rendered invalid YAML: line 2: bad indentation of a mapping entry')
})

t.test('a list or a scalar is not a mapping, with the line it starts on', async (t) => {
  t.equal(message(run('# values\n\n- a\n- b\n')), 'spec.helm.valuesTemplate must render a YAML mapping; it rendered a list at line 3')
  t.equal(message(run('{{ .instance.name }}')), 'spec.helm.valuesTemplate must render a YAML mapping; it rendered a string at line 1')
  t.equal(message(run('42')), 'spec.helm.valuesTemplate must render a YAML mapping; it rendered a number at line 1')
})

t.test('more than one document is refused rather than read differently by Helm 3 and 4', async (t) => {
  t.equal(
    message(run('a: 1\n---\n# second\nb: 2\n')),
    'spec.helm.valuesTemplate must render one YAML mapping; it rendered 2 documents (the second starts at line 4)',
  )
})
