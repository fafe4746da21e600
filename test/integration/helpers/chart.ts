// The real helm binary (test/cluster/build.sh) over the project's chart:
// `helm template` with a set of values, and the objects it renders.

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadAll } from 'js-yaml'
import { defaultBinDir } from '../../../src/local/controlplane.ts'

export const chartDir = new URL('../../../charts/template-sync', import.meta.url).pathname
export const KUBE_VERSION = '1.37.2'
const helmHome = mkdtempSync(join(tmpdir(), 'ts-helm-'))

export interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  [k: string]: unknown
}

export interface HelmResult {
  status: number | null
  stdout: string
  stderr: string
}

/** A binary of test/cluster/build.sh, waiting for it while another process is still building it. */
export async function binaryPath(name: string): Promise<string> {
  const path = join(defaultBinDir(), name)
  const deadline = Date.now() + 15 * 60_000
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} missing: run test/cluster/build.sh`)
    await new Promise((r) => setTimeout(r, 2_000))
  }
  return path
}

export function helm(bin: string, args: string[]): HelmResult {
  const r = spawnSync(bin, args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    },
    maxBuffer: 32 * 1024 * 1024,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

let valuesSeq = 0
export function valuesFile(values: object): string {
  const file = join(helmHome, `values-${valuesSeq++}.json`)
  writeFileSync(file, JSON.stringify(values))
  return file
}

/** `helm template` of the chart with values; throws with helm's message when it fails. */
export function render(bin: string, values: object = {}, release = 'template-sync', namespace = 'template-sync'): Manifest[] {
  const r = helm(bin, ['template', release, chartDir, '--namespace', namespace, '--kube-version', KUBE_VERSION, '-f', valuesFile(values)])
  if (r.status !== 0) throw new Error(`helm template failed: ${r.stderr}`)
  return (loadAll(r.stdout) as (Manifest | null)[]).filter((m): m is Manifest => m !== null)
}

export const find = <T extends Manifest = Manifest>(ms: Manifest[], kind: string, name: string): T => {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name)
  if (!m) throw new Error(`no ${kind} ${name} in ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`)
  return m as T
}
