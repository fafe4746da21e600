// The hand-written conformance corpus plus the seeded generated cases.

import type { Case } from './case.ts'
import { edgeCases } from './edge.ts'
import { goErrorCases } from './go-errors.ts'
import { goIntegerCases } from './go-integers.ts'
import { goMethodCases } from './go-methods.ts'
import { helmStyleCases } from './helm-style.ts'
import { k8sCases } from './k8s.ts'
import { printfCases } from './printf.ts'
import { sprigConvertCases } from './sprig-convert.ts'
import { sprigDictCases } from './sprig-dicts.ts'
import { sprigListCases } from './sprig-lists.ts'
import { sprigMathCases } from './sprig-math.ts'
import { sprigMiscCases } from './sprig-misc.ts'
import { sprigRegexCases } from './sprig-regex.ts'
import { sprigSemverDateCases } from './sprig-semver-dates.ts'
import { sprigStringCases } from './sprig-strings.ts'
import { syntaxCases } from './syntax.ts'
import { generateCases } from '../generate.ts'

export type { Case }

/** Seed and count of generated cases; fixed so that CI compares the same templates. */
export const GENERATOR_SEED = 20240917
export const GENERATED_COUNT = 400

export function handWrittenCases(): Case[] {
  return [
    ...syntaxCases,
    ...printfCases,
    ...sprigStringCases,
    ...sprigListCases,
    ...sprigDictCases,
    ...sprigConvertCases,
    ...sprigMathCases,
    ...sprigMiscCases,
    ...sprigRegexCases,
    ...sprigSemverDateCases,
    ...k8sCases,
    ...edgeCases,
    ...goIntegerCases,
    ...goMethodCases,
    ...goErrorCases,
    ...helmStyleCases,
  ]
}

export function allCases(): Case[] {
  const cases = [...handWrittenCases(), ...generateCases(GENERATOR_SEED, GENERATED_COUNT)]
  const seen = new Set<string>()
  for (const c of cases) {
    if (seen.has(c.name)) throw new Error(`duplicate corpus case name: ${c.name}`)
    seen.add(c.name)
  }
  return cases
}
