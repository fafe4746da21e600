// The compiled-ignore cache is shared with the reconciler and the CLI.
export { IgnoreCache, type IgnoreCacheOptions } from '../drift/ignore-cache.ts'
