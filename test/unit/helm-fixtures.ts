// Building chart archives byte by byte for the loader tests: a small tar
// writer (ustar headers, pax records for long names) and gzip, so each test
// can make exactly the hostile entry it is about.

import { createGzip, gzipSync } from 'node:zlib'

export interface TarSpec {
  readonly name: string
  /** Tar type flag; default '0' (regular file). */
  readonly type?: string
  readonly data?: string | Buffer
  readonly linkName?: string
  /** Declared size when it should differ from the data (lying headers). */
  readonly size?: number
  readonly mode?: number
}

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`
}

export function tarHeader(spec: TarSpec, size: number): Buffer {
  const h = Buffer.alloc(512)
  h.write(spec.name.slice(0, 100), 0, 'utf8')
  h.write(octal(spec.mode ?? 0o644, 8), 100, 'latin1')
  h.write(octal(0, 8), 108, 'latin1')
  h.write(octal(0, 8), 116, 'latin1')
  h.write(octal(size, 12), 124, 'latin1')
  h.write(octal(0, 12), 136, 'latin1')
  h.write('        ', 148, 'latin1')
  h.write(spec.type ?? '0', 156, 'latin1')
  h.write((spec.linkName ?? '').slice(0, 100), 157, 'utf8')
  h.write('ustar\0', 257, 'latin1')
  h.write('00', 263, 'latin1')
  let sum = 0
  for (const b of h) sum += b
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1')
  return h
}

function pad(data: Buffer): Buffer {
  const rest = data.length % 512
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(512 - rest)])
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`
  let len = body.length + 1
  while (String(len).length + body.length !== len) len = String(len).length + body.length
  return `${len}${body}`
}

/** An uncompressed tar stream; names over 100 bytes get a pax header. */
export function tar(entries: readonly TarSpec[], opts: { end?: boolean } = {}): Buffer {
  const parts: Buffer[] = []
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0))
    if (Buffer.byteLength(e.name) > 100 || Buffer.byteLength(e.linkName ?? '') > 100) {
      const pax = Buffer.from(paxRecord('path', e.name) + (e.linkName ? paxRecord('linkpath', e.linkName) : ''))
      parts.push(tarHeader({ name: 'PaxHeader', type: 'x' }, pax.length), pad(pax))
    }
    parts.push(tarHeader(e, e.size ?? data.length), pad(data))
  }
  if (opts.end !== false) parts.push(Buffer.alloc(1024))
  return Buffer.concat(parts)
}

export function tgz(entries: readonly TarSpec[]): Buffer {
  return gzipSync(tar(entries))
}

export const CHART_YAML = 'apiVersion: v2\nname: demo\nversion: 0.1.0\n'

/** A minimal valid chart under `top/`, plus extra entries. */
export function chartTgz(extra: readonly TarSpec[] = [], top = 'demo'): Buffer {
  return tgz([{ name: `${top}/Chart.yaml`, data: CHART_YAML }, { name: `${top}/templates/cm.yaml`, data: 'kind: ConfigMap\n' }, ...extra])
}

/**
 * A gzip stream of a chart whose one file header announces `size` bytes and
 * is followed by that many zero bytes, compressed while generated so the test
 * never holds the expanded data (1 GiB of zeros is about 1 MiB of gzip).
 */
export async function bombTgz(size: number, name = 'demo/templates/bomb.yaml'): Promise<Buffer> {
  const gz = createGzip({ level: 1 })
  const out: Buffer[] = []
  gz.on('data', (c: Buffer) => out.push(c))
  const done = new Promise<void>((resolve, reject) => {
    gz.on('end', resolve)
    gz.on('error', reject)
  })
  const write = (b: Buffer) => new Promise<void>((resolve) => (gz.write(b) ? resolve() : gz.once('drain', resolve)))
  await write(tar([{ name: 'demo/Chart.yaml', data: CHART_YAML }], { end: false }))
  await write(tarHeader({ name }, size))
  const zeros = Buffer.alloc(1024 * 1024)
  for (let left = size; left > 0; left -= zeros.length) await write(left >= zeros.length ? zeros : zeros.subarray(0, left))
  await write(Buffer.alloc(1024))
  gz.end()
  await done
  return Buffer.concat(out)
}
