// The value model of the Go template engine. Go distinguishes int from int64
// and float64, nil from a missing value, and byte length from character
// count; templates written for Go must print the same bytes and fail the same
// way here, so the model keeps those distinctions explicitly:
//
//   Go int                  -> bigint (integer literals, len, atoi, Sprig's int, range indexes)
//   Go int64, uint8, ...    -> GoInt (Sprig's add/sub/int64..., a byte of index "abc" 0, time.Month)
//   Go float64              -> number (JSON numbers decode to float64 in Go)
//   Go string               -> string (len and slicing count UTF-8 bytes)
//   Go bool                 -> boolean
//   Go nil (interface)      -> null
//   no value (invalid)      -> undefined
//   []interface{}           -> readonly GoValue[]
//   map[string]interface{}  -> GoMap (a null-prototype object; read keys with Object.hasOwn only)
//   time.Time               -> GoTime
//   other structs/pointers  -> GoObject (fields and methods, e.g. *semver.Version)
//
// Maps are plain objects created with Object.create(null) so that keys such as
// "__proto__" or "constructor" are ordinary data and never reach a prototype.
// Sprig's typed slices and maps ([]string, map[string]string) keep the shapes
// above and carry their Go type in sprig/types.ts.

export type GoValue = bigint | number | string | boolean | null | undefined | readonly GoValue[] | GoMap | GoTime | GoInt | GoObject

export interface GoMap {
  [key: string]: GoValue
}

/** reflect.Kind of Go's integer types. */
export type IntKind = 'int' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'uintptr'

const intBits: Readonly<Record<IntKind, number>> = {
  int: 64,
  int8: 8,
  int16: 16,
  int32: 32,
  int64: 64,
  uint: 64,
  uint8: 8,
  uint16: 16,
  uint32: 32,
  uint64: 64,
  uintptr: 64,
}

export const isUnsignedKind = (k: IntKind): boolean => k[0] === 'u'

/** Converts to the width of an integer kind the way a Go conversion does (two's complement wrap). */
export function wrapInt(value: bigint, kind: IntKind): bigint {
  const bits = intBits[kind]
  return isUnsignedKind(kind) ? BigInt.asUintN(bits, value) : BigInt.asIntN(bits, value)
}

/**
 * A Go integer whose type is not plain `int`: int64 (Sprig's arithmetic),
 * uint8 (a byte of a string), uint64 (semver's Major), or a named integer type
 * such as time.Month. Immutable; use goInt() to make one. A plain Go int is a
 * bigint, never a GoInt.
 */
export class GoInt {
  /** The value, already within the range of the kind. */
  readonly value: bigint
  readonly kind: IntKind
  /** Go's type name as %T prints it: the kind, or a named type ("time.Month"). */
  readonly type: string
  constructor(value: bigint, kind: IntKind, type: string = kind) {
    this.value = wrapInt(value, kind)
    this.kind = kind
    this.type = type
  }
}

// Small int64 and every uint8 are shared: GoInt has no identity in Go.
const int64Cache: GoInt[] = []
const uint8Cache: GoInt[] = []
for (let i = 0; i < 256; i++) {
  uint8Cache.push(new GoInt(BigInt(i), 'uint8'))
  int64Cache.push(new GoInt(BigInt(i), 'int64'))
}

/** A Go int64. */
export function int64(v: bigint): GoInt {
  return v >= 0n && v < 256n ? (int64Cache[Number(v)] as GoInt) : new GoInt(v, 'int64')
}

/** A Go uint8 (byte). */
export function uint8(v: bigint | number): GoInt {
  const n = typeof v === 'number' ? v & 255 : Number(BigInt.asUintN(8, v))
  return uint8Cache[n] as GoInt
}

/** A Go integer of any kind: a bigint for plain int, a GoInt otherwise. */
export function goInt(value: bigint, kind: IntKind, type: string = kind): bigint | GoInt {
  if (kind === 'int' && type === 'int') return wrapInt(value, 'int')
  if (type === kind && kind === 'int64') return int64(wrapInt(value, kind))
  if (type === kind && kind === 'uint8') return uint8(value)
  return new GoInt(value, kind, type)
}

/** Whether v is a Go integer of any type (int as bigint, or a GoInt). */
export function isGoInteger(v: GoValue): v is bigint | GoInt {
  return typeof v === 'bigint' || v instanceof GoInt
}

/** The integer value of a Go integer of any type; undefined for anything else. */
export function integerValue(v: GoValue): bigint | undefined {
  if (typeof v === 'bigint') return v
  return v instanceof GoInt ? v.value : undefined
}

/**
 * A time.Time: an instant with nanosecond precision, the zone it is shown in,
 * and (for time.Now results only) a monotonic clock reading.
 * zone is 'UTC' (also Go's Local: the operator runs in UTC), an IANA name, or
 * 'Fixed:<offset seconds>:<name>' for a zone parsed from a layout.
 */
export class GoTime {
  /** Whole seconds since the Unix epoch (rounded down). */
  readonly sec: number
  /** Nanoseconds within the second, 0 to 999,999,999. */
  readonly nsec: number
  readonly zone: string
  /** Monotonic reading in nanoseconds since the process started, as time.Now carries it. */
  readonly mono: bigint | undefined
  constructor(sec: number, nsec = 0, zone = 'UTC', mono?: bigint) {
    // Normalise so that nsec is always within the second.
    const carry = Math.floor(nsec / 1e9)
    this.sec = sec + carry
    this.nsec = nsec - carry * 1e9
    this.zone = zone
    this.mono = mono
  }
  /** A time from milliseconds since the epoch (a JS Date's getTime()). */
  static fromMillis(ms: number, zone = 'UTC'): GoTime {
    const sec = Math.floor(ms / 1000)
    return new GoTime(sec, Math.round((ms - sec * 1000) * 1e6), zone)
  }
  /** Milliseconds since the epoch, rounded down. */
  get epochMs(): number {
    return this.sec * 1000 + Math.floor(this.nsec / 1e6)
  }
  /** Nanoseconds since the epoch. */
  get epochNs(): bigint {
    return BigInt(this.sec) * 1_000_000_000n + BigInt(this.nsec)
  }
}

/**
 * A Go struct or pointer value other than time.Time: Sprig's
 * *semver.Version, or a value a caller models (Helm's chart metadata, Files).
 * Templates reach its exported fields (`.Name`) and call its methods
 * (`.IncPatch`, `.Get "path"`); Go looks up methods before fields.
 */
export abstract class GoObject {
  /** Go's type name as %T prints it ("*semver.Version"). */
  abstract readonly goType: string
  /** reflect.Kind: a struct, or a pointer to one. */
  abstract readonly goKind: 'struct' | 'ptr'
  /**
   * A method of the value's method set as a function spec with the receiver
   * bound, or undefined. A method Go has but the model leaves out returns a
   * spec whose `unsupported` says so.
   */
  abstract method(name: string): GoFuncSpec | undefined
  /** An exported field, or undefined when the struct has no such field. */
  field(_name: string): GoValue | undefined {
    return undefined
  }
  /** Every field in declaration order (exported or not), as fmt prints a struct. */
  structFields(): ReadonlyArray<readonly [string, GoValue]> {
    return []
  }
  /**
   * Sprig's deepCopy (mitchellh/copystructure) of the value: it copies
   * exported fields only and leaves unexported ones zero. The default suits
   * values without unexported state and returns this (values are immutable).
   */
  deepCopy(): GoObject {
    return this
  }
  /**
   * What encoding/json writes for the value when it has no MarshalJSON or
   * MarshalText method: by default a map of its exported fields. Override to
   * follow json struct tags.
   */
  jsonValue(): GoValue {
    const m = newMap()
    for (const [name, value] of this.structFields()) if (/^[A-Z]/.test(name)) setKey(m, name, value)
    return m
  }
  /**
   * Whether fmt uses the String method when printing the value. False for a
   * struct value whose String has a pointer receiver (Go's fmt only sees the
   * value's own method set), though a template can still call it.
   */
  get printsWithString(): boolean {
    return true
  }
  /**
   * The fields encoding/json writes, in struct order with their json names,
   * when they differ from jsonValue's sorted map; undefined to use jsonValue.
   */
  jsonFields(): ReadonlyArray<readonly [string, GoValue]> | undefined {
    return undefined
  }
  /** Go's == on two values of the same type: pointer identity, or field by field for a struct. */
  goEquals(other: GoObject): boolean {
    if (this.goKind === 'ptr' || other.goType !== this.goType) return this === other
    const a = this.structFields()
    const b = other.structFields()
    return a.length === b.length && a.every(([, v], i) => sameComparable(v, b[i]?.[1]))
  }
}

/** Go's == for two values of comparable types (numbers, strings, structs of them); containers are never equal. */
export function sameComparable(a: GoValue, b: GoValue): boolean {
  if (a instanceof GoInt) return b instanceof GoInt && a.type === b.type && a.value === b.value
  if (a instanceof GoTime) {
    return b instanceof GoTime && a.sec === b.sec && a.nsec === b.nsec && a.zone === b.zone && a.mono === b.mono
  }
  if (a instanceof GoObject) return b instanceof GoObject && a.goType === b.goType && a.goEquals(b)
  return (typeof a !== 'object' || a === null) && a === b
}

export function newMap(): GoMap {
  return Object.create(null) as GoMap
}

export function isMap(v: GoValue): v is GoMap {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoTime) && !(v instanceof GoInt) && !(v instanceof GoObject)
  )
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

/** A function callable from a template. Arguments arrive already evaluated and checked. */
export type GoFunc = (...args: GoValue[]) => GoValue

/**
 * The Go parameter type of a template function argument. The executor checks
 * arity and converts or rejects each argument the way Go's reflect-based call
 * does ("wrong type for value; expected int; got int64"), so function bodies
 * receive values of the declared kind:
 *   any       interface{}: the value as is (bigint, GoInt, number, ...)
 *   value     reflect.Value, as the text/template built-ins take: the value as
 *             evaluated, undefined for no value (a missing key under
 *             missingkey=default, the nil literal); number literals arrive as
 *             int (bigint) or float64 (number) by their syntax
 *   string    string
 *   bool      boolean
 *   float64   number; an untyped number constant converts, an integer value does not
 *   int, int64, uint8, uint32, ... (every IntKind)
 *             bigint, the value: only a value of exactly that Go type passes
 *             (an int64 is not an int); an integer constant converts, wrapped
 *             to the width as reflect.Value.SetInt does; unsigned kinds reject
 *             negative constants
 *   duration  time.Duration: bigint nanoseconds; an integer constant converts
 *   time      time.Time: a GoTime
 *   list      []interface{} (a Go slice value; nil passes as null)
 *   map       map[string]interface{} (nil passes as null)
 *   strings   []string (a slice whose Go type is []string, e.g. from splitList; nil passes as null)
 *   bytes     []uint8 (nil passes as null)
 *   type:T    a GoObject whose goType is T ("type:*semver.Version"); nil passes
 *             as null when T is a pointer type
 */
export type ArgKind =
  | 'any'
  | 'value'
  | 'string'
  | 'bool'
  | 'float64'
  | IntKind
  | 'duration'
  | 'time'
  | 'list'
  | 'map'
  | 'strings'
  | 'bytes'
  | `type:${string}`

export interface GoFuncSpec {
  readonly fn: GoFunc
  /** Fixed parameters, in order. */
  readonly params: readonly ArgKind[]
  /** Kind of the trailing variadic parameter, when the Go function is variadic. */
  readonly variadic?: ArgKind
  /**
   * Set when the Go function exists but cannot be called here: Go's own
   * refusal ("function Clock has 3 return values; should be 1 or 2") or the
   * reason the model leaves it out. The executor fails with this text after
   * checking the arity, where Go checks the signature.
   */
  readonly unsupported?: string
}

/**
 * Thrown by a function body for a Go `error` return; the executor turns it into
 * an execution error carrying the template location ("error calling NAME: MSG").
 */
export class GoFuncError extends Error {}

export type FuncMap = Readonly<Record<string, GoFuncSpec>>
