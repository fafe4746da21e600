// The reconciler's settings (the correction backoff cap, the render time
// limit, plain-HTTP chart registries): flag, environment variable, default,
// and a clear error for a bad value.

import t from 'tap'
import { parseReconcilerConfig, ReconcilerConfigError } from '../../src/reconciler/main.ts'

t.test('the cap defaults to 5 minutes', async (t) => {
  t.equal(parseReconcilerConfig([], {}).correctionBackoffMaxMs, 300_000)
})

t.test('the flag wins over the environment variable', async (t) => {
  t.equal(parseReconcilerConfig([], { TEMPLATE_SYNC_CORRECTION_BACKOFF_MAX_SECONDS: '60' }).correctionBackoffMaxMs, 60_000)
  t.equal(
    parseReconcilerConfig(['--correction-backoff-max-seconds', '2'], { TEMPLATE_SYNC_CORRECTION_BACKOFF_MAX_SECONDS: '60' })
      .correctionBackoffMaxMs,
    2000,
  )
})

t.test('a bad value names the flag and the value', async (t) => {
  for (const bad of ['0', '3601', '1.5', 'five']) {
    let err: unknown
    try {
      parseReconcilerConfig(['--correction-backoff-max-seconds', bad], {})
    } catch (e) {
      err = e
    }
    t.ok(err instanceof ReconcilerConfigError, `${bad}: a settings error`)
    t.equal(
      (err as Error | undefined)?.message,
      `--correction-backoff-max-seconds must be an integer in 1..3600, got ${JSON.stringify(bad)}`,
    )
  }
})

t.test('plain-HTTP chart registries: none by default, a comma-separated list from the flag or the environment', async (t) => {
  t.strictSame(parseReconcilerConfig([], {}).helmPlainHttpRegistries, [])
  t.strictSame(parseReconcilerConfig(['--helm-plain-http-registries', 'reg.local:5000, 127.0.0.1:5001,'], {}).helmPlainHttpRegistries, [
    'reg.local:5000',
    '127.0.0.1:5001',
  ])
  t.strictSame(parseReconcilerConfig([], { TEMPLATE_SYNC_HELM_PLAIN_HTTP_REGISTRIES: 'r:1' }).helmPlainHttpRegistries, ['r:1'])
})

t.test('the render time limit: 10 s by default, from the flag or the environment, 1..600 s', async (t) => {
  t.equal(parseReconcilerConfig([], {}).renderTimeoutMs, 10_000)
  t.equal(parseReconcilerConfig([], { TEMPLATE_SYNC_RENDER_TIMEOUT_SECONDS: '3' }).renderTimeoutMs, 3000)
  t.equal(parseReconcilerConfig(['--render-timeout-seconds', '30'], { TEMPLATE_SYNC_RENDER_TIMEOUT_SECONDS: '3' }).renderTimeoutMs, 30_000)
  for (const bad of ['0', '601', '2.5']) {
    t.throws(() => parseReconcilerConfig(['--render-timeout-seconds', bad], {}), {
      message: `--render-timeout-seconds must be an integer in 1..600, got ${JSON.stringify(bad)}`,
    })
  }
})
