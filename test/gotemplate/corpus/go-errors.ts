// Error texts a Template author reads in a status condition, compared with
// Go's byte for byte: regular expressions RE2 rejects (lookbehind (?<= and
// (?<! are invalid named captures in Go, (?P<name> and (?<name> both name a
// group), comparisons across Go kinds (int with int64 and uint8 compare, int
// with float64 does not, pointers are equal only to themselves), and the
// bounds of Sprig's slice.

import { group } from './case.ts'
import type { Case } from './case.ts'

const R = 'regex-error'
const C = 'compare-kinds'

const patterns: Readonly<Record<string, string>> = {
  lookbehind: '(?<=a)b',
  negLookbehind: '(?<!a)b',
  lookahead: '(?=a)',
  negLookahead: '(?!a)',
  angleName: '(?<name>a)',
  duplicateName: '(?P<name>a)(?P<name>b)',
  digitName: '(?<1a>x)',
  emptyName: '(?<>x)',
  openPName: '(?P<n',
  openName: '(?<n',
  backref: 'a\\1',
  badFlag: '(?z)a',
  openClass: '[a-',
  badRange: '[z-a]',
  stacked: 'a**',
  bigRepeat: 'a{1001}',
  invertedRepeat: 'a{2,1}',
  bigZ: '\\Z',
  bigC: '\\C',
  badClass: '\\p{Foo}',
  badEscape: '\\8',
  openParen: '(',
  closeParen: ')',
  repeatRepeat: 'x{1000}{2}',
  leadingStar: '*a',
  trailingBackslash: '\\',
  badPosix: '[[:foo:]]',
  pythonRef: '(?P=name)',
  comment: '(?#comment)',
  openGroup: '(?:a',
  possessive: 'a++',
  lazyPossessive: 'a?+',
  quoteMeta: '\\Q*',
  bigCodepoint: '\\x{110000}',
  classInRange: '[\\d-z]',
  openFlags: '(?i',
  emptyNegation: '(?-)',
  flagsGroup: '(?i-i:a)',
  recursion: '(?P>n)',
  bracedWordBoundary: '\\b{',
  unicodeShort: '\\pN',
  negatedNegated: '\\P{^Greek}x',
}

const fns: Readonly<Record<string, string>> = {
  mustRegexMatch: 'mustRegexMatch "%s" "ab"',
  regexFind: 'regexFind "%s" "ab"',
  mustRegexFindAll: 'mustRegexFindAll "%s" "ab" -1',
}

function regexCases(): Case[] {
  const out: Case[] = []
  for (const [p, pattern] of Object.entries(patterns)) {
    for (const [f, call] of Object.entries(fns)) {
      out.push({ name: `${R}/${f}-${p}`, template: `{{ ${call.replace('%s', pattern.replaceAll('\\', '\\\\'))} }}` })
    }
  }
  return out
}

const regexRows: ReadonlyArray<readonly [string, string]> = [
  ['duplicate-name-expand-first', '{{ regexReplaceAll "(?P<x>a)|(?P<x>b)" "ab" "[${x}]" }}'],
  ['duplicate-name-expand-matched', '{{ regexReplaceAll "(?<x>a)|(?<x>b)" "ba" "[$x]" }}'],
  ['short-angle', '{{ mustRegexMatch "(?<" "a" }}'],
  ['short-p-angle', '{{ mustRegexMatch "(?P<" "a" }}'],
  ['unterminated-p-name', '{{ mustRegexMatch "(?P<a" "a" }}'],
  ['unterminated-name', '{{ mustRegexMatch "(?<a" "a" }}'],
  ['lookbehind-later-gt', '{{ mustRegexMatch "x(?<!a)b>c" "a" }}'],
  ['lookbehind-empty', '{{ mustRegexMatch "(?<=a)" "a" }}'],
  ['lookbehind-nested', '{{ mustRegexMatch "((?<=a))" "a" }}'],
  ['non-ascii-name', '{{ mustRegexMatch "(?<é>a)" "a" }}'],
  ['open-negation', '{{ mustRegexMatch "(?i-" "a" }}'],
  ['open-question', '{{ mustRegexMatch "(?" "a" }}'],
  ['open-question-after', '{{ mustRegexMatch "a(?" "a" }}'],
  ['named-find', '{{ regexFind "(?<year>[0-9]{4})-(?<m>[0-9]{2})" "on 2024-05-06" }}'],
  ['named-expand', '{{ regexReplaceAll "(?<year>[0-9]{4})-(?<m>[0-9]{2})" "on 2024-05" "$m/${year}" }}'],
  ['p-gt', '{{ mustRegexMatch "(?P>a)" "a" }}'],
  ['quote-name', '{{ mustRegexMatch "(?\'n\'a)" "a" }}'],
  ['regexMatch-swallows', '{{ regexMatch "(?<!a)b" "ab" }} {{ regexMatch "(?<x>a)" "a" }}'],
  ['split-error', '{{ mustRegexSplit "(?<=,)" "a,b" -1 }}'],
  ['replace-literal-error', '{{ regexReplaceAllLiteral "(?<!x)" "a" "b" }}'],
]

const compareRows: ReadonlyArray<readonly [string, string, unknown?]> = [
  ['int-int64', '{{ eq 3 (add 1 2) }} {{ lt 2 (add 1 2) }} {{ le (add 1 2) 3 }} {{ gt (int64 4) 3 }} {{ ne (len "ab") (add 1 1) }}'],
  ['int-uint8', '{{ eq (index "a" 0) 97 }} {{ lt (index "a" 0) 98 }} {{ gt 96 (index "a" 0) }} {{ eq 97 (index "a" 0) }}'],
  ['uint8-negative', '{{ eq (index "a" 0) -1 }} {{ lt -1 (index "a" 0) }} {{ lt (index "a" 0) -1 }}'],
  ['uint64-int64', '{{ eq (semver "3.0.0").Major (add 1 2) }} {{ lt (add 1 1) (semver "3.0.0").Major }}'],
  ['eq-multi', '{{ eq (add 1 2) 1 2 3 }} {{ eq (index "c" 0) 97 98 99 }}'],
  ['int64-float', '{{ eq (add 1 2) 3.0 }}'],
  ['uint8-float', '{{ lt (index "a" 0) 97.5 }}'],
  ['json-int64', '{{ eq .n (add 1 2) }}', { n: 3 }],
  ['json-int', '{{ eq (int .n) (add 1 2) }} {{ eq .n 3.0 }}', { n: 3 }],
  ['uint8-string', '{{ eq (index "a" 0) "a" }}'],
  ['month-int', '{{ $t := toDate "2006-01-02" "2024-03-01" }}{{ eq $t.Month 3 }} {{ lt $t.Month (add 2 2) }} {{ eq $t.Weekday 5 }}'],
  ['duration-int', '{{ $t := toDate "2006-01-02" "2024-03-01" }}{{ eq ($t.Sub $t) 0 }} {{ lt ($t.Sub $t) (int64 1) }}'],
  ['pointer-var', '{{ $v := semver "1.0.0" }}{{ $w := $v }}{{ eq $v $w }} {{ ne $v (semver "1.0.0") }}'],
  ['pointer-vs-value', '{{ eq (semver "1.0.0") (semver "1.0.0").IncPatch }}'],
  ['pointer-nil', '{{ eq (semver "1.0.0") nil }} {{ ne nil (semver "1.0.0") }}'],
  ['pointer-lt', '{{ lt (semver "1.0.0") (semver "2.0.0") }}'],
  ['time-lt', '{{ lt now now }}'],
  [
    'struct-values-equal',
    '{{ eq (semver "1.0.0").IncPatch (semver "1.0.0").IncPatch }} {{ eq (semver "1.0.0").IncPatch (semver "1.0.1").IncMinor }}',
  ],
  ['time-struct', '{{ eq (toDate "2006" "2020") (toDate "2006" "2021") }} {{ eq (toDate "2006" "2020") "2020" }}'],
  ['nil-slice', '{{ eq (rest (list)) nil }} {{ eq (list) nil }}'],
  ['nil-slice-vs-list', '{{ eq (rest (list)) (list 1) }}'],
  ['lists', '{{ eq (list 1) (list 1) }}'],
  ['list-vs-map', '{{ eq (list 1) (dict) }}'],
  ['slice-past-length', '{{ slice (list 1 2 3) 1 4 }}'],
  ['slice-past-length-json', '{{ slice .l 1 5 }}', { l: [1, 2, 3] }],
  ['slice-int64-bounds', '{{ slice (list 1 2 3 4) (add 0 1) (len "abc") }} {{ slice "abcdef" (index "\\x01" 0) 3 }}'],
  ['slice-start-after-end', '{{ slice (list 1 2 3) 2 1 }}'],
  ['slice-string-sprig', '{{ slice "abc" 1 }}'],
  ['index-uint8', '{{ index (list 10 20 30) (index "\\x02" 0) }}'],
  ['index-uint64', '{{ index (list 10 20 30) (semver "2.0.0").Major }}'],
  ['index-float', '{{ index (list 10 20 30) .n }}', { n: 1 }],
  [
    'template-depth-within-limit',
    '{{ define "d" }}{{ if gt . 0 }}{{ template "d" (sub . 1) }}{{ end }}{{ . }}{{ end }}{{ template "d" 50 }}',
  ],
]

export const goErrorCases: Case[] = [...regexCases(), ...group(R, regexRows), ...group(C, compareRows)]
