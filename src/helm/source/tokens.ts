// Registry bearer tokens, kept until shortly before they expire so that
// pulling several charts from one registry asks the token service once.
// Keyed by token service, scope and a fingerprint of the credentials, so a
// token earned with one Secret is never used for another.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

interface Held {
  readonly token: string
  readonly expiresAt: number
}

/** Tokens without expires_in live 60 s, as the distribution token spec says. */
const DEFAULT_LIFETIME_S = 60
/** Give a token up this long before it expires, so it does not run out on the way. */
const MARGIN_MS = 10_000
const MAX_TOKENS = 256

export class TokenCache {
  readonly #clock: Clock
  readonly #held = new Map<string, Held>()
  constructor(clock: Clock) {
    this.#clock = clock
  }

  get(key: string): string | undefined {
    const h = this.#held.get(key)
    if (h === undefined) return undefined
    if (h.expiresAt - MARGIN_MS <= this.#clock.now()) {
      this.#held.delete(key)
      return undefined
    }
    return h.token
  }

  put(key: string, token: string, expiresInSeconds: number | undefined): void {
    const lifetime = expiresInSeconds !== undefined && expiresInSeconds > 0 ? expiresInSeconds : DEFAULT_LIFETIME_S
    this.#held.delete(key)
    this.#held.set(key, { token, expiresAt: this.#clock.now() + lifetime * 1000 })
    // Insertion order is age order: drop the oldest past the bound.
    while (this.#held.size > MAX_TOKENS) {
      const oldest = this.#held.keys().next().value
      if (oldest === undefined) break
      this.#held.delete(oldest)
    }
  }
}
