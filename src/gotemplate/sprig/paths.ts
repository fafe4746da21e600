// Go's path package (slash-separated paths). The os* variants use
// path/filepath, which is the same on Linux, where the operator runs.

import type { FuncMap } from '../value.ts'
import { fn, str } from './spec.ts'

export function clean(p: string): string {
  if (p === '') return '.'
  const rooted = p.startsWith('/')
  const out: string[] = []
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop()
      else if (!rooted) out.push('..')
      continue
    }
    out.push(part)
  }
  const s = (rooted ? '/' : '') + out.join('/')
  return s === '' ? '.' : s
}

export function base(p: string): string {
  if (p === '') return '.'
  while (p.length > 0 && p.endsWith('/')) p = p.slice(0, -1)
  const i = p.lastIndexOf('/')
  if (i >= 0) p = p.slice(i + 1)
  return p === '' ? '/' : p
}

export function dir(p: string): string {
  const i = p.lastIndexOf('/')
  return clean(p.slice(0, i + 1))
}

export function ext(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i)
  return ''
}

const isAbs = (p: string): boolean => p.startsWith('/')

export const pathFuncs: FuncMap = {
  base: fn(['string'], (p) => base(str(p))),
  dir: fn(['string'], (p) => dir(str(p))),
  clean: fn(['string'], (p) => clean(str(p))),
  ext: fn(['string'], (p) => ext(str(p))),
  isAbs: fn(['string'], (p) => isAbs(str(p))),
  osBase: fn(['string'], (p) => base(str(p))),
  osDir: fn(['string'], (p) => dir(str(p))),
  osClean: fn(['string'], (p) => clean(str(p))),
  osExt: fn(['string'], (p) => ext(str(p))),
  osIsAbs: fn(['string'], (p) => isAbs(str(p))),
}
