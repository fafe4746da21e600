// Composition root: `template-sync <command>`. Each command lives in its own
// module; this file only dispatches and turns results into exit codes.

const USAGE = `usage: template-sync <command> [flags]

commands:
  webhook      run the admission webhook (TLS) server
  reconciler   run the reconciler (leader-elected)
  render       print what a TemplateInstance (or a chart alone) would produce, without applying
  diff         show what drifted in the objects a TemplateInstance rendered
  local        start a local control plane with template-sync and examples

Run "template-sync <command> --help" for the flags of a command.
`

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv
  const env = process.env
  const wantsHelp = rest.includes('--help') || rest.includes('-h')
  switch (command) {
    case 'webhook': {
      const { runWebhook } = await import('./webhook/main.ts')
      if (wantsHelp) {
        const { webhookUsage } = await import('./webhook/config.ts')
        process.stdout.write(webhookUsage())
        return 0
      }
      return runWebhook({ argv: rest, env })
    }
    case 'reconciler': {
      const { runReconciler, reconcilerUsage } = await import('./reconciler/main.ts')
      if (wantsHelp) {
        process.stdout.write(reconcilerUsage())
        return 0
      }
      return runReconciler({ argv: rest, env })
    }
    case 'render': {
      const { runRender } = await import('./cli/render.ts')
      return runRender(rest, env)
    }
    case 'diff': {
      const { runDiff } = await import('./cli/diff.ts')
      return runDiff(rest, env)
    }
    case 'local': {
      const { runLocal } = await import('./cli/local.ts')
      return runLocal(rest, env)
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE)
      return command === undefined ? 2 : 0
    default:
      process.stderr.write(`template-sync: unknown command ${JSON.stringify(command)}\n\n${USAGE}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
    // Let logs flush; leave even if some handle would keep the loop alive.
    setTimeout(() => process.exit(code), 2000).unref()
  },
  (err: unknown) => {
    process.stderr.write(`template-sync: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
    process.exitCode = 1
  },
)
