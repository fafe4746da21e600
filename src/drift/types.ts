export type ChangeKind = 'added' | 'removed' | 'changed'

/** One relevant difference between two objects. */
export interface Change {
  /** RFC 6901 pointer, "~" and "/" escaped as ~0 and ~1. */
  readonly pointer: string
  /** The same path in ignoreFields syntax, ready to paste into ignoreFields. */
  readonly path: string
  readonly kind: ChangeKind
}
