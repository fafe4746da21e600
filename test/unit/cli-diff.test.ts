// The pure parts of `template-sync diff`: arguments, the text report and
// the exit code. The command itself runs against a real API server in
// test/integration/cli-diff.test.ts.

import t from 'tap'
import { exitCode, formatText, parseDiffArgs, type DiffEntry, type DiffReport, type DiffState } from '../../src/cli/diff.ts'
import { UsageError } from '../../src/cli/args.ts'

const entry = (state: DiffState, name: string, changes: DiffEntry['changes'] = [], message?: string): DiffEntry => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'team-a',
  name,
  state,
  changes,
  ...(message !== undefined ? { message } : {}),
})
const report = (objects: DiffEntry[]): DiffReport => ({
  instance: 'team-a/app',
  template: 'platform/web',
  syncMode: 'revert',
  objects,
  notes: [],
})

t.test('arguments', async (t) => {
  t.same(parseDiffArgs(['team-a/app']), { instance: { namespace: 'team-a', name: 'app' }, output: 'text' })
  t.same(parseDiffArgs(['-o', 'json', 'team-a/app', '--kubeconfig', '/k']), {
    instance: { namespace: 'team-a', name: 'app' },
    output: 'json',
    kubeconfig: '/k',
  })
  t.equal(parseDiffArgs(['--help']), 'help')
  const bad: [string[], RegExp][] = [
    [[], /exactly one NAMESPACE\/NAME/],
    [['a/b', 'c/d'], /exactly one NAMESPACE\/NAME/],
    [['a'], /expected NAMESPACE\/NAME/],
    [['a/b/c'], /expected NAMESPACE\/NAME/],
    [['a/b', '-o', 'yaml'], /text or json/],
    [['a/b', '--set', 'x=1'], /Unknown option/],
  ]
  for (const [args, match] of bad) {
    t.throws(() => parseDiffArgs(args), UsageError, args.join(' '))
    t.throws(() => parseDiffArgs(args), match, args.join(' '))
  }
})

t.test('exit codes follow diff(1)', async (t) => {
  const cases: [DiffState[], number][] = [
    [[], 0],
    [['in-sync', 'in-sync'], 0],
    [['in-sync', 'drifted'], 1],
    [['missing'], 1],
    [['unowned'], 1],
    [['orphaned'], 1],
    [['drifted', 'error'], 2],
  ]
  for (const [states, want] of cases)
    t.equal(exitCode(report(states.map((s, i) => entry(s, `o${i}`)))), want, states.join(',') || 'nothing')
})

t.test('the text report lists states and paths, never values', async (t) => {
  const text = formatText(
    report([
      entry('in-sync', 'a'),
      entry('drifted', 'b', [
        { path: 'data.v', pointer: '/data/v', kind: 'changed' },
        { path: "metadata.labels['x/y']", pointer: '/metadata/labels/x~1y', kind: 'added' },
        { path: 'data.old', pointer: '/data/old', kind: 'removed' },
      ]),
      entry('error', 'c', [], 'server-side dry-run apply failed: 422 Invalid: bad'),
    ]),
  )
  t.equal(
    text,
    [
      'TemplateInstance team-a/app (Template platform/web, sync mode revert)',
      'in sync   v1 ConfigMap team-a/a',
      'drifted   v1 ConfigMap team-a/b',
      '            ~ data.v',
      "            + metadata.labels['x/y']",
      '            - data.old',
      'error     v1 ConfigMap team-a/c: server-side dry-run apply failed: 422 Invalid: bad',
      '3 object(s): 1 in sync, 1 drifted, 1 error',
      '',
    ].join('\n'),
  )
})
