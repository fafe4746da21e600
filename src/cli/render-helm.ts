// spec.helm for `template-sync render`: where the chart and the
// capabilities come from on the command line. The render itself is the
// reconciler's (src/reconciler/helm.ts), on this thread.
//
//   --chart PATH            a chart directory or .tgz instead of the repository (offline)
//   --plain-http            the Template's oci:// registry speaks plain HTTP
//   --kube-version V        .Capabilities.KubeVersion, as helm template's flag
//   --api-versions G/V[/K]  added to .Capabilities.APIVersions (repeatable, comma-separated)
//
// Without --chart the chart comes from the repository, from this machine. Its
// auth Secret is read only through --kubeconfig (or in NAMESPACE/NAME form).
// .Capabilities are the cluster's with a cluster, else Helm's defaults; the
// two flags apply over either.

import type { Template } from '../api/template.ts'
import { ChartLoadError } from '../helm/chart/errors.ts'
import { loadChartPath } from '../helm/chart/load.ts'
import { quote } from '../gotemplate/strconv.ts'
import { parseKubeVersion } from '../helm/render/capabilities.ts'
import { DEFAULT_KUBE_VERSION, defaultCapabilities, type HelmCapabilities, renderChart } from '../helm/render/index.ts'
import { createChartFetcher } from '../helm/source/fetcher.ts'
import type { KubeClient } from '../kube/client.ts'
import { describeChart, helmVersionOf } from '../render/helm.ts'
import { clusterCapabilities } from '../reconciler/capabilities.ts'
import { apiSecretReader, fetchTemplateChart, type HelmSupport, type SecretReader } from '../reconciler/helm.ts'
import { inlineRenderer } from '../reconciler/render-pool.ts'
import { inlineTemplateRunner } from '../render/template-job.ts'
import { DEFAULT_RENDER_TIMEOUT_MS } from '../render/time-limit.ts'
import { CommandError } from './args.ts'

/** --kube-version and --api-versions. */
export interface CapabilityFlags {
  /** Replaces the cluster's or the default Kubernetes version. */
  readonly kubeVersion?: string
  /** Added after the cluster's or the default API versions, as helm template adds them. */
  readonly apiVersions: readonly string[]
}

export interface HelmCliOptions extends CapabilityFlags {
  /** --chart: a local chart directory or .tgz. */
  readonly chart?: string
  /** --plain-http: reach the Template's OCI registry over HTTP. */
  readonly plainHttp: boolean
}

/**
 * .Capabilities of a render from the command line: the cluster's with a
 * client, else Helm's defaults (a note says which), with the flags applied
 * over them.
 */
export function commandLineCapabilities(
  client: KubeClient | undefined,
  flags: CapabilityFlags,
  notes: string[],
): () => Promise<HelmCapabilities> {
  const cluster = client === undefined ? undefined : clusterCapabilities(client)
  return async () => {
    let base: HelmCapabilities
    if (cluster !== undefined) base = await cluster.get()
    else {
      base = defaultCapabilities()
      notes.push(offlineNote(flags))
    }
    return {
      kubeVersion: flags.kubeVersion ?? base.kubeVersion,
      apiVersions: flags.apiVersions.length === 0 ? base.apiVersions : [...base.apiVersions, ...flags.apiVersions],
    }
  }
}

function offlineNote(flags: CapabilityFlags): string {
  if (flags.kubeVersion === undefined && flags.apiVersions.length === 0) {
    return `.Capabilities are Helm's defaults without a cluster (Kubernetes ${DEFAULT_KUBE_VERSION}, built-in API versions only); pass --kubeconfig for the cluster's, or --kube-version and --api-versions`
  }
  const kube =
    flags.kubeVersion === undefined
      ? `Kubernetes ${DEFAULT_KUBE_VERSION} (Helm's default)`
      : `Kubernetes ${flags.kubeVersion} (--kube-version)`
  const n = flags.apiVersions.length
  const apis = n === 0 ? "Helm's built-in API versions only" : `Helm's built-in API versions and ${n} from --api-versions`
  return `.Capabilities without a cluster: ${kube}, ${apis}`
}

/** A note per document the render left out (hooks, tests, NOTES.txt). */
export function skippedNotes(skipped: readonly { template: string; reason: string }[]): string[] {
  return skipped.map((s) => `${s.template} is not applied: ${s.reason}`)
}

/** The --kube-version value, checked as Helm parses it; undefined when it is valid. */
export function kubeVersionProblem(text: string): string | undefined {
  return parseKubeVersion('v3', text) === undefined
    ? `invalid kube version '${text}': could not parse ${quote(text)} as version`
    : undefined
}

function registryHost(url: string): string | undefined {
  return url.startsWith('oci://') ? url.slice('oci://'.length).split('/')[0] : undefined
}

/** HelmSupport for one render from the command line; notes say where the chart and the capabilities came from. */
export function cliHelmSupport(template: Template, client: KubeClient | undefined, opts: HelmCliOptions, notes: string[]): HelmSupport {
  const repository = template.spec.helm?.chart.repository
  const host = repository === undefined ? undefined : registryHost(repository.url)
  const fetcher = createChartFetcher({ plainHttpRegistries: opts.plainHttp && host !== undefined ? [host] : [] })
  const readSecret: SecretReader =
    client !== undefined
      ? apiSecretReader(client)
      : (namespace, name) =>
          Promise.reject(
            new CommandError(
              `the chart repository needs auth Secret ${namespace}/${name}, which is read from a cluster: pass --kubeconfig, or a local chart with --chart PATH`,
              1,
            ),
          )
  const capabilities = commandLineCapabilities(client, opts, notes)
  return {
    chartFor: async (t) => {
      if (opts.chart === undefined) return fetchTemplateChart(t, fetcher, readSecret)
      const helm = helmVersionOf(t)
      try {
        const chart = await loadChartPath(opts.chart, { helm })
        const wanted = t.spec.helm?.chart.repository
        if (wanted !== undefined && (chart.metadata.name !== wanted.name || chart.metadata.version !== wanted.version.replace(/^v/, ''))) {
          notes.push(
            `rendering chart ${chart.metadata.name} ${chart.metadata.version} from ${opts.chart}; the Template names ${describeChart(wanted)}`,
          )
        }
        const ref = { url: opts.chart, name: chart.metadata.name, version: chart.metadata.version }
        return { ok: true, fetched: { chart, digest: `local ${opts.chart}`, ref, cached: true } }
      } catch (err) {
        if (err instanceof ChartLoadError) return { ok: false, condition: 'Valid', message: err.message }
        throw err
      }
    },
    capabilities,
    render: inlineRenderer(renderChart).render,
    runTemplate: inlineTemplateRunner(),
    retryMs: 0,
    limits: { timeMs: DEFAULT_RENDER_TIMEOUT_MS },
    close: async () => {},
  }
}
