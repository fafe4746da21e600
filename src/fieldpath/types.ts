// The parsed form of one ignoreFields entry, and the concrete path of a node
// inside an object. They are separate types because an entry may say "every
// element" while a concrete path always names one element.

/** One step of a parsed ignoreFields entry. */
export type Segment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' }

/** One step of a concrete path: a string is a map key, a number an array index. */
export type PathStep = string | number

export const WILDCARD: Segment = Object.freeze({ kind: 'wildcard' })

export function keySegment(key: string): Segment {
  return Object.freeze({ kind: 'key', key })
}

export function indexSegment(index: number): Segment {
  return Object.freeze({ kind: 'index', index })
}
