// A streaming tar reader for chart archives: ustar, GNU (long names, base-256
// sizes) and pax (path, linkpath, size) headers, read the way Go's
// archive/tar reads them. It is push-based so the caller can stop the
// decompressor the moment a limit is crossed: `checkHeader` sees every
// header before any of its data is buffered, and an entry's data is kept
// only once the header passed that check.

const BLOCK = 512
/** Go's limit on pax and GNU long-name records. */
const MAX_SPECIAL_BYTES = 1024 * 1024

export type TarEntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'char-device' | 'block-device' | 'fifo' | 'sparse'
/** A pax or GNU long-name header: it describes the next entry and is no entry itself. */
export type TarHeaderKind = TarEntryKind | 'metadata'

export interface TarHeader {
  /** The path as stored (pax or GNU long name applied), never cleaned. */
  readonly name: string
  readonly linkName: string
  readonly kind: TarHeaderKind
  /** The type flag character, for messages. */
  readonly typeflag: string
  readonly size: number
}

export interface TarEntry extends TarHeader {
  readonly kind: TarEntryKind
  readonly data: Buffer
}

export class TarFormatError extends Error {
  override readonly name = 'TarFormatError'
}

export interface TarHandlers {
  /** Throw to stop reading; called before the entry's data is buffered. */
  readonly checkHeader: (h: TarHeader) => void
  readonly entry: (e: TarEntry) => void
}

function cString(b: Buffer, start: number, len: number): string {
  const field = b.subarray(start, start + len)
  const nul = field.indexOf(0)
  return (nul === -1 ? field : field.subarray(0, nul)).toString('utf8')
}

/** A numeric field: octal text, or GNU base-256 when the top bit is set. */
function parseNumeric(b: Buffer, start: number, len: number, what: string): number {
  const field = b.subarray(start, start + len)
  const first = field[0] ?? 0
  if (first & 0x80) {
    if (first & 0x40) throw new TarFormatError(`negative ${what} in tar header`)
    let v = BigInt(first & 0x3f)
    for (const byte of field.subarray(1)) v = (v << 8n) | BigInt(byte)
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new TarFormatError(`${what} in tar header is too large`)
    return Number(v)
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim()
  if (text === '') return 0
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`invalid ${what} ${JSON.stringify(text)} in tar header`)
  const v = Number.parseInt(text, 8)
  if (!Number.isSafeInteger(v)) throw new TarFormatError(`${what} in tar header is too large`)
  return v
}

/** Go accepts the checksum as the unsigned or the signed byte sum, with the field itself counted as spaces. */
function checksumOK(b: Buffer): boolean {
  const stored = parseNumeric(b, 148, 8, 'checksum')
  let unsigned = 0
  let signed = 0
  for (let i = 0; i < BLOCK; i++) {
    const c = i >= 148 && i < 156 ? 0x20 : (b[i] ?? 0)
    unsigned += c
    signed += c > 127 ? c - 256 : c
  }
  return stored === unsigned || stored === signed
}

/** pax records: "<length> <key>=<value>\n". */
function parsePax(data: Buffer): Map<string, string> {
  const out = new Map<string, string>()
  let rest = data
  while (rest.length > 0) {
    const space = rest.indexOf(0x20)
    const len = space > 0 ? Number(rest.subarray(0, space).toString('latin1')) : Number.NaN
    if (!Number.isSafeInteger(len) || len <= space + 1 || len > rest.length || rest[len - 1] !== 0x0a) {
      throw new TarFormatError('invalid pax record')
    }
    const record = rest.subarray(space + 1, len - 1).toString('utf8')
    const eq = record.indexOf('=')
    if (eq <= 0) throw new TarFormatError('invalid pax record')
    out.set(record.slice(0, eq), record.slice(eq + 1))
    rest = rest.subarray(len)
  }
  return out
}

function kindOf(typeflag: string, name: string, mode: number): TarEntryKind | 'pax' | 'pax-global' | 'gnu-longname' | 'gnu-longlink' {
  switch (typeflag) {
    case 'x':
      return 'pax'
    case 'g':
      return 'pax-global'
    case 'L':
      return 'gnu-longname'
    case 'K':
      return 'gnu-longlink'
    case '1':
      return 'hardlink'
    case '2':
      return 'symlink'
    case '3':
      return 'char-device'
    case '4':
      return 'block-device'
    case '5':
      return 'directory'
    case '6':
      return 'fifo'
    case 'S':
      return 'sparse'
  }
  // Go: an old-style regular file whose name ends in "/" is a directory, and so is any entry with the directory mode bits.
  if ((typeflag === '\0' && name.endsWith('/')) || (mode & 0o170000) === 0o040000) return 'directory'
  return 'file'
}

type State =
  | { readonly at: 'header' }
  | {
      readonly at: 'data'
      readonly header: (TarHeader & { kind: TarEntryKind }) | undefined
      readonly special: string | undefined
      readonly size: number
    }
  | { readonly at: 'end' }

/** Feed decompressed bytes with write(); call end() when the input is exhausted. */
export class TarReader {
  readonly #h: TarHandlers
  #chunks: Buffer[] = []
  #buffered = 0
  #state: State = { at: 'header' }
  #pax = new Map<string, string>()
  #longName: string | undefined
  #longLink: string | undefined
  #zeroBlocks = 0

  constructor(handlers: TarHandlers) {
    this.#h = handlers
  }

  get done(): boolean {
    return this.#state.at === 'end'
  }

  write(chunk: Buffer): void {
    if (this.#state.at === 'end') return
    this.#chunks.push(chunk)
    this.#buffered += chunk.length
    this.#drain()
  }

  /** The input ended: fine at a header boundary (Go treats a missing end marker as the end), an error mid-entry. */
  end(): void {
    if (this.#state.at === 'end') return
    if (this.#state.at === 'data' || this.#buffered > 0) throw new TarFormatError('unexpected end of tar archive')
    this.#state = { at: 'end' }
  }

  #take(n: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks)
    const out = all.subarray(0, n)
    const rest = all.subarray(n)
    this.#chunks = rest.length > 0 ? [rest] : []
    this.#buffered = rest.length
    return out
  }

  #drain(): void {
    for (;;) {
      const s = this.#state
      if (s.at === 'end') return
      if (s.at === 'header') {
        if (this.#buffered < BLOCK) return
        this.#header(this.#take(BLOCK))
        continue
      }
      const padded = Math.ceil(s.size / BLOCK) * BLOCK
      if (this.#buffered < padded) return
      const data = Buffer.from(this.#take(padded).subarray(0, s.size))
      this.#state = { at: 'header' }
      if (s.special !== undefined) this.#special(s.special, data)
      else if (s.header !== undefined) this.#h.entry({ ...s.header, data })
    }
  }

  #header(block: Buffer): void {
    if (block.every((b) => b === 0)) {
      // Two zero blocks end the archive; Go stops at the second and ignores what follows.
      if (++this.#zeroBlocks === 2) this.#state = { at: 'end' }
      return
    }
    if (this.#zeroBlocks > 0) throw new TarFormatError('invalid tar header after an end-of-archive block')
    if (!checksumOK(block)) throw new TarFormatError('invalid tar header checksum')
    const magic = block.subarray(257, 263).toString('latin1')
    const typeflag = String.fromCharCode(block[156] ?? 0)
    let name = cString(block, 0, 100)
    // ustar (not GNU) splits long paths into prefix + name.
    if (magic === 'ustar\0') {
      const prefix = cString(block, 345, 155)
      if (prefix !== '') name = `${prefix}/${name}`
    }
    let linkName = cString(block, 157, 100)
    let size = parseNumeric(block, 124, 12, 'size')
    const mode = parseNumeric(block, 100, 8, 'mode')
    const kind = kindOf(typeflag, name, mode)
    if (kind === 'pax' || kind === 'pax-global' || kind === 'gnu-longname' || kind === 'gnu-longlink') {
      if (size > MAX_SPECIAL_BYTES) throw new TarFormatError(`tar ${kind} header of ${size} bytes is too large`)
      this.#h.checkHeader({ name, linkName, kind: 'metadata', typeflag, size })
      this.#state = { at: 'data', header: undefined, special: kind, size }
      return
    }
    const pax = this.#pax
    this.#pax = new Map()
    name = pax.get('path') ?? this.#longName ?? name
    linkName = pax.get('linkpath') ?? this.#longLink ?? linkName
    this.#longName = undefined
    this.#longLink = undefined
    const paxSize = pax.get('size')
    if (paxSize !== undefined) {
      if (!/^[0-9]+$/.test(paxSize) || !Number.isSafeInteger(Number(paxSize))) throw new TarFormatError(`invalid pax size ${paxSize}`)
      size = Number(paxSize)
    }
    const sparse = [...pax.keys()].some((k) => k.startsWith('GNU.sparse.'))
    // Links, devices and directories carry no data in any archive Helm writes; Go reads what the header says.
    const header = { name, linkName, kind: sparse ? ('sparse' as const) : kind, typeflag, size }
    this.#h.checkHeader(header)
    this.#state = { at: 'data', header, special: undefined, size }
  }

  #special(kind: string, data: Buffer): void {
    if (kind === 'pax') {
      for (const [k, v] of parsePax(data)) this.#pax.set(k, v)
    } else if (kind === 'gnu-longname') {
      this.#longName = cString(data, 0, data.length)
    } else if (kind === 'gnu-longlink') {
      this.#longLink = cString(data, 0, data.length)
    }
    // pax-global records change nothing Helm reads.
  }
}
