// Go structs of Helm's built-in objects (.Chart in Helm 3, .Capabilities,
// their members) as GoObjects: exported fields by name, fmt's field order,
// and encoding/json's output with the struct's json tags.

import { GoObject, newMap, setKey } from '../../gotemplate/index.ts'
import type { GoFuncSpec, GoValue } from '../../gotemplate/index.ts'

export interface StructField {
  readonly name: string
  readonly value: GoValue
  /** The json tag's name; the field name when untagged; undefined for `json:"-"` or unexported fields. */
  readonly json?: string
  readonly omitempty?: boolean
}

function isEmptyJson(v: GoValue): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return true
  if (Array.isArray(v)) return v.length === 0
  if (typeof v === 'object' && !(v instanceof GoObject) && Object.getPrototypeOf(v) === null) return Object.keys(v).length === 0
  return false
}

export class GoStruct extends GoObject {
  readonly goType: string
  readonly goKind: 'struct' | 'ptr'
  readonly fields: readonly StructField[]
  readonly methods: Readonly<Record<string, GoFuncSpec>>
  /** The methods have pointer receivers: callable on the field in a template, unseen by fmt. */
  readonly pointerMethods: boolean
  constructor(
    goType: string,
    goKind: 'struct' | 'ptr',
    fields: readonly StructField[],
    methods: Readonly<Record<string, GoFuncSpec>> = {},
    pointerMethods = false,
  ) {
    super()
    this.goType = goType
    this.goKind = goKind
    this.fields = fields
    this.methods = methods
    this.pointerMethods = pointerMethods
  }
  override get printsWithString(): boolean {
    return !this.pointerMethods
  }
  override jsonFields(): ReadonlyArray<readonly [string, GoValue]> {
    return this.fields
      .filter((f) => f.json !== undefined && !(f.omitempty === true && isEmptyJson(f.value)))
      .map((f) => [f.json as string, f.value] as const)
  }
  method(name: string): GoFuncSpec | undefined {
    return Object.hasOwn(this.methods, name) ? this.methods[name] : undefined
  }
  override field(name: string): GoValue | undefined {
    if (!/^[A-Z]/.test(name)) return undefined
    return this.fields.find((f) => f.name === name)?.value
  }
  override structFields(): ReadonlyArray<readonly [string, GoValue]> {
    return this.fields.map((f) => [f.name, f.value] as const)
  }
  override jsonValue(): GoValue {
    const m = newMap()
    for (const f of this.fields) {
      if (f.json === undefined) continue
      if (f.omitempty === true && isEmptyJson(f.value)) continue
      setKey(m, f.json, f.value)
    }
    return m
  }
}
