// What the one-shot commands (`render`, `diff`) share: output streams that
// tests can replace, flag parsing that turns every mistake into a usage
// error (exit code 2), `NAMESPACE/NAME` arguments and the API client.

import { parseArgs, type ParseArgsConfig } from 'node:util'
import { KubeClient } from '../kube/client.ts'

/** Where a command writes; process.stdout/stderr by default. */
export interface TextSink {
  write(chunk: string): unknown
}

export interface CliIO {
  readonly stdout: TextSink
  readonly stderr: TextSink
}

export type Env = Readonly<Record<string, string | undefined>>

export function defaultIO(io?: Partial<CliIO>): CliIO {
  return { stdout: io?.stdout ?? process.stdout, stderr: io?.stderr ?? process.stderr }
}

/** A command line the command cannot act on: exit code 2 with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
  readonly code = 'CLI_USAGE'
}

/** A failure the command explains in one message, with its own exit code. */
export class CommandError extends Error {
  override readonly name = 'CommandError'
  readonly code = 'CLI_FAILED'
  readonly exitCode: number
  constructor(message: string, exitCode: number, options?: ErrorOptions) {
    super(message, options)
    this.exitCode = exitCode
  }
}

type Options = NonNullable<ParseArgsConfig['options']>

export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>
  readonly positionals: readonly string[]
}

/** node:util parseArgs with unknown flags, missing values and the like as UsageError. */
export function parseFlags(argv: readonly string[], options: Options): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true })
    return { values: values as ParsedArgs['values'], positionals }
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err })
  }
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name]
  return typeof v === 'string' ? v : undefined
}

export function listFlag(args: ParsedArgs, name: string): string[] {
  const v = args.values[name]
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : []
}

export function boolFlag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true
}

export interface InstanceName {
  readonly namespace: string
  readonly name: string
}

/** `NAMESPACE/NAME` of a TemplateInstance. */
export function parseInstanceName(arg: string): InstanceName {
  const parts = arg.split('/')
  const [namespace = '', name = ''] = parts
  if (parts.length !== 2 || namespace === '' || name === '') {
    throw new UsageError(`expected NAMESPACE/NAME of a TemplateInstance, got ${JSON.stringify(arg)}`)
  }
  return { namespace, name }
}

/**
 * The API client: --kubeconfig, then $TEMPLATE_SYNC_KUBECONFIG, then the
 * client library's defaults ($KUBECONFIG, ~/.kube/config, in-cluster).
 */
export function connect(kubeconfig: string | undefined, env: Env): KubeClient {
  const path = kubeconfig ?? env['TEMPLATE_SYNC_KUBECONFIG']
  try {
    return path === undefined || path === '' ? KubeClient.fromDefault('template-sync-cli') : KubeClient.fromFile(path, 'template-sync-cli')
  } catch (err) {
    const from = path === undefined || path === '' ? 'the default kubeconfig' : `kubeconfig ${path}`
    throw new CommandError(`cannot load ${from}: ${(err as Error).message}`, 1, { cause: err })
  }
}

/**
 * Parses a command's flags: usage errors print the message and the usage
 * (exit code 2), `--help` prints the usage (exit code 0); otherwise the parsed
 * options come back for the command to run.
 */
export function parseCommandArgs<T>(
  command: string,
  argv: readonly string[],
  parse: (argv: readonly string[]) => T | 'help',
  usage: () => string,
  io: CliIO,
): { options: T } | { exit: number } {
  let opts: T | 'help'
  try {
    opts = parse(argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.stderr.write(`template-sync ${command}: ${err.message}\n\n${usage()}`)
    return { exit: 2 }
  }
  if (opts === 'help') {
    io.stdout.write(usage())
    return { exit: 0 }
  }
  return { options: opts }
}
