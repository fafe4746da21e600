// A bad ignoreFields entry is user input, not a bug: the error carries the
// entry and the character position so a status message can point at it.

export class FieldPathError extends Error {
  override readonly name = 'FieldPathError'
  readonly code = 'FIELD_PATH_INVALID'
  /** The entry exactly as the user wrote it. */
  readonly entry: string
  /** 0-based index (UTF-16 code unit) of the offending character; entry.length when the entry ends too early. */
  readonly position: number
  /** What is wrong, without the entry and position. */
  readonly detail: string
  /** Index of the entry in the ignoreFields list, when known. */
  readonly index: number | undefined

  constructor(entry: string, position: number, detail: string, index?: number) {
    const where = index === undefined ? 'ignoreFields entry' : `ignoreFields[${index}]`
    super(`${where} ${JSON.stringify(entry)}: ${detail} (at position ${position})`)
    this.entry = entry
    this.position = position
    this.detail = detail
    this.index = index
  }
}
