// Signals to processes by pid, for the supervisor and `template-sync local`.
// Children run in process groups of their own, so a group is signalled first.

/** Signals the process group led by `pid`, else the process alone; a process already gone is no error. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/** Whether a process with this pid exists (a zombie counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
