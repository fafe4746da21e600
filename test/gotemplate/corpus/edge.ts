// Edge cases that cut across features: nil and empty everywhere, unicode and
// byte lengths, deep nesting, whitespace around newlines, big numbers.

import { group } from './case.ts'
import type { Case } from './case.ts'

const d = { u: 'héllo', cjk: '日本語', emoji: '👍🏽', zwj: '👨‍👩‍👧', nil: null, e: '', l: [null, null], m: { '': 'empty-key', ' ': 'space' }, deep: { a: { b: { c: { d: { e: { f: 'bottom' } } } } } }, nums: [0, -0, 1.5, 1e100, 123456789012, 0.1] }

export const edgeCases: Case[] = [
  ...group('edge', [
    ['len-unicode', '{{ len .u }} {{ len .cjk }} {{ len .emoji }} {{ len .zwj }}', d],
    ['index-unicode-byte', '{{ index .u 1 }}', d],
    ['slice-unicode-byte', '{{ slice .u 0 2 }}', d],
    ['print-nil-list', '{{ .l }} {{ index .l 0 }}', d],
    ['range-nil-elems', '{{ range .l }}[{{ . }}]{{ end }}', d],
    ['empty-key', '{{ index .m "" }} {{ index .m " " }}', d],
    ['deep', '{{ .deep.a.b.c.d.e.f }}', d],
    ['deep-missing', '{{ .deep.a.b.x.d }}', d],
    ['nums', '{{ range .nums }}{{ . }} {{ end }}', d],
    ['nums-json', '{{ toJson .nums }}', d],
    ['large-output', '{{ range until 200 }}{{ . }},{{ end }}'],
    ['nested-range-10', '{{ range until 3 }}{{ range until 3 }}{{ range until 2 }}x{{ end }}{{ end }}|{{ end }}'],
    ['whitespace-only-lines', 'a\n  {{- if true }}\n  b\n  {{- end }}\n'],
    ['trim-crlf', 'a\r\n{{- "b" -}}\r\nc'],
    ['trim-unicode-space', 'a\u00a0{{- "b" }}'],
    ['var-shadow-range', '{{ $x := "out" }}{{ range list 1 2 }}{{ $x := . }}{{ $x }}{{ end }}{{ $x }}'],
    ['with-else-nil', '{{ with .nil }}x{{ else }}nil{{ end }}', d],
    ['eq-nil-string', '{{ eq .nil "" }}', d],
    ['if-empty-key-map', '{{ if .m }}has{{ end }}', d],
    ['missing-on-nil-root-index', '{{ index . "x" }}'],
    ['printf-nil-map-index', '{{ printf "%v" (index .m "zz") }}', d],
    ['string-compare-unicode', '{{ lt "z" "é" }} {{ lt "\uffff" "😀" }}'],
    ['sortAlpha-utf8-order', '{{ sortAlpha (list "😀" "\uffff" "z" "é") }}'],
    ['dict-key-utf8-order', '{{ dict "😀" 1 "\uffff" 2 }}'],
    ['quote-emoji', '{{ quote .emoji }} {{ printf "%q" .zwj }}', d],
    ['upper-emoji', '{{ upper .zwj }}', d],
    ['trunc-emoji', '{{ trunc 2 .emoji }}', d],
    ['substr-cjk', '{{ substr 0 3 .cjk }}', d],
    ['substr-invalid-utf8-quote', '{{ substr 0 2 .u | quote }} {{ substr 0 2 .u | len }} {{ printf "%q" (trunc 2 .u) }}', d],
    ['template-in-range', '{{ define "item" }}<{{ . }}>{{ end }}{{ range list 1 2 }}{{ template "item" . }}{{ end }}'],
    ['pipeline-nil-func-result', '{{ first (list) | default "dflt" }}'],
    ['nil-func-result-field', '{{ (first (list)).x }}'],
    ['list-field-access', '{{ (list 1).x }}'],
    ['int-field-access', '{{ (add 1 1).x }}'],
    ['time-method-call', '{{ (toDate "2006-01-02" "2024-05-06").Format "Jan 2" }}'],
    ['time-unix-method', '{{ (toDate "2006" "2020").Unix }}'],
    ['chained-default-empty', '{{ .e | default .nil | default "last" }}', d],
    ['output-after-exec-error', 'start {{ .nope.x }} end', { nope: null }],
    ['number-key-data', '{{ index . "1" }}', { '1': 'one' }],
    ['bool-key', '{{ .true }}', { true: 'yes' }],
    ['long-string', '{{ repeat 1000 "ab" | len }}'],
    ['many-args', '{{ list 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 | len }}'],
    ['paren-nesting', '{{ add (add (add 1 2) (add 3 4)) (add 5 (add 6 7)) }}'],
  ]),
]
