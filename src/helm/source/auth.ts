// Repository credentials from the auth Secret of spec.helm.chart.repository.
// The reconciler reads the Secret (in the Template's namespace) and passes its
// `data`; this module only decodes it. Keys, as the Template Operator
// documents them: `username` + `password` (HTTP(S) basic auth, OCI), or
// `.dockerconfigjson` (OCI; the entry for the registry host). When both are
// present, username/password win. Values never appear in an error.

import { createHmac, randomBytes } from 'node:crypto'
import { type ChartRef, ChartSourceCode, ChartSourceError } from './errors.ts'

export interface AuthSecret {
  /** For messages only. */
  readonly name: string
  /** Secret.data: base64-encoded values, as the API returns them. */
  readonly data: Readonly<Record<string, string>>
}

export interface Credentials {
  readonly username: string
  readonly password: string
}

function decodeValue(secret: AuthSecret, key: string, ref: ChartRef): string | undefined {
  const raw = secret.data[key]
  if (raw === undefined) return undefined
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(raw) || raw.length % 4 !== 0) {
    throw new ChartSourceError(ChartSourceCode.InvalidAuthSecret, ref, `auth Secret ${secret.name}: key ${key} is not base64`)
  }
  return Buffer.from(raw, 'base64').toString('utf8')
}

/** The docker config "auths" keys that name `host` (with or without scheme or a /v1/, /v2/ path). */
function hostOfAuthKey(key: string): string {
  const withScheme = /^[a-z]+:\/\//i.test(key) ? key : `https://${key}`
  try {
    return new URL(withScheme).host
  } catch {
    return key
  }
}

function fromDockerConfig(text: string, host: string, secret: AuthSecret, ref: ChartRef): Credentials {
  const bad = (why: string) =>
    new ChartSourceError(ChartSourceCode.InvalidAuthSecret, ref, `auth Secret ${secret.name}: .dockerconfigjson ${why}`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw bad('is not JSON')
  }
  const auths = typeof parsed === 'object' && parsed !== null ? (parsed as { auths?: unknown }).auths : undefined
  if (typeof auths !== 'object' || auths === null) throw bad('has no "auths" object')
  const entry = Object.entries(auths).find(([k]) => hostOfAuthKey(k) === host)?.[1]
  if (typeof entry !== 'object' || entry === null) throw bad(`has no entry for registry ${host}`)
  const e = entry as { auth?: unknown; username?: unknown; password?: unknown }
  if (typeof e.username === 'string' && typeof e.password === 'string') return { username: e.username, password: e.password }
  if (typeof e.auth === 'string') {
    const decoded = Buffer.from(e.auth, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
  }
  throw bad(`entry for registry ${host} has neither username/password nor an auth of the form user:password`)
}

/**
 * The credentials for a request to `host` (host[:port] of the repository or
 * registry). undefined when there is no Secret.
 */
export function credentialsFromSecret(secret: AuthSecret | undefined, host: string, ref: ChartRef): Credentials | undefined {
  if (secret === undefined) return undefined
  const username = decodeValue(secret, 'username', ref)
  const password = decodeValue(secret, 'password', ref)
  if (username !== undefined && password !== undefined) return { username, password }
  const docker = decodeValue(secret, '.dockerconfigjson', ref)
  if (docker !== undefined) return fromDockerConfig(docker, host, secret, ref)
  throw new ChartSourceError(
    ChartSourceCode.InvalidAuthSecret,
    ref,
    `auth Secret ${secret.name} has neither the keys username and password nor .dockerconfigjson`,
  )
}

export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`
}

/** Per process: fingerprints cannot be compared across processes or reversed by guessing passwords offline. */
const FINGERPRINT_KEY = randomBytes(32)

/** A short keyed hash of the credentials, to key caches without keeping or logging the secret. */
export function credentialsFingerprint(c: Credentials | undefined): string {
  if (c === undefined) return 'anonymous'
  return createHmac('sha256', FINGERPRINT_KEY).update(c.username).update('\0').update(c.password).digest('hex').slice(0, 32)
}
