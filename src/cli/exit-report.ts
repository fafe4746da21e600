// Short sentences about a process that ended and an error that escaped, for
// the terminal of `template-sync local`: one line per event, not a screen of
// JSON log lines.

/** "exited with code 1", "was killed by SIGKILL". */
export function describeExit(code: number | null, signal: string | null): string {
  if (signal !== null) return `was killed by ${signal}`
  return `exited with code ${code ?? 'unknown'}`
}

/** "0.5 s", "2 s", "42 s": tenths below ten seconds, when there are any. */
export function formatSeconds(ms: number): string {
  const s = (ms / 1000).toFixed(ms < 10_000 ? 1 : 0).replace(/\.0$/, '')
  return `${s} s`
}

const MAX_PROBLEM = 240

interface LogLine {
  level?: unknown
  msg?: unknown
  err?: { message?: unknown }
}

function parseLogLine(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    const v: unknown = JSON.parse(line)
    return typeof v === 'object' && v !== null ? (v as LogLine) : undefined
  } catch {
    return undefined
  }
}

function clip(s: string): string {
  return s.length > MAX_PROBLEM ? `${s.slice(0, MAX_PROBLEM - 3)}...` : s
}

/**
 * What the last lines of a process's output say went wrong: the message
 * (and error message) of the last pino line at level error or above, else
 * the last line that names an Error (a Node crash prints its stack on
 * stderr). Undefined when no line reports a problem: the last info line of
 * a killed process would only mislead.
 */
export function lastProblem(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const entry = parseLogLine(lines[i] ?? '')
    if (entry !== undefined && typeof entry.level === 'number' && entry.level >= 50) {
      const msg = typeof entry.msg === 'string' ? entry.msg : 'error'
      const err = typeof entry.err?.message === 'string' ? `: ${entry.err.message}` : ''
      return clip(`${msg}${err}`)
    }
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim()
    if (/^[A-Za-z]*Error\b/.test(line)) return clip(line)
  }
  return undefined
}

const MAX_FRAMES = 6

/** An error as lines for people: name and message, each cause, then the first stack frames. */
export function describeError(err: unknown): string[] {
  if (!(err instanceof Error)) return [String(err)]
  const lines = [`${err.name}: ${err.message}`]
  const seen = new Set<unknown>([err])
  let cause: unknown = err.cause
  while (cause !== undefined && !seen.has(cause)) {
    seen.add(cause)
    lines.push(`  caused by ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`)
    cause = cause instanceof Error ? cause.cause : undefined
  }
  const frames = (err.stack ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at '))
  lines.push(...frames.slice(0, MAX_FRAMES).map((f) => `  ${f}`))
  return lines
}
