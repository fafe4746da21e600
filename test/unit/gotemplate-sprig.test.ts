// Sprig functions called directly, without the template engine, on the
// corpus cases that are a single call with literal or .field arguments
// ({{ fn "a" 1 .x }}). Expectations come from test/gotemplate/expected.json,
// recorded from Go, so this pins the function library on its own.

import { readFileSync } from 'node:fs'
import t from 'tap'
import { sprigFuncs } from '../../src/gotemplate/sprig/index.ts'
import { bcryptHash } from '../../src/gotemplate/sprig/bcrypt.ts'
import { formatV } from '../../src/gotemplate/sprig/gofmt.ts'
import { goTypeOf } from '../../src/gotemplate/sprig/types.ts'
import { GoFuncError, GoTime, isMap, newMap, setKey } from '../../src/gotemplate/value.ts'
import type { ArgKind, GoValue } from '../../src/gotemplate/value.ts'
import { allCases } from '../gotemplate/corpus/index.ts'
import { EXPECTED_PATH } from '../gotemplate/record.ts'
import type { Expected } from '../gotemplate/record.ts'

const expected = JSON.parse(readFileSync(EXPECTED_PATH, 'utf8')) as Expected

type Arg = { const: 'int'; v: bigint; float: number } | { const: 'float'; v: number } | { value: GoValue; literal?: true }

function jsonToGo(x: unknown): GoValue {
  if (x === null || typeof x === 'string' || typeof x === 'boolean' || typeof x === 'number') return x
  if (Array.isArray(x)) return x.map(jsonToGo)
  const m = newMap()
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) setKey(m, k, jsonToGo(v))
  return m
}

/** Tokens of a flat argument list; undefined when the case needs the real engine. */
function parseArgs(src: string, data: GoValue): Arg[] | undefined {
  const args: Arg[] = []
  let s = src.trim()
  while (s !== '') {
    let m: RegExpExecArray | null
    if ((m = /^"((?:[^"\\]|\\.)*)"/.exec(s))) {
      args.push({
        value: JSON.parse(
          `"${m[1]
            ?.replace(/\\x([0-9a-f]{2})/gi, '\\u00$1')
            .replace(/\\U([0-9a-f]{8})/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
            .replace(/\\v/g, '\\u000b')
            .replace(/\\a/g, '\\u0007')}"`,
        ) as string,
      })
    } else if ((m = /^-?(?:0x[0-9a-f]+|[0-9]+)(?![.eE0-9])/i.exec(s))) {
      const v = BigInt(m[0].replace(/^(-?)0x/i, '$10x').startsWith('-') ? -BigInt(m[0].slice(1)) : BigInt(m[0]))
      args.push({ const: 'int', v, float: Number(v) })
    } else if ((m = /^-?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(s))) {
      args.push({ const: 'float', v: Number(m[0]) })
    } else if ((m = /^(nil|true|false)\b/.exec(s))) {
      args.push({ value: m[1] === 'nil' ? null : m[1] === 'true', literal: true })
    } else if ((m = /^(\.[A-Za-z_][A-Za-z0-9_]*)+/.exec(s))) {
      let v: GoValue = data
      for (const k of m[0].slice(1).split('.')) {
        if (!isMap(v) || !Object.hasOwn(v, k)) return undefined
        v = v[k]
      }
      args.push({ value: v })
    } else return undefined
    s = s.slice(m[0].length).trimStart()
  }
  return args
}

class ArgError extends Error {}

function convert(a: Arg, kind: ArgKind): GoValue {
  if ('value' in a) {
    const v = a.value
    // A nil from the data is an interface{} holding nil: only interface{} parameters take it.
    if (v === null && kind !== 'any' && !('literal' in a)) throw new ArgError('nil interface')
    switch (kind) {
      case 'string':
        if (typeof v !== 'string') throw new ArgError('not a string')
        return v
      case 'int':
      case 'int64':
        if (typeof v !== 'bigint') throw new ArgError('not an int')
        return v
      case 'float64':
        if (typeof v !== 'number') throw new ArgError('not a float')
        return v
      case 'bool':
        if (typeof v !== 'boolean') throw new ArgError('not a bool')
        return v
      case 'map':
        if (v !== null && !isMap(v)) throw new ArgError('not a map')
        return v
      case 'time':
        if (!(v instanceof GoTime)) throw new ArgError('not a time')
        return v
      default:
        if (kind.startsWith('type:') && (v === null || goTypeOf(v) !== kind.slice(5))) throw new ArgError(`not a ${kind.slice(5)}`)
        return v
    }
  }
  if (a.const === 'int') {
    if (kind === 'float64') return a.float
    if (kind.startsWith('uint') && a.v < 0n) throw new ArgError('negative unsigned constant')
    if (kind === 'string' || kind === 'bool' || kind === 'map' || kind === 'list' || kind === 'strings') throw new ArgError('constant')
    if (kind === 'time' || kind.startsWith('type:')) throw new ArgError('constant')
    return a.v
  }
  if (kind === 'int' || kind === 'int64') {
    if (!Number.isInteger(a.v)) throw new ArgError('truncated')
    return BigInt(a.v)
  }
  if (kind === 'string' || kind === 'bool' || kind === 'map' || kind === 'list' || kind === 'strings') throw new ArgError('constant')
  if (kind === 'time' || kind.startsWith('type:')) throw new ArgError('constant')
  return a.v
}

function render(fnName: string, args: Arg[]): { output: string } | { errorClass: 'exec' | 'parse' } {
  const spec = sprigFuncs[fnName]
  if (spec === undefined) return { errorClass: 'parse' }
  const n = spec.params.length
  if (spec.variadic === undefined ? args.length !== n : args.length < n) return { errorClass: 'exec' }
  try {
    const vals = args.map((a, i) => convert(a, spec.params[i] ?? spec.variadic ?? 'any'))
    const out = spec.fn(...vals)
    return { output: out === null || out === undefined ? '<no value>' : formatV(out) }
  } catch (e) {
    if (e instanceof GoFuncError || e instanceof ArgError) return { errorClass: 'exec' }
    throw e
  }
}

// Functions whose result the value model cannot mirror outside the engine
// (printing a time calls its String method with a monotonic clock reading).
const skip = new Set(['now', 'semver'])

let compared = 0
for (const c of allCases()) {
  const m = /^\{\{ ([A-Za-z_0-9]+)((?: [^|()]*)?) \}\}$/.exec(c.template)
  if (!m || skip.has(m[1] ?? '')) continue
  // The data goes through JSON exactly as the oracle receives it.
  const args = parseArgs(m[2] ?? '', jsonToGo(JSON.parse(JSON.stringify(c.data ?? null))))
  const want = expected.results[c.name]
  if (args === undefined || want === undefined || sprigFuncs[m[1] ?? ''] === undefined) continue
  compared++
  t.test(c.name, async (t) => {
    const got = render(m[1] ?? '', args)
    if (want.errorClass !== undefined)
      t.same('errorClass' in got ? got.errorClass : `output ${JSON.stringify(got)}`, want.errorClass, c.template)
    else t.same(got, { output: want.output }, c.template)
  })
}

t.test('covers a large share of the Sprig cases directly', async (t) => {
  t.ok(compared > 400, `${compared} direct calls compared`)
})

t.test("bcrypt matches hashes that Go's bcrypt.CompareHashAndPassword accepts", async (t) => {
  const salt = Uint8Array.from({ length: 16 }, (_, i) => i * 7)
  t.equal(bcryptHash('', 4, salt), '$2a$04$..aMDPuhIhC2NyXLTDrgYOinN/zNajwpivPLJhzfGm5kgZ7469/5e')
  t.equal(bcryptHash('héllo wörld', 5, salt), '$2a$05$..aMDPuhIhC2NyXLTDrgYOQfYMcrOsvx29/tOhqUifafEf2TrIx7K')
})

t.test('excluded functions are not defined', async (t) => {
  for (const name of ['env', 'expandenv', 'getHostByName']) t.notOk(Object.hasOwn(sprigFuncs, name), name)
})
