// Go's integer types as Sprig sees them, generated as a matrix: every
// expression that yields an integer (a literal and len are int; add, sub,
// int64, toDecimal are int64; a byte of a string is uint8; a JSON number is
// float64) fed to every function whose behaviour depends on the type: int
// parameters reject int64 and uint8, duration reads only int64, deepEqual and
// has tell int from int64, typeOf and printf %T name the type, eq and lt
// compare across them.

import type { Case } from './case.ts'

const P = 'int'

/** Expressions by the Go type they have, each worth 3. */
const sources: Readonly<Record<string, string>> = {
  lit: '3',
  len: '(len "abc")',
  int: '(int 3)',
  atoi: '(atoi "3")',
  intjson: '(int .n)',
  untilElem: '(index (until 5) 3)',
  rangeIdx: '$i',
  add: '(add 1 2)',
  sub: '(sub 5 2)',
  mul: '(mul 1 3)',
  div: '(div 9 3)',
  mod: '(mod 7 4)',
  add1: '(add1 2)',
  max: '(max 1 3)',
  int64: '(int64 3)',
  decimal: '(toDecimal "3")',
  byte: '(index "\\x03" 0)',
  json: '.n',
}

/** Uses of an integer whose outcome depends on its Go type. */
const uses: Readonly<Record<string, (x: string) => string>> = {
  trunc: (x) => `trunc ${x} "abcdef"`,
  indent: (x) => `indent ${x} "a\\nb"`,
  nindent: (x) => `nindent ${x} "a"`,
  repeat: (x) => `repeat ${x} "ab"`,
  substr: (x) => `substr 1 ${x} "abcdef"`,
  abbrev: (x) => `abbrev (add1 ${x} | int) "abcdefghij"`,
  wrap: (x) => `wrap ${x} "aaa bbb ccc"`,
  until: (x) => `until ${x}`,
  untilStep: (x) => `untilStep 0 10 ${x}`,
  seq: (x) => `seq ${x}`,
  chunk: (x) => `chunk ${x} (list 1 2 3 4 5 6 7)`,
  splitn: (x) => `splitn "," ${x} "a,b,c,d"`,
  plural: (x) => `plural "one" "many" ${x}`,
  regexFindAll: (x) => `regexFindAll "a" "aaaaa" ${x}`,
  randAlpha: (x) => `randAlpha ${x} | len`,
  randInt: (x) => `randInt 0 ${x} | typeOf`,
  round: (x) => `round 3.14159 ${x}`,
  index: (x) => `index (list 10 20 30 40) ${x}`,
  indexStr: (x) => `index "abcdef" ${x}`,
  slice: (x) => `slice (list 10 20 30 40) 1 ${x}`,
  printfWidth: (x) => `printf "[%*d]" ${x} 7`,
  printfD: (x) => `printf "%d %v %T" ${x} ${x} ${x}`,
  printfVerbs: (x) => `printf "%c|%q|%x|%U|%#v|%08b" ${x} ${x} ${x} ${x} ${x} ${x}`,
  eq: (x) => `eq ${x} 3`,
  lt: (x) => `lt ${x} 4`,
  ternary: (x) => `ternary "a" "b" (eq ${x} 3)`,
  deepEqual: (x) => `deepEqual ${x} 3`,
  has: (x) => `has ${x} (list 1 2 3)`,
  uniq: (x) => `uniq (list 3 ${x})`,
  without: (x) => `without (list 1 2 3) ${x}`,
  typeOf: (x) => `typeOf ${x}`,
  kindOf: (x) => `kindOf ${x}`,
  duration: (x) => `duration ${x}`,
  durationRound: (x) => `durationRound ${x}`,
  // A type date does not take means "now": only whether it read Unix seconds is stable.
  date: (x) => `date "2006-01-02 15:04:05" ${x} | hasPrefix "1970-01-01 00:00:03"`,
  toJson: (x) => `toJson (list ${x})`,
  strval: (x) => `toString ${x}`,
  quote: (x) => `quote ${x}`,
  empty: (x) => `empty ${x}`,
  float64: (x) => `float64 ${x} | typeOf`,
  addf: (x) => `addf ${x} 0.5`,
  range: (x) => `range ${x} }}{{ . }}-{{ typeOf . }},{{ end`,
}

function matrix(): Case[] {
  const out: Case[] = []
  for (const [use, body] of Object.entries(uses)) {
    for (const [source, x] of Object.entries(sources)) {
      const action = `{{ ${body(x)} }}`
      // $i is a range index: an int, read inside the loop.
      const template = source === 'rangeIdx' ? `{{ range $i, $_ := until 4 }}{{ if eq $i 3 }}${action}{{ end }}{{ end }}` : action
      out.push({ name: `${P}/${use}-${source}`, template, data: { n: 3 } })
    }
  }
  return out
}

export const goIntegerCases: Case[] = matrix()
