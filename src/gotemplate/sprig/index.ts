// The Sprig (v3.3.0) function library for the Go template engine, minus env,
// expandenv and getHostByName, which would expose the operator's environment
// and network.

import type { FuncMap } from '../value.ts'
import { certFuncs } from './certs.ts'
import { convertFuncs } from './convert.ts'
import { cryptoFuncs } from './crypto.ts'
import { dateFuncs } from './dates.ts'
import { defaultFuncs } from './defaults.ts'
import { dictFuncs } from './dicts.ts'
import { encodingFuncs } from './encoding.ts'
import { listFuncs } from './lists.ts'
import { mathFuncs } from './math.ts'
import { pathFuncs } from './paths.ts'
import { reflectFuncs } from './reflect.ts'
import { regexFuncs } from './regex.ts'
import { semverFuncs } from './semver.ts'
import { stringFuncs } from './strings.ts'
import { urlFuncs } from './url.ts'

export const sprigFuncs: FuncMap = Object.freeze({
  ...stringFuncs,
  ...defaultFuncs,
  ...listFuncs,
  ...dictFuncs,
  ...convertFuncs,
  ...mathFuncs,
  ...encodingFuncs,
  ...cryptoFuncs,
  ...certFuncs,
  ...regexFuncs,
  ...semverFuncs,
  ...dateFuncs,
  ...reflectFuncs,
  ...pathFuncs,
  ...urlFuncs,
})

/** Sprig functions deliberately left out: they read the environment or the network. */
export const excludedFuncs: readonly string[] = ['env', 'expandenv', 'getHostByName']
