// Values and results shared by the render pipeline's files.

import type { ParameterValue } from '../api/templateinstance.ts'

/**
 * A resolved parameter. Scalars are strings whatever their declared type;
 * lists and maps come from `array`/`object` parameters (JSON text decoded) or
 * from an objectFieldRef that selected a composite, and keep JSON's own
 * numbers, booleans and nulls inside.
 */
export type ParamValue = string | ParameterValue[] | { [key: string]: ParameterValue }
