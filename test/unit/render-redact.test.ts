// Values read from Secrets never leave through a message (src/render/redact.ts).

import t from 'tap'
import { REDACTED, redactValue, redactor, secretForms, withoutSecretData } from '../../src/render/redact.ts'

t.test('every form of a secret value is replaced, longest first', async (t) => {
  const redact = redactor(['hunter22'])
  const b64 = Buffer.from('hunter22').toString('base64')
  t.equal(
    redact('ConfigMap "x" is invalid: data.pw: Invalid value: "hunter22"'),
    `ConfigMap "x" is invalid: data.pw: Invalid value: "${REDACTED}"`,
  )
  t.equal(redact(`data.pw=${b64}`), `data.pw=${REDACTED}`)
  t.equal(redact('hunter22hunter22'), `${REDACTED}${REDACTED}`)
  t.equal(redact('nothing here'), 'nothing here')
})

t.test('Secret data read as base64 is also found decoded', async (t) => {
  const raw = Buffer.from('p@ssw0rd!').toString('base64')
  const redact = redactor([raw])
  t.equal(redact('value p@ssw0rd! leaked'), `value ${REDACTED} leaked`)
  t.equal(redact(`value ${raw}`), `value ${REDACTED}`)
})

t.test('composite values are searched leaf by leaf; short values are left alone', async (t) => {
  t.same(secretForms([{ a: ['longvalue', 'ab'] }]).includes('longvalue'), true)
  t.same(secretForms(['ab']), [])
  const redact = redactor([{ user: 'admin-user', pass: 'xyz' }])
  t.equal(redact('admin-user / xyz'), `${REDACTED} / xyz`)
})

t.test('redactValue copies a JSON value with strings and keys redacted', async (t) => {
  const redact = redactor(['s3cr3t-value'])
  const v = { out: { k: 'pre-s3cr3t-value-post', 's3cr3t-value': 'x' }, n: 1 }
  t.same(redactValue(v, redact), { out: { k: `pre-${REDACTED}-post`, [REDACTED]: 'x' }, n: 1 })
  t.equal(v.out.k, 'pre-s3cr3t-value-post', 'the input is not modified')
})

t.test('withoutSecretData drops data and stringData of v1 Secrets only', async (t) => {
  t.same(withoutSecretData({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { a: 'eA==' } }), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's' },
    type: 'Opaque',
  })
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'x' } }
  t.equal(withoutSecretData(cm), cm)
  t.equal(withoutSecretData(undefined), undefined)
})
