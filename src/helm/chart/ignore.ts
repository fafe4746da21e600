// .helmignore as Helm evaluates it (pkg/ignore): Go filepath.Match patterns,
// the first matching rule wins, and a negated rule `!p` ignores everything
// that does NOT match p (Helm's own reading, not gitignore's). Only the
// directory loader applies it; archives are taken as they are.

export class IgnoreSyntaxError extends Error {
  override readonly name = 'IgnoreSyntaxError'
}

type Token =
  | { readonly t: 'star' }
  | { readonly t: 'any' }
  | { readonly t: 'lit'; readonly c: string }
  | { readonly t: 'class'; readonly neg: boolean; readonly ranges: readonly [string, string][] }

/** Compiles a Go filepath.Match pattern; a malformed one is an error, as Match(pattern, "abc") reports it. */
function compileMatch(pattern: string): Token[] {
  const out: Token[] = []
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === '*') out.push({ t: 'star' })
    else if (c === '?') out.push({ t: 'any' })
    else if (c === '\\') {
      const next = chars[++i]
      if (next === undefined) throw new IgnoreSyntaxError(`syntax error in pattern ${JSON.stringify(pattern)}`)
      out.push({ t: 'lit', c: next })
    } else if (c === '[') {
      let neg = false
      if (chars[i + 1] === '^') {
        neg = true
        i++
      }
      const ranges: [string, string][] = []
      const one = (): string => {
        let ch = chars[++i]
        if (ch === '\\') ch = chars[++i]
        if (ch === undefined || ch === ']' || ch === '-') throw new IgnoreSyntaxError(`syntax error in pattern ${JSON.stringify(pattern)}`)
        return ch
      }
      do {
        const lo = one()
        let hi = lo
        if (chars[i + 1] === '-') {
          i++
          hi = one()
        }
        ranges.push([lo, hi])
      } while (chars[i + 1] !== ']' && i + 1 < chars.length)
      if (chars[++i] !== ']') throw new IgnoreSyntaxError(`syntax error in pattern ${JSON.stringify(pattern)}`)
      out.push({ t: 'class', neg, ranges })
    } else out.push({ t: 'lit', c })
  }
  return out
}

function matchTokens(tokens: readonly Token[], name: readonly string[], ti = 0, ni = 0): boolean {
  for (; ti < tokens.length; ti++) {
    const tok = tokens[ti]!
    if (tok.t === 'star') {
      // "*" never crosses a "/".
      for (let k = ni; k <= name.length; k++) {
        if (matchTokens(tokens, name, ti + 1, k)) return true
        if (name[k] === '/') return false
      }
      return false
    }
    const c = name[ni]
    if (c === undefined) return false
    // Only a literal "/" matches a "/"; "?" and classes never do.
    if (c === '/' && tok.t !== 'lit') return false
    if (tok.t === 'lit' && tok.c !== c) return false
    if (tok.t === 'class' && tok.ranges.some(([lo, hi]) => c >= lo && c <= hi) === tok.neg) return false
    ni++
  }
  return ni === name.length
}

interface Rule {
  readonly negate: boolean
  readonly mustDir: boolean
  /** Match the basename only (a pattern without "/"). */
  readonly base: boolean
  readonly tokens: readonly Token[]
}

export class IgnoreRules {
  readonly #rules: Rule[] = []

  /** Parses a .helmignore file; the built-in `templates/.?*` rule comes last, as Helm adds it after the file. */
  static parse(text: string): IgnoreRules {
    const r = new IgnoreRules()
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
    lines.forEach((line, i) => {
      try {
        r.#add(line)
      } catch (err) {
        if (err instanceof IgnoreSyntaxError) throw new IgnoreSyntaxError(`.helmignore line ${i + 1}: ${err.message}`)
        throw err
      }
    })
    r.#add('templates/.?*')
    return r
  }

  #add(line: string): void {
    let rule = line.trim()
    if (rule === '' || rule.startsWith('#')) return
    if (rule.includes('**')) throw new IgnoreSyntaxError('double-star (**) syntax is not supported')
    compileMatch(rule)
    const negate = rule.startsWith('!')
    if (negate) rule = rule.slice(1)
    const mustDir = rule.endsWith('/')
    if (mustDir) rule = rule.slice(0, -1)
    const base = !rule.includes('/')
    if (rule.startsWith('/')) rule = rule.slice(1)
    this.#rules.push({ negate, mustDir, base, tokens: compileMatch(rule) })
  }

  /** Whether Helm skips `path` (chart-relative, "/"-separated). */
  ignores(path: string, isDir: boolean): boolean {
    if (path === '' || path === '.' || path === './') return false
    for (const r of this.#rules) {
      const subject = [...(r.base ? path.slice(path.lastIndexOf('/') + 1) : path)]
      if (r.negate) {
        if (r.mustDir && !isDir) return true
        if (!matchTokens(r.tokens, subject)) return true
        continue
      }
      if (r.mustDir && !isDir) continue
      if (matchTokens(r.tokens, subject)) return true
    }
    return false
  }
}
