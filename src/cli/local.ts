// `template-sync local`: the whole system on this machine. Builds (or reuses)
// the control-plane binaries, starts etcd + kube-apiserver +
// kube-controller-manager, installs template-sync on it (local-system.ts:
// CRDs, identities, the webhook and the reconciler under a supervisor that
// restarts them like a kubelet, the chart's webhook configuration), applies
// examples/ and prints what to try. Ctrl-C stops everything, one line per
// process. `--check` runs the walkthrough itself and exits.
//
// Exit codes: 0 stopped by Ctrl-C / SIGTERM / SIGHUP (the normal end) or
// --check passed; 1 a start failure, an unexpected error, a failed --check or
// a process that had to be killed; 2 usage. Ctrl-C gives 0 rather than the
// shell's 130 because it is the documented way to end `local`: a clean stop
// at the person's request is a success. (Under `npm start`, npm receives the
// same Ctrl-C and exits 130 itself, silently.)

import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadAll } from 'js-yaml'
import { GROUP, VERSION } from '../api/names.ts'
import { CONTENT_MERGE, KubeClient } from '../kube/client.ts'
import { RestMapper } from '../kube/discovery.ts'
import { KubeApiError } from '../kube/errors.ts'
import { controlPlaneBinaries, defaultBinDir, startControlPlane, type ControlPlane } from '../local/controlplane.ts'
import { parseFlags, boolFlag, stringFlag, UsageError, type TextSink } from './args.ts'
import { describeError } from './exit-report.ts'
import { installLastWords } from './last-words.ts'
import { isAlive, killGroup } from './processes.ts'
import type { IdentifiedObject } from '../api/meta.ts'
import { applyManifest, REPO_ROOT, startSystem, until, type RunningSystem } from './local-system.ts'
import { reapLeftovers, Supervisor } from './supervisor.ts'

type Out = (line: string) => void

export function localUsage(): string {
  return `usage: template-sync local [--check] [--skip-build] [--state-dir DIR]

Starts a local control plane (etcd, kube-apiserver, kube-controller-manager),
runs the webhook and the reconciler on it as separate processes, applies
examples/ and prints what to try. The webhook and the reconciler are
restarted when they exit (back-off 1 s doubling to 30 s, reset after a
minute of running), with one line on the terminal each time. Ctrl-C stops
everything, one line per process stopped.

  --check            run the walkthrough (a denied strict edit, a reverted
                     revert edit, ignored fields kept) and exit with its result
  --skip-build       do not run test/cluster/build.sh; use the binaries already in
                     $TEMPLATE_SYNC_BIN_DIR (default test/cluster/bin)
  --state-dir DIR    where the kubeconfigs, the webhook certificate and the logs
                     of the webhook and the reconciler go (default .local/ in the
                     repository) [$TEMPLATE_SYNC_LOCAL_DIR]
  -h, --help         print this help

Exit codes: 0 stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP, or --check passed;
1 a start failure, an unexpected error, a failed --check, or a process that
did not stop on SIGTERM; 2 usage error.
`
}

interface LocalOptions {
  readonly check: boolean
  readonly skipBuild: boolean
  readonly stateDir: string | undefined
}

function parseLocalArgs(argv: readonly string[]): LocalOptions | 'help' {
  const args = parseFlags(argv, {
    check: { type: 'boolean' },
    'skip-build': { type: 'boolean' },
    'state-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  })
  if (boolFlag(args, 'help')) return 'help'
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`)
  return { check: boolFlag(args, 'check'), skipBuild: boolFlag(args, 'skip-build'), stateDir: stringFlag(args, 'state-dir') }
}

/** Why the run ends: a signal (the normal end), a finished --check, or a failure. */
class Ending extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode: number) {
    super(message)
    this.exitCode = exitCode
  }
}

/** What `local` builds: every binary the control plane runs, the scheduler and kwok included. */
export const LOCAL_BUILD_TARGETS: readonly string[] = controlPlaneBinaries()

function buildBinaries(out: Out): void {
  out('building (or reusing) the control-plane binaries ...')
  const r = spawnSync('bash', [join(REPO_ROOT, 'test/cluster/build.sh'), ...LOCAL_BUILD_TARGETS], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  // The terminal's Ctrl-C reaches build.sh too, while this process is blocked in spawnSync.
  if (r.signal !== null) throw new Ending(`build interrupted by ${r.signal}`, 0)
  if (r.status !== 0) throw new Error('test/cluster/build.sh failed (Go 1.26 is needed to build the local control plane)')
}

function walkthrough(kubeconfig: string): string {
  const k = `kubectl --kubeconfig ${kubeconfig}`
  return `
template-sync is running on a local control plane.

  export KUBECONFIG=${kubeconfig}

strict (NetworkPolicy baseline in team-a): edits are denied at admission
  ${k} -n team-a label networkpolicy default-deny-ingress tier=changed
      -> denied: names TemplateInstance team-a/baseline and the changed path
  ${k} -n team-a annotate networkpolicy default-deny-ingress note=allowed
      -> allowed: metadata.annotations is in sync.ignoreFields

revert (Deployment team-a/web): drift is put back within a second
  ${k} -n team-a set image deployment/web web=registry.example.com/web:evil
  ${k} -n team-a get deployment web -o jsonpath='{.spec.template.spec.containers[0].image}'
  ${k} -n team-a scale deployment web --replicas=5     # kept: spec.replicas is ignored
  ${k} -n team-a delete deployment web                 # re-created at once (a new UID)

off (ConfigMap team-a/team-settings): seeded once, then yours
  ${k} -n team-a patch configmap team-settings --type merge -p '{"data":{"log-level":"debug"}}'

status and events
  ${k} get templateinstances -A        # READY, REASON, SYNC at a glance
  ${k} -n team-a describe templateinstance web

Press Ctrl-C to stop everything.
`
}

/** Kills the process groups of a control plane at once (the unplanned-exit path). */
function killControlPlaneNow(cp: ControlPlane | undefined): void {
  for (const pid of Object.values(cp?.pids ?? {})) killGroup(pid, 'SIGKILL')
}

async function applyExamples(client: KubeClient, signal: AbortSignal): Promise<void> {
  const mapper = new RestMapper(client)
  for (const ns of ['platform', 'team-a'])
    await applyManifest(client, mapper, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
  const files = readdirSync(join(REPO_ROOT, 'examples'))
    .filter((n) => n.endsWith('.yaml'))
    .sort()
  for (const f of files) {
    for (const doc of loadAll(readFileSync(join(REPO_ROOT, 'examples', f), 'utf8')))
      if (doc) await applyManifest(client, mapper, doc as IdentifiedObject)
  }
  for (const name of ['baseline', 'web', 'settings']) {
    await until(
      `TemplateInstance team-a/${name} Ready`,
      async () => {
        const i = await client.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
          `/apis/${GROUP}/${VERSION}/namespaces/team-a/templateinstances/${name}`,
        )
        return i.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined
      },
      60_000,
      signal,
    )
  }
}

export async function runLocal(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: { stdout?: TextSink } = {},
): Promise<number> {
  const out: Out = (line) => void (io.stdout ?? process.stdout).write(`${line}\n`)
  let opts: LocalOptions | 'help'
  try {
    opts = parseLocalArgs(argv)
  } catch (e) {
    out(`template-sync local: ${(e as Error).message}\n\n${localUsage()}`)
    return 2
  }
  if (opts === 'help') {
    out(localUsage())
    return 0
  }
  const t0 = Date.now()
  const stateDir = resolve(opts.stateDir ?? env.TEMPLATE_SYNC_LOCAL_DIR ?? join(REPO_ROOT, '.local'))
  mkdirSync(stateDir, { recursive: true })
  const recordFile = join(stateDir, 'processes.json')
  reapLeftovers(recordFile, out)
  const supervisor = new Supervisor({ say: out, recordFile })
  let cp: ControlPlane | undefined
  let client: KubeClient | undefined
  let system: RunningSystem | undefined

  // Everything that ends the run aborts this; the main flow below then stops in order.
  const ending = new AbortController()
  const end = (why: Ending): void => {
    if (!ending.signal.aborted) ending.abort(why)
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!ending.signal.aborted) {
      out(`${signal}: stopping`)
      end(new Ending(signal, 0))
      return
    }
    // A second Ctrl-C while stopping: do not make the person wait for graceful stops.
    out(`${signal} again: killing what is left`)
    supervisor.killNow()
    killControlPlaneNow(cp)
  }
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  for (const s of signals) process.on(s, onSignal)
  const lastWords = installLastWords({
    who: 'template-sync local',
    onFatal: (what) => end(new Ending(what, 1)),
    onExit: () => {
      supervisor.killNow()
      killControlPlaneNow(cp)
    },
  })
  const run = async (): Promise<void> => {
    const signal = ending.signal
    if (!opts.skipBuild) buildBinaries(out)
    signal.throwIfAborted()
    cp = await startControlPlane({ log: (m) => out(`control plane: ${m}`), binDir: defaultBinDir() })
    signal.throwIfAborted()
    const kubeconfig = join(stateDir, 'kubeconfig')
    writeFileSync(kubeconfig, readFileSync(cp.kubeconfigPath), { mode: 0o600 })
    client = KubeClient.fromFile(cp.kubeconfigPath, 'template-sync-local')
    system = await startSystem({ cluster: cp, client, supervisor, stateDir, signal })
    await applyExamples(client, signal)
    out(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (control plane ${(cp.startMs / 1000).toFixed(1)} s); logs in ${stateDir}`)
    if (opts.check) {
      const ok = await check(client, out)
      end(new Ending(ok ? 'check passed' : 'check failed', ok ? 0 : 1))
      return
    }
    out(walkthrough(kubeconfig))
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
  }

  let code: number
  try {
    await run()
    code = ending.signal.reason instanceof Ending ? ending.signal.reason.exitCode : 0
  } catch (e) {
    const why: unknown = e instanceof Ending ? e : ending.signal.reason
    if (why instanceof Ending) {
      code = why.exitCode
    } else {
      const [first, ...rest] = describeError(e)
      out(`template-sync local failed: ${first ?? ''}`)
      for (const line of rest) out(line)
      code = 1
    }
  }
  if (!(await stopAll({ out, supervisor, system, client, cp }))) code = Math.max(code, 1)
  for (const s of signals) process.off(s, onSignal)
  lastWords.planned()
  lastWords.dispose()
  return code
}

/** Stops in order, one line per process; false when something needed SIGKILL or survived. */
async function stopAll(s: {
  out: Out
  supervisor: Supervisor
  system: RunningSystem | undefined
  client: KubeClient | undefined
  cp: ControlPlane | undefined
}): Promise<boolean> {
  let ok = true
  // First the webhook configuration: without the webhook it would block strict objects.
  await s.system?.removeWebhookConfiguration().catch((e: unknown) => {
    s.out(`could not delete the webhook configuration: ${(e as Error).message}`)
  })
  for (const o of await s.supervisor.stop()) ok &&= o.clean
  s.client?.close()
  if (s.cp !== undefined) {
    const pids = { ...s.cp.pids }
    await s.cp.stop().catch((e: unknown) => s.out(`control plane stop failed: ${(e as Error).message}`))
    // In the order the control plane stops them: the components, then the API server and etcd.
    for (const name of [...controlPlaneBinaries()].reverse()) {
      const pid = pids[name]
      if (pid === undefined) continue
      if (isAlive(pid)) {
        ok = false
        s.out(`${name} (pid ${pid}) is still running`)
      } else {
        s.out(`stopped ${name} (pid ${pid})`)
      }
    }
  }
  return ok
}

/** The walkthrough, done by a program: a denied strict edit, a reverted one, a kept ignored field. */
async function check(client: KubeClient, out: Out): Promise<boolean> {
  // The admin client is not exempt from the webhook: it acts like a user.
  const np = '/apis/networking.k8s.io/v1/namespaces/team-a/networkpolicies/default-deny-ingress'
  const denied = await client
    .request('PATCH', np, { body: { metadata: { labels: { tier: 'changed' } } }, contentType: CONTENT_MERGE })
    .catch((e: unknown) => e)
  const deniedOk = denied instanceof KubeApiError && denied.code === 403 && /team-a\/baseline/.test(denied.apiMessage)
  out(`check: strict edit denied: ${deniedOk ? 'yes' : `NO (${String(denied)})`}`)
  const allowed = await client
    .request('PATCH', np, { body: { metadata: { annotations: { note: 'allowed' } } }, contentType: CONTENT_MERGE })
    .then(
      () => true,
      () => false,
    )
  out(`check: ignored annotation allowed: ${allowed ? 'yes' : 'NO'}`)
  const dep = '/apis/apps/v1/namespaces/team-a/deployments/web'
  await client.request('PATCH', dep, {
    body: { spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example.com/web:evil' }] } } } },
    contentType: 'application/strategic-merge-patch+json',
  })
  const reverted = await until(
    'revert',
    async () => {
      const d = await client.get<{ spec: { template: { spec: { containers: { image: string }[] } } } }>(dep)
      return d.spec.template.spec.containers[0]?.image === 'registry.example.com/web:1.4.2' ? true : undefined
    },
    15_000,
  ).then(
    () => true,
    () => false,
  )
  out(`check: revert-mode drift reverted: ${reverted ? 'yes' : 'NO'}`)
  await client.request('PATCH', `${dep}/scale`, { body: { spec: { replicas: 5 } }, contentType: CONTENT_MERGE })
  await new Promise((r) => setTimeout(r, 1500))
  const scaled = (await client.get<{ spec: { replicas: number } }>(dep)).spec.replicas === 5
  out(`check: ignored spec.replicas kept: ${scaled ? 'yes' : 'NO'}`)
  return deniedOk && allowed && reverted && scaled
}
