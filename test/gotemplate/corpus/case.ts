// One conformance case: a template, the JSON data it runs on, and a name that
// is unique across the corpus ("<file>/<slug>").

export interface Case {
  readonly name: string
  readonly template: string
  /** JSON data, decoded like encoding/json into interface{}; absent means nil. */
  readonly data?: unknown
}

/** Builds cases from [slug, template, data?] rows under one prefix. */
export function group(prefix: string, rows: ReadonlyArray<readonly [string, string, unknown?]>): Case[] {
  return rows.map(([slug, template, data]) =>
    data === undefined ? { name: `${prefix}/${slug}`, template } : { name: `${prefix}/${slug}`, template, data },
  )
}

/**
 * One case per argument list: `{{ fn args }}` for every row, named
 * "<prefix>/<fn>-<index>". Rows are template argument text, e.g. `"abc" 3`.
 */
export function calls(prefix: string, fn: string, rows: readonly string[], data?: unknown): Case[] {
  return rows.map((args, i) => {
    const template = `{{ ${fn} ${args} }}`
    return data === undefined ? { name: `${prefix}/${fn}-${i}`, template } : { name: `${prefix}/${fn}-${i}`, template, data }
  })
}
