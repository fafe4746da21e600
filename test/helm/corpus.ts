// Running a corpus case through the real helm and through renderChart, into
// one comparable shape: the documents helm template prints (not hooks),
// each with its source path, its text and its decoded objects; or the error.

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DEFAULT_API_VERSIONS, HelmRenderError, loadChartPath } from '../../src/helm/index.ts'
import { renderDocuments } from '../../src/helm/render/render.ts'
import { parseYamlStream } from '../../src/encoding/yaml.ts'
import { type CorpusCase, DEFAULT_KUBE } from './cases.ts'

export type Major = 'v3' | 'v4'

export interface CorpusDocument {
  readonly source: string
  readonly text: string
  readonly objects: unknown[]
}

export type CorpusResult =
  | { readonly ok: true; readonly documents: CorpusDocument[]; readonly hooks: string[] }
  | { readonly ok: false; readonly error: string }

export const CHARTS_DIR = new URL('./charts/', import.meta.url).pathname
export const EXPECTED_DIR = new URL('./expected/', import.meta.url).pathname

export const majorsOf = (c: CorpusCase): readonly Major[] => c.helm ?? ['v3', 'v4']

export function helmBinary(major: Major): string {
  const dir = process.env.TEMPLATE_SYNC_BIN_DIR ?? new URL('../cluster/bin/', import.meta.url).pathname
  return join(dir, major === 'v3' ? 'helm' : 'helm4')
}

const isHook = (o: unknown): boolean => {
  const md = (o as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata
  return md?.annotations !== undefined && md.annotations !== null && Object.hasOwn(md.annotations, 'helm.sh/hook')
}

/** Splits `helm template` output on its "---\n# Source: x" headers. */
export function parseHelmOutput(stdout: string): CorpusResult {
  const documents: CorpusDocument[] = []
  const hooks: string[] = []
  const parts = stdout.split(/^---\n# Source: (.*)\n/m)
  for (let i = 1; i < parts.length; i += 2) {
    const source = parts[i] as string
    const text = (parts[i + 1] ?? '').trimEnd()
    const objects = parseYamlStream(text).map((d) => d.value)
    if (objects.some(isHook)) hooks.push(source)
    else documents.push({ source, text, objects })
  }
  return { ok: true, documents, hooks }
}

/** The message of a failed `helm template`, without "Error: " and the --debug hint. */
export function helmError(stderr: string): string {
  const at = stderr.indexOf('Error: ')
  const msg = at === -1 ? stderr : stderr.slice(at + 'Error: '.length)
  return msg.replace(/\n\nUse --debug flag to render out invalid YAML\n?$/, '').trim()
}

const run = promisify(execFile)

export async function runHelm(c: CorpusCase, major: Major): Promise<CorpusResult> {
  const dir = await mkdtemp(join(tmpdir(), 'helm-corpus-'))
  try {
    const values = join(dir, 'values.json')
    await writeFile(values, JSON.stringify(c.values ?? {}))
    const args = [
      'template',
      c.releaseName ?? 'release-name',
      join(CHARTS_DIR, c.chart),
      '--include-crds',
      '--kube-version',
      c.kubeVersion ?? DEFAULT_KUBE,
      '--namespace',
      c.namespace ?? 'default',
      '-f',
      values,
    ]
    for (const a of c.apiVersions ?? []) args.push('--api-versions', a)
    try {
      const { stdout } = await run(helmBinary(major), args, {
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? '', HOME: dir },
      })
      return parseHelmOutput(stdout)
    } catch (e) {
      const err = e as { stderr?: string; code?: number }
      if (typeof err.code === 'number') return { ok: false, error: helmError(err.stderr ?? '') }
      throw e
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export async function runOurs(c: CorpusCase, major: Major): Promise<CorpusResult> {
  let chart: Awaited<ReturnType<typeof loadChartPath>>
  try {
    chart = await loadChartPath(join(CHARTS_DIR, c.chart), { helm: major })
  } catch (e) {
    return { ok: false, error: (e as Error).message }
  }
  try {
    const r = renderDocuments({
      chart,
      helm: major,
      releaseName: c.releaseName ?? 'release-name',
      namespace: c.namespace ?? 'default',
      values: structuredClone(c.values ?? {}),
      capabilities: { kubeVersion: c.kubeVersion ?? DEFAULT_KUBE, apiVersions: [...DEFAULT_API_VERSIONS, ...(c.apiVersions ?? [])] },
    })
    const documents: CorpusDocument[] = []
    for (const crd of r.crds) documents.push({ source: crd.template, text: crd.text.trimEnd(), objects: crd.objects })
    for (const m of r.manifests) documents.push({ source: m.template, text: m.text.trimEnd(), objects: m.value === null ? [] : [m.value] })
    const hooks = r.skipped.filter((s) => !s.template.endsWith('NOTES.txt') && !s.reason.startsWith('unknown hook')).map((s) => s.template)
    return { ok: true, documents, hooks }
  } catch (e) {
    if (e instanceof HelmRenderError) return { ok: false, error: e.message }
    throw e
  }
}

const LOCATION = /([\w.-]+(?:\/[\w.-]+)+):(\d+)/

/** The first "file:line" an error names. */
export function errorLocation(message: string): string | undefined {
  const m = LOCATION.exec(message)
  return m === null ? undefined : `${m[1]}:${m[2]}`
}

/** Differences between helm's result and ours, as readable lines; [] when they agree. */
export function compareResults(helm: CorpusResult, ours: CorpusResult): string[] {
  if (!helm.ok || !ours.ok) {
    if (helm.ok) return [`helm rendered, we failed: ${(ours as { error: string }).error}`]
    if (ours.ok) return [`helm failed (${helm.error}), we rendered`]
    // The template file and line must agree; beyond that the message must read the same.
    const where = errorLocation(helm.error)
    if (where !== undefined && errorLocation(ours.error) !== where) {
      return [`error location: helm ${where} (${helm.error}), ours ${errorLocation(ours.error)} (${ours.error})`]
    }
    return helm.error === ours.error ? [] : [`error message: helm ${JSON.stringify(helm.error)}, ours ${JSON.stringify(ours.error)}`]
  }
  const out: string[] = []
  const n = Math.max(helm.documents.length, ours.documents.length)
  for (let i = 0; i < n; i++) {
    const h = helm.documents[i]
    const o = ours.documents[i]
    if (h === undefined || o === undefined) {
      out.push(`document ${i}: helm ${h?.source ?? 'none'}, ours ${o?.source ?? 'none'}`)
      continue
    }
    if (h.source !== o.source) out.push(`document ${i}: source helm ${h.source}, ours ${o.source}`)
    if (JSON.stringify(h.objects) !== JSON.stringify(o.objects)) out.push(`document ${i} (${h.source}): objects differ`)
    if (h.text !== o.text) out.push(`document ${i} (${h.source}): text differs\n--- helm\n${h.text}\n--- ours\n${o.text}`)
  }
  if (JSON.stringify(helm.hooks) !== JSON.stringify(ours.hooks))
    out.push(`hooks: helm ${helm.hooks.join(',')}, ours ${ours.hooks.join(',')}`)
  return out
}
