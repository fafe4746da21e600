// The DER and PEM helpers shared by the webhook's certificates and Sprig's
// certificate functions.

import t from 'tap'
import * as der from '../../src/encoding/der.ts'
import { decodePem, toPem } from '../../src/encoding/pem.ts'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

t.test("integers in minimal two's complement", async (t) => {
  t.equal(hex(der.integer(0n)), '020100')
  t.equal(hex(der.integer(127n)), '02017f')
  t.equal(hex(der.integer(128n)), '02020080')
  t.equal(hex(der.integer(-1n)), '0201ff')
  t.equal(hex(der.integer(-129n)), '0202ff7f')
  t.equal(hex(der.unsignedInteger(new Uint8Array())), '020100', 'an empty magnitude is zero')
  for (const v of [0n, 1n, -1n, 255n, -256n, 2n ** 70n, -(2n ** 70n) + 1n]) {
    t.equal(der.toBigInt(der.only(der.integer(v)).body), v, `round trip ${v}`)
  }
  t.throws(() => der.smallInteger(-1), der.DerError)
})

t.test('strings and times as encoding/asn1 marshals them', async (t) => {
  t.equal(der.printableOrUtf8String('web.example')[0], der.Tag.printableString)
  t.equal(der.printableOrUtf8String('a_b')[0], der.Tag.utf8String, 'underscore is not printable')
  t.equal(der.printableOrUtf8String('ü')[0], der.Tag.utf8String)
  t.equal(Buffer.from(der.time(new Date('1950-01-01T00:00:00Z')).subarray(2)).toString(), '500101000000Z')
  t.equal(Buffer.from(der.time(new Date('1949-12-31T23:59:59.999Z')).subarray(2)).toString(), '19491231235959Z')
  t.equal(Buffer.from(der.time(new Date('2050-01-01T00:00:00Z')).subarray(2)).toString(), '20500101000000Z')
  t.throws(() => der.time(new Date('+010000-01-01T00:00:00Z')), /four digits/)
})

t.test('reading elements checks every length against the input', async (t) => {
  const seq = der.sequence(der.smallInteger(1), der.utf8String('x'), der.nullValue())
  const top = der.only(seq)
  t.equal(top.tag, der.Tag.sequence)
  t.strictSame(
    der.children(top.body).map((n) => n.tag),
    [der.Tag.integer, der.Tag.utf8String, der.Tag.null],
  )
  t.equal(hex(der.children(top.body)[1]?.raw ?? new Uint8Array()), '0c0178')
  t.throws(() => der.only(Buffer.concat([seq, seq])), /exactly one element/)
  t.throws(() => der.children(Uint8Array.of(0x30, 0x05, 0x01)), /past the end/)
  t.throws(() => der.children(Uint8Array.of(0x30, 0x85, 1, 1, 1, 1, 1)), /unsupported length/)
  t.throws(() => der.children(Uint8Array.of(0x30)), /truncated/)
})

t.test('PEM blocks as encoding/pem writes and reads them', async (t) => {
  t.equal(toPem('X', new Uint8Array()), '-----BEGIN X-----\n-----END X-----\n', 'an empty body has no blank line')
  const block = toPem('CERTIFICATE', Buffer.alloc(100, 7))
  t.strictSame(decodePem(`junk\n${block}`), { type: 'CERTIFICATE', der: Uint8Array.from(Buffer.alloc(100, 7)) })
  t.equal(decodePem('-----BEGIN X-----\n!!!\n-----END X-----\n'), undefined, 'not base64')
  t.equal(decodePem('no block'), undefined)
})
