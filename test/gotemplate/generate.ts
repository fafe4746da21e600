// Random well-formed templates for the differential test, from a seeded PRNG
// so that every run (and CI) produces the same cases. The grammar mixes text,
// trim markers, pipelines of deterministic Sprig and built-in functions over
// random data, variables and nested if/range/with blocks. Integer arguments
// mix Go's int, int64 and uint8 results. Some cases are expected to fail at
// execution (a type that a function rejects); the test compares the error
// then.
//
//   node test/gotemplate/generate.ts [seed] [count]   prints the cases as JSON

import type { Case } from './corpus/case.ts'

/** mulberry32: small, fast and good enough for test input. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Gen {
  readonly rnd: () => number
  depth = 0
  vars: string[] = []
  /** Inside range or with, dot is no longer the data: fields are read from $. */
  dotChanged = false

  constructor(seed: number) {
    this.rnd = prng(seed)
  }

  int(n: number): number {
    return Math.floor(this.rnd() * n)
  }

  pick<T>(xs: readonly T[]): T {
    const x = xs[this.int(xs.length)]
    if (x === undefined) throw new Error('empty choice')
    return x
  }

  chance(p: number): boolean {
    return this.rnd() < p
  }

  word(): string {
    return this.pick([
      'alpha',
      'Beta',
      'gamma-ray',
      'x',
      '',
      'héllo',
      'snake_case',
      'CamelCase',
      'a b c',
      '42',
      '3.5',
      'true',
      'Ünïcödé',
      'tab\there',
      'new\nline',
    ])
  }

  data(): Record<string, unknown> {
    const scalars: unknown[] = [0, 1, -3, 2.5, 1e6, 0.125, '', 'text', 'Mixed Case', '17', true, false, null]
    const d: Record<string, unknown> = {}
    d['s'] = this.word()
    d['n'] = this.pick([0, 1, 7, -2, 3.75, 1e21])
    d['b'] = this.chance(0.5)
    d['z'] = null
    d['l'] = Array.from({ length: this.int(5) }, () => this.pick(scalars))
    d['sl'] = Array.from({ length: 1 + this.int(4) }, () => this.word())
    const m: Record<string, unknown> = {}
    for (let i = 0; i < this.int(5); i++) m[this.pick(['k', 'key', 'a', 'b', 'Zed', 'é', 'x-y'])] = this.pick(scalars)
    d['m'] = m
    d['nested'] = { inner: { v: this.pick(scalars), list: [this.word(), this.word()] } }
    return d
  }

  /** A string-valued expression. */
  strExpr(): string {
    const base = this.pick([
      '.s',
      '"lit"',
      '"Hello World"',
      '"  padded  "',
      '"a,b,c"',
      '(toString .n)',
      '(printf "%v" .n)',
      '(index .sl 0)',
      '"ÀÉÎ"',
    ])
    if (this.chance(0.5) || this.depth > 3) return base
    this.depth++
    const f = this.pick([
      () => `(upper ${this.strExpr()})`,
      () => `(lower ${this.strExpr()})`,
      () => `(trim ${this.strExpr()})`,
      () => `(title ${this.strExpr()})`,
      () => `(quote ${this.strExpr()})`,
      () => `(squote ${this.strExpr()})`,
      () => `(trunc ${this.countExpr(6)} ${this.strExpr()})`,
      () => `(repeat ${this.countExpr(3)} ${this.strExpr()})`,
      () => `(indent ${this.countExpr(4)} ${this.strExpr()})`,
      () => `(nindent ${this.countExpr(4)} ${this.strExpr()})`,
      () => `(wrap ${this.countExpr(8)} ${this.strExpr()})`,
      () => `(replace " " "_" ${this.strExpr()})`,
      () => `(kebabcase ${this.strExpr()})`,
      () => `(snakecase ${this.strExpr()})`,
      () => `(camelcase ${this.strExpr()})`,
      () => `(b64enc ${this.strExpr()})`,
      () => `(sha1sum ${this.strExpr()})`,
      () => `(join "-" ${this.listExpr()})`,
      () => `(printf "%s|%d" ${this.strExpr()} ${this.intExpr()})`,
      () => `(default "dflt" ${this.anyExpr()} | toString)`,
      () => `(toJson ${this.anyExpr()})`,
      () => `(cat ${this.strExpr()} ${this.anyExpr()})`,
      () => `(nospace ${this.strExpr()})`,
      () => `(abbrev 5 ${this.strExpr()})`,
      () => `(substr 0 ${this.countExpr(4)} ${this.strExpr()})`,
      () => `(regexReplaceAll "[aeiou]" ${this.strExpr()} "*")`,
      () => `(trimSuffix "c" ${this.strExpr()})`,
    ])
    const out = f()
    this.depth--
    return out
  }

  /**
   * An argument for a Sprig parameter of Go type int: usually a literal, at
   * times an expression that Go types as int (len, int, atoi), int64 (add,
   * int64, max) or uint8 (a byte of a string), which Go rejects.
   */
  countExpr(max: number): string {
    if (this.chance(0.6) || this.depth > 3) return String(this.int(max))
    return this.pick([
      () => this.intExpr(),
      () => `(int ${this.intExpr()})`,
      () => `(len ${this.strExpr()})`,
      () => `(index "\\x02\\x05" ${this.int(2)})`,
      () => `(int64 ${this.int(max)})`,
      () => `(sub (len .sl) 1)`,
    ])()
  }

  intExpr(): string {
    const base = this.pick([
      '1',
      '0',
      '-4',
      '(len .sl)',
      '(len .s)',
      '(int .n)',
      '(atoi "12")',
      '(len .l)',
      '(int64 .n)',
      '(index "abc" 1)',
    ])
    if (this.chance(0.6) || this.depth > 3) return base
    this.depth++
    const f = this.pick([
      () => `(add ${this.intExpr()} ${this.intExpr()})`,
      () => `(sub ${this.intExpr()} ${this.intExpr()})`,
      () => `(mul ${this.intExpr()} ${this.intExpr()})`,
      () => `(max ${this.intExpr()} ${this.intExpr()} ${this.intExpr()})`,
      () => `(min ${this.intExpr()} ${this.intExpr()})`,
      () => `(add1 ${this.anyExpr()})`,
      () => `(len ${this.listExpr()})`,
    ])
    const out = f()
    this.depth--
    return out
  }

  listExpr(): string {
    const base = this.pick([
      '.l',
      '.sl',
      '(list 1 "two" 3.5)',
      '(splitList "," "a,b,,c")',
      '(until 3)',
      '.nested.inner.list',
      '(keys .m | sortAlpha)',
    ])
    if (this.chance(0.6) || this.depth > 3) return base
    this.depth++
    const f = this.pick([
      () => `(append ${this.listExpr()} ${this.anyExpr()})`,
      () => `(rest ${this.listExpr()})`,
      () => `(reverse ${this.listExpr()})`,
      () => `(uniq ${this.listExpr()})`,
      () => `(compact ${this.listExpr()})`,
      () => `(sortAlpha ${this.listExpr()})`,
      () => `(concat ${this.listExpr()} ${this.listExpr()})`,
      () => `(without ${this.listExpr()} ${this.anyExpr()})`,
    ])
    const out = f()
    this.depth--
    return out
  }

  boolExpr(): string {
    return this.pick([
      () => '.b',
      () => `(eq ${this.strExpr()} ${this.strExpr()})`,
      () => `(ne ${this.intExpr()} ${this.intExpr()})`,
      () => `(lt ${this.intExpr()} ${this.intExpr()})`,
      () => `(empty ${this.anyExpr()})`,
      () => `(not ${this.anyExpr()})`,
      () => `(and ${this.anyExpr()} ${this.anyExpr()})`,
      () => `(or ${this.anyExpr()} ${this.anyExpr()})`,
      () => `(has ${this.anyExpr()} ${this.listExpr()})`,
      () => `(contains "a" ${this.strExpr()})`,
      () => `(hasKey .m "k")`,
      () => `(regexMatch "^[a-z]" ${this.strExpr()})`,
    ])()
  }

  anyExpr(): string {
    const vars = this.vars.length > 0 && this.chance(0.3) ? [this.pick(this.vars)] : []
    return this.pick([
      ...vars,
      '.s',
      '.n',
      '.z',
      '.b',
      '.m',
      '.l',
      '.nested.inner.v',
      '1',
      '2.5',
      '"str"',
      'nil',
      '(dict "k" .n)',
      '(coalesce .z .s)',
      '(ternary .s .n .b)',
      '(first .l)',
    ])
  }

  printfExpr(): string {
    const verb = this.pick([
      '%v',
      '%d',
      '%s',
      '%q',
      '%x',
      '%X',
      '%5.2f',
      '%-4v|',
      '%t',
      '%T',
      '%e',
      '%g',
      '%08.3f',
      '%+d',
      '%6s',
      '%.1s',
      '%c',
      '%U',
      '%o',
      '%b',
      '%%',
      '%[1]v',
      '%!',
    ])
    return `(printf "${verb}" ${this.anyExpr()})`
  }

  mapExpr(): string {
    return this.pick([
      () => `(dict "a" ${this.anyExpr()} "b" ${this.strExpr()})`,
      () => `(merge (dict "k" ${this.anyExpr()}) .m)`,
      () => `(mergeOverwrite (deepCopy .m) (dict "k" ${this.anyExpr()}))`,
      () => `(pick .m "k" "a")`,
      () => `(omit .m "k")`,
      () => '.nested',
      () => `(set (dict) "x" ${this.anyExpr()})`,
    ])()
  }

  lookupExpr(): string {
    return this.pick([
      '.m.k',
      '.m.nope',
      '.nested.inner.v',
      '.nested.inner.list',
      '(index .m "a")',
      '(index .sl 0)',
      '(index .l 3)',
      '(index .nested "inner" "v")',
      '.z.x',
      '(get .m "k")',
      '(dig "inner" "v" "dflt" .nested)',
    ])
  }

  pipeline(): string {
    const head = this.pick([
      () => this.strExpr(),
      () => this.intExpr(),
      () => this.anyExpr(),
      () => this.listExpr(),
      () => this.boolExpr(),
      () => this.printfExpr(),
      () => `(toJson ${this.mapExpr()})`,
      () => this.lookupExpr(),
      () => `(${this.pick(['eq', 'ne', 'lt', 'le', 'gt', 'ge'])} ${this.anyExpr()} ${this.anyExpr()})`,
    ])()
    // typeOf and kindOf stay out: Go's int and int64 are one bigint here (see known-differences.json).
    if (this.chance(0.3))
      return `${head} | ${this.pick(['quote', 'toString', 'toJson', 'upper', 'len', 'default "d"', 'printf "<%v>"', 'empty'])}`
    return head
  }

  /** A random RE2 pattern over a small alphabet, to exercise match priorities. */
  regex(depth = 0): string {
    const atoms = ['a', 'b', '.', '[ab]', '[^a]', '\\s', '\\w', '(?i:A)', 'x?']
    const n = 1 + this.int(3)
    let out = ''
    for (let i = 0; i < n; i++) {
      let atom: string
      const k = depth > 2 ? 0 : this.int(6)
      if (k === 1) atom = `(${this.regex(depth + 1)}|${this.regex(depth + 1)})`
      else if (k === 2) atom = `(?:${this.regex(depth + 1)})`
      else if (k === 3) atom = `(${this.regex(depth + 1)})`
      else if (k === 4) atom = this.pick(['^', '$', '\\b', '(?m:^)', '(?m:$)', ''])
      else atom = this.pick(atoms)
      if (atom !== '' && !/^[\^$]|^\\b|^\(\?m/.test(atom) && this.chance(0.5))
        atom += this.pick(['*', '+', '?', '*?', '+?', '??', '{1,2}', '{0,2}?'])
      out += atom
    }
    return out
  }

  regexCase(): string {
    const pat = this.regex()
    const subject = Array.from({ length: this.int(8) }, () => this.pick(['a', 'b', 'A', ' ', '\\n', 'x'])).join('')
    const fn = this.pick([
      () => `regexFindAll \`${pat}\` "${subject}" -1 | toJson`,
      () => `regexReplaceAll \`${pat}\` "${subject}" "<$1>"`,
      () => `regexReplaceAllLiteral \`${pat}\` "${subject}" "-"`,
      () => `regexSplit \`${pat}\` "${subject}" -1 | toJson`,
      () => `regexFind \`${pat}\` "${subject}" | quote`,
      () => `regexMatch \`${pat}\` "${subject}"`,
    ])()
    return `{{ ${fn} }}`
  }

  text(): string {
    return this.pick(['', ' ', '\n', 'txt ', ' - ', '\n  ', 'key: ', '\t', '{ ', '}', '# note\n'])
  }

  action(body: string): string {
    if (this.dotChanged) body = body.replace(/(^|[\s(])\.(?=[a-z])/g, '$1$$.')
    const l = this.chance(0.2) ? '{{- ' : '{{ '
    const r = this.chance(0.2) ? ' -}}' : ' }}'
    return l + body + r
  }

  block(): string {
    const parts: string[] = []
    // Variables declared in a block go out of scope at its end.
    const scope = this.vars.length
    const n = 1 + this.int(4)
    for (let i = 0; i < n; i++) {
      parts.push(this.text())
      const kind = this.depth > 2 ? 0 : this.int(9)
      switch (kind) {
        case 1: {
          this.depth++
          const elseBranch = this.chance(0.5) ? this.action('else') + this.block() : ''
          parts.push(this.action(`if ${this.boolExpr()}`) + this.block() + elseBranch + this.action('end'))
          this.depth--
          break
        }
        case 2: {
          this.depth++
          const v = `$v${this.vars.length}`
          this.vars.push(v)
          const head = this.chance(0.5) ? `range $i, ${v} := ${this.pick([this.listExpr(), '.m'])}` : `range ${this.listExpr()}`
          const elseBranch = this.chance(0.3) ? this.action('else') + 'empty' : ''
          const headAction = this.action(head)
          const outer = this.dotChanged
          this.dotChanged = true
          const body = this.block()
          this.dotChanged = outer
          parts.push(headAction + body + elseBranch + this.action('end'))
          this.vars.pop()
          this.depth--
          break
        }
        case 3: {
          this.depth++
          const headAction = this.action(`with ${this.anyExpr()}`)
          const outer = this.dotChanged
          this.dotChanged = true
          const body = this.action('.') + this.block()
          this.dotChanged = outer
          parts.push(headAction + body + this.action('end'))
          this.depth--
          break
        }
        case 4: {
          const v = `$x${this.vars.length}`
          parts.push(this.action(`${v} := ${this.pipeline()}`))
          this.vars.push(v)
          parts.push(this.action(v))
          break
        }
        case 5: {
          this.depth++
          parts.push(
            this.action(`if ${this.boolExpr()}`) +
              this.block() +
              this.action(`else if ${this.boolExpr()}`) +
              this.block() +
              this.action('else') +
              this.block() +
              this.action('end'),
          )
          this.depth--
          break
        }
        case 6: {
          this.depth++
          const ctl = this.pick(['break', 'continue'])
          const headAction = this.action(`range $i, $e := ${this.listExpr()}`)
          const outer = this.dotChanged
          this.dotChanged = true
          parts.push(
            headAction +
              this.action(`if ${this.boolExpr()}`) +
              this.action(ctl) +
              this.action('end') +
              this.action('$e') +
              this.text() +
              this.action('end'),
          )
          this.dotChanged = outer
          this.depth--
          break
        }
        default:
          parts.push(this.action(this.pipeline()))
      }
    }
    this.vars.length = scope
    return parts.join('')
  }
}

export function generateCases(seed: number, count: number): Case[] {
  const cases: Case[] = []
  for (let i = 0; i < count; i++) {
    const g = new Gen(seed + i * 7919)
    const data = g.data()
    // One case in five is a regular expression case; some define a template and call it.
    let template = i % 5 === 4 ? g.regexCase() : g.block()
    if (i % 7 === 3)
      template = `{{ define "part" }}${g.block()}{{ end }}${template}{{ template "part" ${g.pick(['.', '(dict "s" .s "n" 1 "b" true "z" nil "l" .l "m" .m "sl" .sl "nested" .nested)'])} }}`
    cases.push({ name: `generated/${seed}-${i}`, template, data })
  }
  return cases
}

if (import.meta.main) {
  const seed = Number(process.argv[2] ?? '1')
  const count = Number(process.argv[3] ?? '10')
  process.stdout.write(JSON.stringify(generateCases(seed, count), null, 1) + '\n')
}
