// A second identity on the test cluster: a client certificate signed by the
// cluster's CA for a user of our choosing. The reconciler of an end-to-end
// test runs as that user, so the webhook can exempt it while the admin
// client (the "person" editing objects) is judged.

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clusterInfo } from './cluster.ts'

/** Writes a kubeconfig for `user` (in group system:masters) and returns its path. */
export function userKubeconfig(user: string): string {
  const info = clusterInfo()
  const dir = mkdtempSync(join(tmpdir(), 'ts-user-'))
  const run = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  }
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'user.key'])
  run(['req', '-new', '-key', 'user.key', '-subj', `/O=system:masters/CN=${user}`, '-out', 'user.csr'])
  writeFileSync(join(dir, 'user.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n')
  run([
    'x509',
    '-req',
    '-in',
    'user.csr',
    '-CA',
    info.caCert,
    '-CAkey',
    info.caKey,
    '-CAcreateserial',
    '-CAserial',
    join(dir, 'ca.srl'),
    '-days',
    '2',
    '-sha256',
    '-extfile',
    'user.ext',
    '-out',
    'user.crt',
  ])
  const b64 = (f: string): string => readFileSync(join(dir, f)).toString('base64')
  const path = join(dir, 'kubeconfig')
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      `  cluster: {server: "${info.server}", certificate-authority-data: ${readFileSync(info.caCert).toString('base64')}}`,
      'users:',
      `- name: ${user}`,
      `  user: {client-certificate-data: ${b64('user.crt')}, client-key-data: ${b64('user.key')}}`,
      'contexts:',
      '- name: test',
      `  context: {cluster: test, user: ${user}}`,
      'current-context: test',
      '',
    ].join('\n'),
    { mode: 0o600 },
  )
  return path
}
