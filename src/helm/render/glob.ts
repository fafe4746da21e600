// gobwas/glob patterns with '/' as the separator, as .Files.Glob compiles
// them: `*` and `?` stay within a path segment, `**` crosses segments,
// `[a-z]`, `[!x]`, `{a,b}` and `\` escapes. Compiled to a JS regular
// expression built only from escaped literals and fixed classes.

const escapeRe = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')

class GlobSyntaxError extends Error {}

function compileAt(p: string, i: number, stopAt: string): { re: string; next: number } {
  let re = ''
  while (i < p.length) {
    const c = p[i] as string
    if (stopAt.includes(c)) return { re, next: i }
    if (c === '\\') {
      if (i + 1 >= p.length) throw new GlobSyntaxError('unexpected end of pattern')
      re += escapeRe(p[i + 1] as string)
      i += 2
    } else if (c === '*') {
      if (p[i + 1] === '*') {
        re += '.*'
        i += 2
      } else {
        re += '[^/]*'
        i++
      }
    } else if (c === '?') {
      re += '[^/]'
      i++
    } else if (c === '[') {
      const end = p.indexOf(']', i + 1)
      if (end === -1) throw new GlobSyntaxError('unclosed range')
      let body = p.slice(i + 1, end)
      const negate = body.startsWith('!')
      if (negate) body = body.slice(1)
      if (body === '') throw new GlobSyntaxError('empty range')
      let cls = ''
      for (let j = 0; j < body.length; j++) {
        const ch = body[j] as string
        if (body[j + 1] === '-' && j + 2 < body.length) {
          cls += `${escapeRe(ch)}-${escapeRe(body[j + 2] as string)}`
          j += 2
        } else cls += escapeRe(ch)
      }
      re += negate ? `[^/${cls}]` : `[${cls}]`
      i = end + 1
    } else if (c === '{') {
      const alts: string[] = []
      let j = i + 1
      for (;;) {
        const part = compileAt(p, j, ',}')
        alts.push(part.re)
        if (part.next >= p.length) throw new GlobSyntaxError('unclosed alternatives')
        j = part.next + 1
        if (p[part.next] === '}') break
      }
      re += `(?:${alts.join('|')})`
      i = j
    } else {
      re += escapeRe(c)
      i++
    }
  }
  return { re, next: i }
}

/** A matcher for the pattern; an invalid pattern matches everything, as Helm falls back to "**". */
export function compileGlob(pattern: string): (name: string) => boolean {
  try {
    const { re, next } = compileAt(pattern, 0, '')
    if (next !== pattern.length) return () => true
    const rx = new RegExp(`^${re}$`, 's')
    return (name) => rx.test(name)
  } catch (e) {
    if (e instanceof GlobSyntaxError) return () => true
    throw e
  }
}
