// The value model of the Go template engine. Go distinguishes int from float64,
// nil from a missing value, and byte length from character count; templates
// written for Go must print the same bytes here, so the model keeps those
// distinctions explicitly:
//
//   Go int / int64          -> bigint (template integer literals, len, add, ...)
//   Go float64              -> number (JSON numbers decode to float64 in Go)
//   Go string               -> string (len and slicing count UTF-8 bytes)
//   Go bool                 -> boolean
//   Go nil (interface)      -> null
//   no value (invalid)      -> undefined
//   []interface{}           -> readonly GoValue[]
//   map[string]interface{}  -> GoMap (a null-prototype object; read keys with Object.hasOwn only)
//   time.Time               -> GoTime
//
// Maps are plain objects created with Object.create(null) so that keys such as
// "__proto__" or "constructor" are ordinary data and never reach a prototype.

export type GoValue = bigint | number | string | boolean | null | undefined | readonly GoValue[] | GoMap | GoTime

export interface GoMap {
  [key: string]: GoValue
}

export class GoTime {
  /** Milliseconds since the epoch plus the zone the value is shown in. */
  readonly epochMs: number
  readonly zone: string
  constructor(epochMs: number, zone = 'UTC') {
    this.epochMs = epochMs
    this.zone = zone
  }
}

/** A function callable from a template. Arguments arrive already evaluated. */
export type GoFunc = (...args: GoValue[]) => GoValue

export function newMap(): GoMap {
  return Object.create(null) as GoMap
}

export function isMap(v: GoValue): v is GoMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoTime)
}

export function hasKey(m: GoMap, key: string): boolean {
  return Object.hasOwn(m, key)
}

export function getKey(m: GoMap, key: string): GoValue {
  return Object.hasOwn(m, key) ? m[key] : undefined
}

/** Sets a key as own data even when it is "__proto__". */
export function setKey(m: GoMap, key: string, v: GoValue): void {
  Object.defineProperty(m, key, { value: v, enumerable: true, writable: true, configurable: true })
}

/**
 * The Go parameter type of a template function argument. The executor checks
 * arity and converts or rejects each argument the way Go's reflect-based call
 * does ("wrong type for value; expected string; got int"), so function bodies
 * receive values of the declared kind:
 *   any      interface{}: the value as is
 *   string   string
 *   int      int (bigint); an untyped number constant converts, a float64 value does not
 *   int64    int64 (bigint), same rules as int
 *   float64  float64 (number); an untyped number constant converts
 *   bool     bool
 *   list     []interface{} (a Go slice value; nil passes as null)
 *   map      map[string]interface{} (nil passes as null)
 *   strings  []string (a slice whose Go type is []string, e.g. from splitList; nil passes as null)
 *   value    reflect.Value, as the text/template built-ins take: the value as
 *            evaluated, undefined for no value (a missing key under
 *            missingkey=default, the nil literal); number literals arrive as
 *            int (bigint) or float64 (number) by their syntax
 */
export type ArgKind = 'any' | 'string' | 'int' | 'int64' | 'float64' | 'bool' | 'list' | 'map' | 'strings' | 'value'

export interface GoFuncSpec {
  readonly fn: GoFunc
  /** Fixed parameters, in order. */
  readonly params: readonly ArgKind[]
  /** Kind of the trailing variadic parameter, when the Go function is variadic. */
  readonly variadic?: ArgKind
}

/**
 * Thrown by a function body for a Go `error` return; the executor turns it into
 * an execution error carrying the template location ("error calling NAME: MSG").
 */
export class GoFuncError extends Error {}

export type FuncMap = Readonly<Record<string, GoFuncSpec>>
