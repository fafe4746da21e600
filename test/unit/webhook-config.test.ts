// Webhook settings: defaults, environment, flags over environment, and
// refusals that stop the process at start.

import t from 'tap'
import { DEFAULT_WEBHOOK_CONFIG, parseWebhookConfig, WebhookConfigError, webhookUsage } from '../../src/webhook/config.ts'

t.test('defaults', async (t) => {
  const c = parseWebhookConfig([], {})
  t.same(c, DEFAULT_WEBHOOK_CONFIG)
  t.ok(Object.isFrozen(c))
})

t.test('environment, then flags on top', async (t) => {
  const env = {
    TEMPLATE_SYNC_WEBHOOK_CERT_DIR: '/certs',
    TEMPLATE_SYNC_WEBHOOK_PORT: '8443',
    TEMPLATE_SYNC_HEALTH_PORT: '9090',
    TEMPLATE_SYNC_OPERATOR_USERNAMES:
      ' system:serviceaccount:ts:reconciler , system:serviceaccount:ts:other,,system:serviceaccount:ts:reconciler',
    TEMPLATE_SYNC_LOG_LEVEL: 'debug',
    TEMPLATE_SYNC_WEBHOOK_DRAIN_SECONDS: '2.5',
    KUBECONFIG: '/ignored/by/the/parser',
  }
  const fromEnv = parseWebhookConfig([], env)
  t.equal(fromEnv.certDir, '/certs')
  t.equal(fromEnv.port, 8443)
  t.equal(fromEnv.healthPort, 9090)
  t.same(
    fromEnv.operatorUsernames,
    ['system:serviceaccount:ts:reconciler', 'system:serviceaccount:ts:other'],
    'trimmed, empty entries and duplicates dropped',
  )
  t.equal(fromEnv.logLevel, 'debug')
  t.equal(fromEnv.drainMs, 2_500)
  t.equal(fromEnv.kubeconfig, undefined, 'KUBECONFIG is left to the client loader')
  const flags = parseWebhookConfig(
    [
      '--cert-dir',
      '/flag-certs',
      '--port=9443',
      '--listen-address',
      '127.0.0.1',
      '--log-level',
      'warn',
      '--kubeconfig',
      '/kc',
      '--operator-usernames',
      'a,b',
    ],
    env,
  )
  t.equal(flags.certDir, '/flag-certs', 'flag wins')
  t.equal(flags.port, 9443)
  t.equal(flags.host, '127.0.0.1')
  t.equal(flags.healthHost, '127.0.0.1', 'health listens where the webhook listens unless told otherwise')
  t.equal(flags.healthPort, 9090, 'env kept where no flag is given')
  t.equal(flags.logLevel, 'warn')
  t.equal(flags.kubeconfig, '/kc')
  t.same(flags.operatorUsernames, ['a', 'b'])
})

t.test('invalid settings are refused with a reason', async (t) => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ['unknown flag', ['--nope', 'x'], {}, /Unknown option/],
    ['positional argument', ['extra'], {}, /positional/i],
    ['port not a number', ['--port', 'https'], {}, /port must be a port number/],
    ['port out of range', [], { TEMPLATE_SYNC_WEBHOOK_PORT: '70000' }, /port must be a port number/],
    ['negative health port', ['--health-port', '-1'], {}, /health port|argument/],
    ['log level', ['--log-level', 'verbose'], {}, /log level must be one of/],
    ['drain seconds', ['--drain-seconds', 'soon'], {}, /drain seconds/],
    ['drain too long', ['--drain-seconds', '9999'], {}, /drain seconds/],
  ]
  for (const [name, argv, env, message] of cases) {
    t.throws(() => parseWebhookConfig(argv, env), { name: 'WebhookConfigError', message }, name)
  }
  t.ok(new WebhookConfigError('x').code === 'WEBHOOK_CONFIG_INVALID')
  t.match(webhookUsage(), /--operator-usernames/)
  t.match(webhookUsage(), /TEMPLATE_SYNC_OPERATOR_USERNAMES/)
})

t.test('client certificates, pod cache, memory limit and connection cap', async (t) => {
  const c = parseWebhookConfig(
    [
      '--client-ca-file',
      '/ca/ca.crt',
      '--client-names',
      'kube-apiserver, apiserver.internal',
      '--pod-cache',
      'false',
      '--memory-limit',
      '256Mi',
    ],
    { TEMPLATE_SYNC_WEBHOOK_MAX_CONNECTIONS: '300' },
  )
  t.equal(c.clientCaFile, '/ca/ca.crt')
  t.strictSame(c.clientNames, ['kube-apiserver', 'apiserver.internal'])
  t.equal(c.podCache, false)
  t.equal(c.memoryLimitBytes, 256 * 1024 * 1024)
  t.equal(c.maxConnections, 300)
  t.equal(
    parseWebhookConfig([], { TEMPLATE_SYNC_WEBHOOK_MEMORY_LIMIT: '268435456' }).memoryLimitBytes,
    268435456,
    'bytes, as the downward API gives them',
  )
  for (const [argv, message] of [
    [['--client-names', 'x'], /needs --client-ca-file/],
    [['--pod-cache', 'yes'], /true or false/],
    [['--memory-limit', 'lots'], /byte count or a quantity/],
    [['--max-connections', '0'], /whole number/],
  ] as const) {
    t.throws(() => parseWebhookConfig([...argv], {}), { name: 'WebhookConfigError', message }, argv.join(' '))
  }
})
