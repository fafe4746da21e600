// urlParse and urlJoin over the rules of Go's net/url: the parts Sprig reads
// (scheme, host, hostname, path, query, opaque, fragment, userinfo) and
// URL.String's escaping.

import { getKey, hasKey, newMap, setKey } from '../value.ts'
import type { FuncMap, GoMap, GoValue } from '../value.ts'
import { quoteGo } from './gofmt.ts'
import { fail, fn, map, str } from './spec.ts'
import { goKindOf } from './types.ts'
import { fromUtf8, utf8 } from './utf8.ts'

type Mode = 'path' | 'host' | 'userinfo' | 'query' | 'fragment'

class URLError extends Error {}

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)
}

function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false
  const ch = String.fromCharCode(c)
  if (mode === 'host' && '!$&\'()*+,;=:[]<>"'.includes(ch)) return false
  if ('-_.~'.includes(ch)) return false
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?'
      case 'userinfo':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':'
      case 'query':
        return true
      case 'fragment':
        return false
      default:
        break
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false
  return true
}

const HEX = '0123456789ABCDEF'

function urlEscape(s: string, mode: Mode): string {
  let out = ''
  for (const c of utf8(s)) {
    if (shouldEscape(c, mode)) out += c === 0x20 && mode === 'query' ? '+' : '%' + HEX[c >> 4] + HEX[c & 15]
    else out += String.fromCharCode(c)
  }
  return out
}

function urlUnescape(s: string, mode: Mode): string {
  const b = utf8(s)
  const out: number[] = []
  for (let i = 0; i < b.length; i++) {
    const c = b[i] ?? 0
    if (c === 0x25) {
      const h = String.fromCharCode(b[i + 1] ?? 0, b[i + 2] ?? 0)
      if (!/^[0-9a-fA-F]{2}$/.test(h)) {
        const bad = fromUtf8(b.subarray(i, Math.min(i + 3, b.length)))
        throw new URLError(`invalid URL escape ${quoteGo(bad)}`)
      }
      const v = parseInt(h, 16)
      // In a host only non-ASCII bytes may be percent-encoded (zone identifiers aside).
      if (mode === 'host' && v < 0x80 && h !== '25') throw new URLError(`invalid URL escape ${quoteGo('%' + h)}`)
      out.push(v)
      i += 2
    } else if (c === 0x2b && mode === 'query') out.push(0x20)
    else {
      if (mode === 'host' && c < 0x80 && !isAlnum(c) && !'-._~!$&\'()*+,;=:[]<>"%'.includes(String.fromCharCode(c))) {
        throw new URLError(`invalid character ${quoteGo(String.fromCharCode(c))} in host name`)
      }
      out.push(c)
    }
  }
  return fromUtf8(Uint8Array.from(out))
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p)

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']')
    if (i < 0) throw new URLError("missing ']' in host")
    const colonPort = host.slice(i + 1)
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quoteGo(colonPort)} after host`)
    return host
  }
  const i = host.lastIndexOf(':')
  if (i !== -1) {
    const colonPort = host.slice(i)
    if (!validOptionalPort(colonPort)) throw new URLError(`invalid port ${quoteGo(colonPort)} after host`)
  }
  return urlUnescape(host, 'host')
}

interface ParsedURL {
  scheme: string
  opaque: string
  user: { username: string; password?: string } | undefined
  host: string
  path: string
  rawQuery: string
  forceQuery: boolean
  fragment: string
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ['', raw]
      continue
    }
    if (c === 0x3a) {
      if (i === 0) throw new URLError('missing protocol scheme')
      return [raw.slice(0, i), raw.slice(i + 1)]
    }
    return ['', raw]
  }
  return ['', raw]
}

export function parseURL(raw: string): ParsedURL {
  const hash = raw.indexOf('#')
  const frag = hash >= 0 ? raw.slice(hash + 1) : ''
  const rawURL = hash >= 0 ? raw.slice(0, hash) : raw
  if (/[\x00-\x1f\x7f]/.test(rawURL)) throw new URLError('net/url: invalid control character in URL')
  const u: ParsedURL = { scheme: '', opaque: '', user: undefined, host: '', path: '', rawQuery: '', forceQuery: false, fragment: '' }
  if (rawURL === '*') {
    u.path = '*'
  } else {
    let [scheme, rest] = getScheme(rawURL)
    u.scheme = scheme.toLowerCase()
    if (rest.endsWith('?') && rest.split('?').length === 2) {
      u.forceQuery = true
      rest = rest.slice(0, -1)
    } else {
      const q = rest.indexOf('?')
      if (q >= 0) {
        u.rawQuery = rest.slice(q + 1)
        rest = rest.slice(0, q)
      }
    }
    let done = false
    if (!rest.startsWith('/')) {
      if (u.scheme !== '') {
        u.opaque = rest
        done = true
      } else {
        const seg = rest.split('/')[0] ?? ''
        if (seg.includes(':')) throw new URLError('first path segment in URL cannot contain colon')
      }
    }
    if (!done) {
      if ((u.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
        let authority = rest.slice(2)
        rest = ''
        const slash = authority.indexOf('/')
        if (slash >= 0) {
          rest = authority.slice(slash)
          authority = authority.slice(0, slash)
        }
        const at = authority.lastIndexOf('@')
        if (at < 0) u.host = parseHost(authority)
        else {
          u.host = parseHost(authority.slice(at + 1))
          const userinfo = authority.slice(0, at)
          if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new URLError('net/url: invalid userinfo')
          const colon = userinfo.indexOf(':')
          u.user =
            colon < 0
              ? { username: urlUnescape(userinfo, 'userinfo') }
              : {
                  username: urlUnescape(userinfo.slice(0, colon), 'userinfo'),
                  password: urlUnescape(userinfo.slice(colon + 1), 'userinfo'),
                }
        }
      }
      u.path = urlUnescape(rest, 'path')
    }
  }
  u.fragment = urlUnescape(frag, 'fragment')
  return u
}

function userString(user: { username: string; password?: string }): string {
  let s = urlEscape(user.username, 'userinfo')
  if (user.password !== undefined) s += ':' + urlEscape(user.password, 'userinfo')
  return s
}

function hostname(host: string): string {
  let h = host
  const colon = h.lastIndexOf(':')
  if (colon !== -1 && validOptionalPort(h.slice(colon))) h = h.slice(0, colon)
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1)
  return h
}

function urlParse(raw: string): GoMap {
  let u: ParsedURL
  try {
    u = parseURL(raw)
  } catch (e) {
    if (e instanceof URLError) fail(`unable to parse url: parse ${quoteGo(raw)}: ${e.message}`)
    throw e
  }
  const d = newMap()
  setKey(d, 'scheme', u.scheme)
  setKey(d, 'host', u.host)
  setKey(d, 'hostname', hostname(u.host))
  setKey(d, 'path', u.path)
  setKey(d, 'query', u.rawQuery)
  setKey(d, 'opaque', u.opaque)
  setKey(d, 'fragment', u.fragment)
  setKey(d, 'userinfo', u.user ? userString(u.user) : '')
  return d
}

function urlJoin(d: GoMap | null): string {
  const get = (key: string): string => {
    if (d === null || !hasKey(d, key)) return ''
    const v: GoValue = getKey(d, key) ?? null
    if (typeof v !== 'string') {
      if (v === null) fail(`runtime error: invalid memory address or nil pointer dereference`)
      fail(`unable to parse ${key} key, must be of type string, but ${goKindOf(v)} found`)
    }
    return v
  }
  const scheme = get('scheme')
  const host = get('host')
  const path = get('path')
  const rawQuery = get('query')
  const opaque = get('opaque')
  const fragment = get('fragment')
  const userinfo = get('userinfo')
  let user: { username: string; password?: string } | undefined
  if (userinfo !== '') {
    try {
      user = parseURL(`proto://${userinfo}@host`).user
    } catch (e) {
      if (e instanceof URLError) fail(`unable to parse userinfo in dict: parse ${quoteGo(`proto://${userinfo}@host`)}: ${e.message}`)
      throw e
    }
  }
  let out = ''
  if (scheme !== '') out += scheme + ':'
  if (opaque !== '') out += opaque
  else {
    if (scheme !== '' || host !== '' || user !== undefined) {
      if (host !== '' || path !== '' || user !== undefined) out += '//'
      if (user !== undefined) out += userString(user) + '@'
      if (host !== '') out += urlEscape(host, 'host')
    }
    const p = path === '*' ? '*' : urlEscape(path, 'path')
    if (p !== '' && p[0] !== '/' && host !== '') out += '/'
    if (out === '' && (p.split('/')[0] ?? '').includes(':')) out += './'
    out += p
  }
  if (rawQuery !== '') out += '?' + rawQuery
  if (fragment !== '') out += '#' + urlEscape(fragment, 'fragment')
  return out
}

export const urlFuncs: FuncMap = {
  urlParse: fn(['string'], (s) => urlParse(str(s))),
  urlJoin: fn(['map'], (d) => urlJoin(map(d))),
}
