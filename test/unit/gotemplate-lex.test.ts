// The lexer's token stream: where text ends, how trim markers and comments
// are consumed, and how numbers, strings, fields and keywords are split.

import t from 'tap'
import { lex, Tok } from '../../src/gotemplate/lex.ts'

const name = (type: number): string => Object.entries(Tok).find(([, v]) => v === type)?.[0] ?? String(type)

/** Tokens as "Type:value" strings, spaces and delimiters included. */
function tokens(src: string): string[] {
  return lex(src).map((tok) => `${name(tok.type)}:${tok.val}`)
}

interface Case {
  readonly name: string
  readonly src: string
  readonly want: readonly string[]
}

const cases: Case[] = [
  { name: 'empty input is EOF', src: '', want: ['EOF:'] },
  { name: 'text only', src: 'hello\nworld', want: ['Text:hello\nworld', 'EOF:'] },
  {
    name: 'text and a field action',
    src: 'a{{.b}}c',
    want: ['Text:a', 'LeftDelim:{{', 'Field:.b', 'RightDelim:}}', 'Text:c', 'EOF:'],
  },
  {
    name: 'chained fields are separate tokens',
    src: '{{.a.b $x.c $}}',
    want: ['LeftDelim:{{', 'Field:.a', 'Field:.b', 'Space: ', 'Variable:$x', 'Field:.c', 'Space: ', 'Variable:$', 'RightDelim:}}', 'EOF:'],
  },
  {
    name: 'left trim marker drops preceding whitespace and its own space',
    src: 'a \n\t{{- .b}}',
    want: ['Text:a', 'LeftDelim:{{', 'Field:.b', 'RightDelim:}}', 'EOF:'],
  },
  {
    name: 'right trim marker drops following whitespace',
    src: '{{.b -}} \r\n x',
    want: ['LeftDelim:{{', 'Field:.b', 'RightDelim:}}', 'Text:x', 'EOF:'],
  },
  {
    name: 'a minus without a following space is a number sign',
    src: '{{-3}}',
    want: ['LeftDelim:{{', 'Number:-3', 'RightDelim:}}', 'EOF:'],
  },
  { name: 'comments vanish', src: 'a{{/* c */}}b', want: ['Text:a', 'Text:b', 'EOF:'] },
  { name: 'trimmed comment', src: 'a {{- /* c */ -}} b', want: ['Text:a', 'Text:b', 'EOF:'] },
  {
    name: 'keywords, booleans, nil and identifiers',
    src: '{{if true}}{{else}}{{end}}{{range nil}}{{break}}{{continue}}{{with x}}{{define "a"}}{{block "b" .}}{{template "c"}}',
    want: [
      'LeftDelim:{{',
      'If:if',
      'Space: ',
      'Bool:true',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Else:else',
      'RightDelim:}}',
      'LeftDelim:{{',
      'End:end',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Range:range',
      'Space: ',
      'Nil:nil',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Break:break',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Continue:continue',
      'RightDelim:}}',
      'LeftDelim:{{',
      'With:with',
      'Space: ',
      'Identifier:x',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Define:define',
      'Space: ',
      'String:"a"',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Block:block',
      'Space: ',
      'String:"b"',
      'Space: ',
      'Dot:.',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Template:template',
      'Space: ',
      'String:"c"',
      'RightDelim:}}',
      'EOF:',
    ],
  },
  {
    name: 'numbers in every syntax',
    src: '{{1 -2 +3 0x1F 0o7 0b1 1_000 1.5 .5 1e3 0x1p-2 1i}}',
    want: [
      'LeftDelim:{{',
      'Number:1',
      'Space: ',
      'Number:-2',
      'Space: ',
      'Number:+3',
      'Space: ',
      'Number:0x1F',
      'Space: ',
      'Number:0o7',
      'Space: ',
      'Number:0b1',
      'Space: ',
      'Number:1_000',
      'Space: ',
      'Number:1.5',
      'Space: ',
      'Number:.5',
      'Space: ',
      'Number:1e3',
      'Space: ',
      'Number:0x1p-2',
      'Space: ',
      'Number:1i',
      'RightDelim:}}',
      'EOF:',
    ],
  },
  {
    name: 'strings, raw strings and characters',
    src: "{{\"a\\\"b\" `c\nd` 'x' '\\n'}}",
    want: [
      'LeftDelim:{{',
      'String:"a\\"b"',
      'Space: ',
      'RawString:`c\nd`',
      'Space: ',
      "CharConstant:'x'",
      'Space: ',
      "CharConstant:'\\n'",
      'RightDelim:}}',
      'EOF:',
    ],
  },
  {
    name: 'pipes, parentheses, declarations and assignment',
    src: '{{$x := (a | b)}}{{$x = 1}}{{range $i, $e := .}}',
    want: [
      'LeftDelim:{{',
      'Variable:$x',
      'Space: ',
      'Declare::=',
      'Space: ',
      'LeftParen:(',
      'Identifier:a',
      'Space: ',
      'Pipe:|',
      'Space: ',
      'Identifier:b',
      'RightParen:)',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Variable:$x',
      'Space: ',
      'Assign:=',
      'Space: ',
      'Number:1',
      'RightDelim:}}',
      'LeftDelim:{{',
      'Range:range',
      'Space: ',
      'Variable:$i',
      'Char:,',
      'Space: ',
      'Variable:$e',
      'Space: ',
      'Declare::=',
      'Space: ',
      'Dot:.',
      'RightDelim:}}',
      'EOF:',
    ],
  },
  {
    name: 'newlines inside an action are spaces',
    src: '{{\n.a\n}}',
    want: ['LeftDelim:{{', 'Space:\n', 'Field:.a', 'Space:\n', 'RightDelim:}}', 'EOF:'],
  },
  {
    name: 'unicode identifiers and fields',
    src: '{{.ключ é}}',
    want: ['LeftDelim:{{', 'Field:.ключ', 'Space: ', 'Identifier:é', 'RightDelim:}}', 'EOF:'],
  },
  { name: 'unclosed action ends in an error', src: 'a{{.b', want: ['Text:a', 'LeftDelim:{{', 'Field:.b', 'Error:unclosed action'] },
  { name: 'unclosed comment', src: '{{/* x', want: ['Error:unclosed comment'] },
  { name: 'comment must end at the delimiter', src: '{{/* x */ }}', want: ['Error:comment ends before closing delimiter'] },
  { name: 'bad character after a field', src: '{{.a-b}}', want: ['LeftDelim:{{', "Error:bad character U+002D '-'"] },
  { name: 'unexpected right paren replaces the paren', src: '{{1)}}', want: ['LeftDelim:{{', 'Number:1', 'Error:unexpected right paren'] },
  { name: 'unclosed left paren', src: '{{(1}}', want: ['LeftDelim:{{', 'LeftParen:(', 'Number:1', 'Error:unclosed left paren'] },
  { name: 'bad number syntax', src: '{{1a}}', want: ['LeftDelim:{{', 'Error:bad number syntax: "1a"'] },
  { name: 'unrecognized character', src: '{{\u0001}}', want: ['LeftDelim:{{', 'Error:unrecognized character in action: U+0001'] },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    t.same(tokens(c.src), c.want)
  })
}

t.test('token positions index the source', async (t) => {
  const toks = lex('ab\n{{ .c }}')
  t.same(
    toks.map((tok) => tok.pos),
    [0, 3, 5, 6, 8, 9, 11],
  )
})
