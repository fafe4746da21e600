// Writes the CRDs from src/api into the Helm chart.
//
//   node scripts/gen-crds.ts           write charts/template-sync/crds/*.yaml
//   node scripts/gen-crds.ts --check   exit 1 when the chart copies are stale
//
// dumpYaml serializes through the client's generated models, which keep only
// the fields those models know and rename some on the way in (enum, default,
// x-kubernetes-*). So the object is first turned into model form with
// loadYaml (JSON is YAML), and the written document is checked to carry
// exactly the object we built: a field the models do not know fails the run
// instead of vanishing from the chart.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { dumpYaml, loadYaml } from '@kubernetes/client-node'
import { crdManifests, type CustomResourceDefinition } from '../src/api/crds.ts'
import { PLURAL_TEMPLATE, PLURAL_TEMPLATE_INSTANCE } from '../src/api/names.ts'

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const CRD_DIR = join(REPO_ROOT, 'charts', 'template-sync', 'crds')

const HEADER = '# Generated from src/api by scripts/gen-crds.ts (npm run gen:crds). Do not edit.\n'

const BLOCK_STYLE = { noRefs: true, lineWidth: -1 } as const
// Flow style with every key and string double-quoted is JSON, which lets the
// check read back what the writer produced without a YAML parser of our own.
const JSON_STYLE = { ...BLOCK_STYLE, flowLevel: 0, quoteFlowKeys: true, forceQuotes: true, quoteStyle: 'double' } as const

function toModel(crd: CustomResourceDefinition): unknown {
  return loadYaml(JSON.stringify(crd))
}

/** What dumpYaml actually emits for `crd`, as plain JSON. */
export function writtenForm(crd: CustomResourceDefinition): unknown {
  return JSON.parse(dumpYaml(toModel(crd), JSON_STYLE))
}

/** The chart file for one CRD; throws when the writer would lose or alter a field. */
export function renderCrdYaml(crd: CustomResourceDefinition): string {
  const model = toModel(crd)
  if (!isDeepStrictEqual(JSON.parse(dumpYaml(model, JSON_STYLE)), JSON.parse(JSON.stringify(crd)))) {
    throw new Error(`${crd.metadata.name}: the YAML writer does not reproduce the CRD exactly; a field is unknown to it`)
  }
  return HEADER + dumpYaml(model, BLOCK_STYLE)
}

export interface CrdFile {
  path: string
  content: string
}

export function crdFiles(): CrdFile[] {
  const fileOf: Record<string, string> = {
    [`${PLURAL_TEMPLATE}`]: 'templates.yaml',
    [`${PLURAL_TEMPLATE_INSTANCE}`]: 'templateinstances.yaml',
  }
  return crdManifests().map((crd) => {
    const file = fileOf[crd.spec.names.plural]
    if (file === undefined) throw new Error(`no chart file for CRD ${crd.metadata.name}`)
    return { path: join(CRD_DIR, file), content: renderCrdYaml(crd) }
  })
}

/** Files whose content on disk differs from the generated one. */
export function staleFiles(files: readonly CrdFile[] = crdFiles()): string[] {
  return files.filter((f) => readOrEmpty(f.path) !== f.content).map((f) => f.path)
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

function main(argv: readonly string[]): number {
  const files = crdFiles()
  if (argv.includes('--check')) {
    const stale = staleFiles(files)
    for (const path of stale) process.stderr.write(`stale: ${path} (run npm run gen:crds)\n`)
    return stale.length === 0 ? 0 : 1
  }
  mkdirSync(CRD_DIR, { recursive: true })
  for (const f of files) {
    writeFileSync(f.path, f.content)
    process.stdout.write(`wrote ${f.path}\n`)
  }
  return 0
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2))
