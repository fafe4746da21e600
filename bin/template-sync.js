#!/usr/bin/env node
// Runs the TypeScript sources directly in a repository checkout (Node >= 22.18
// strips types), and the compiled entry point where only dist/ ships (images).
import { existsSync } from 'node:fs'

const source = new URL('../src/main.ts', import.meta.url)
await import(existsSync(source) ? source.href : new URL('../dist/main.js', import.meta.url).href)
