// Cached objects are shared by every consumer; freezing them turns an
// accidental in-place mutation into an immediate TypeError instead of a
// silently corrupted cache that a later comparison would trust.

export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  return Object.freeze(value)
}
