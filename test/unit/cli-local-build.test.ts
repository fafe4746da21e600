// On a fresh machine `template-sync local` builds what its control plane
// runs: a binary it starts but does not build fails the README's first
// command with "control plane binary ... is missing".

import { readFileSync } from 'node:fs'
import t from 'tap'
import { LOCAL_BUILD_TARGETS } from '../../src/cli/local.ts'
import { controlPlaneBinaries } from '../../src/local/controlplane.ts'

const buildScript = readFileSync(new URL('../../test/cluster/build.sh', import.meta.url), 'utf8')
/** The targets build.sh knows: the labels of its `case "$w" in` branches. */
const targets = new Set([...buildScript.matchAll(/^\s+([a-z0-9-]+)\) build /gm)].map((m) => m[1]))

t.test('local builds every binary the control plane starts, the scheduler and kwok included', async (t) => {
  t.same([...LOCAL_BUILD_TARGETS].sort(), [...controlPlaneBinaries()].sort())
  for (const b of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok']) {
    t.ok(LOCAL_BUILD_TARGETS.includes(b), `${b} is built`)
  }
})

t.test('every one of them is a build.sh target', async (t) => {
  t.ok(targets.size >= 5, `build.sh targets read: ${[...targets].join(', ')}`)
  for (const b of controlPlaneBinaries()) t.ok(targets.has(b), `build.sh builds ${b}`)
})
