// Runs the Go oracle (test/cluster/oracle, built to test/cluster/bin) over
// cases. Shared by record.ts and the oracle test.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Case } from './corpus/case.ts'

export interface OracleResult {
  readonly name: string
  readonly output?: string
  readonly errorClass?: 'parse' | 'exec' | 'data'
  readonly error?: string
}

const here = dirname(fileURLToPath(import.meta.url))

export function oraclePath(): string {
  const dir = process.env['TEMPLATE_SYNC_BIN_DIR'] ?? join(here, '..', 'cluster', 'bin')
  return join(dir, 'gotemplate-oracle')
}

export function oracleAvailable(): boolean {
  return existsSync(oraclePath())
}

export function runOracle(cases: readonly Case[]): OracleResult[] {
  const res = spawnSync(oraclePath(), [], { input: JSON.stringify(cases), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' })
  if (res.error) throw res.error
  if (res.status !== 0) throw new Error(`gotemplate-oracle exited with ${res.status}: ${res.stderr}`)
  const out = JSON.parse(res.stdout) as OracleResult[]
  if (out.length !== cases.length) throw new Error(`oracle returned ${out.length} results for ${cases.length} cases`)
  return out
}
