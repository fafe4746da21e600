// `pattern`, `patternProperties` and the `regex` format of values.schema.json
// with Go's regexp, as Helm's validator (santhosh-tekuri/jsonschema) compiles
// them. The library builds each pattern with the global RegExp at validation
// time; a chart is hostile input, and a JavaScript RegExp can backtrack for
// minutes on a pattern such as ^(a+)+$ where no time limit can interrupt it.
// While the library validates, the global constructor is this stand-in: Go's
// syntax (so (?i) works and lookaround is refused, as in Helm) and a Pike VM
// whose time is linear in the input.

import { compileCached, execAt, type GoRegexp } from '../../gotemplate/sprig/goregexp.ts'

class GoPattern {
  private readonly re: GoRegexp
  constructor(pattern: unknown) {
    this.re = compileCached(String(pattern))
  }
  /** An unanchored search, as JSON Schema's pattern means. */
  test(s: unknown): boolean {
    return execAt(this.re, String(s), 0) !== null
  }
}

/**
 * Runs fn (synchronous: no other code can observe the swap) with the global
 * RegExp constructor replaced by Go's engine; regular-expression literals are
 * unaffected. The original is always put back.
 */
export function withGoPatterns<T>(fn: () => T): T {
  const saved = globalThis.RegExp
  globalThis.RegExp = GoPattern as unknown as RegExpConstructor
  try {
    return fn()
  } finally {
    globalThis.RegExp = saved
  }
}
