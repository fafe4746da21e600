// What the benchmarks observe of the cluster, by watching instead of listing
// (a list of every TemplateInstance every 250 ms at 10,000 instances would keep
// kube-apiserver busy serializing, and the benchmark would measure itself):
//  - InstanceStates: per TemplateInstance, whether it is Ready and Synced and
//    which Template generation it last rendered, with counts kept up to date;
//  - ChangeCounter: how many changes a collection sees from now on.

import type { KubeClient } from '../../src/kube/client.ts'
import type { KubeObject } from '../../src/api/meta.ts'
import { Reflector } from '../../src/kube/reflector.ts'
import { sleep } from './operator.ts'

interface InstanceState extends KubeObject {
  readonly ready: boolean
  readonly generation: number | undefined
}

interface Condition {
  type: string
  status: string
}

function stateOf(o: KubeObject): InstanceState {
  const status = (o as { status?: { conditions?: Condition[]; resolvedTemplateRef?: { generation?: number } } }).status
  const is = (type: string): boolean => status?.conditions?.some((c) => c.type === type && c.status === 'True') === true
  return {
    metadata: { name: o.metadata?.name, namespace: o.metadata?.namespace, resourceVersion: o.metadata?.resourceVersion },
    ready: is('Ready') && is('Synced'),
    generation: status?.resolvedTemplateRef?.generation,
  }
}

export class InstanceStates {
  private readonly reflector: Reflector<InstanceState>
  /** Ready instances by the Template generation they rendered ("" when unknown); kept as events arrive. */
  private readonly readyByGeneration = new Map<string, number>()
  private readyCount = 0
  private readonly waiters = new Set<() => void>()
  /** MODIFIED events seen (each is a write that changed the instance, mostly status). */
  updates = 0

  constructor(client: KubeClient, path: string) {
    this.reflector = new Reflector<InstanceState>(client, { path, name: 'bench instances', transform: stateOf })
    const count = (o: InstanceState | undefined, by: number): void => {
      if (!o?.ready) return
      const g = String(o.generation ?? '')
      this.readyByGeneration.set(g, (this.readyByGeneration.get(g) ?? 0) + by)
      this.readyCount += by
    }
    const changed = (o: InstanceState | undefined, old: InstanceState | undefined): void => {
      count(old, -1)
      count(o, 1)
      for (const w of this.waiters) w()
    }
    this.reflector
      .on('add', (o) => changed(o, undefined))
      .on('update', (o, old) => {
        this.updates++
        changed(o, old)
      })
      .on('delete', (o) => changed(undefined, o))
  }

  async start(): Promise<void> {
    this.reflector.start()
    await this.reflector.waitForSync()
  }

  stop(): Promise<void> {
    return this.reflector.stop()
  }

  /** Instances that are Ready and Synced. */
  ready(): number {
    return this.readyCount
  }

  /** Instances that are Ready and Synced and rendered the given Template generation. */
  readyAt(generation: number): number {
    return this.readyByGeneration.get(String(generation)) ?? 0
  }

  /** Resolves once check() holds (looked at on every event, and every second); rejects after timeoutMs with what. */
  until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setInterval> | undefined
      const done = (err?: Error): void => {
        this.waiters.delete(look)
        clearInterval(timer)
        clearTimeout(deadline)
        if (err) reject(err)
        else resolve()
      }
      const look = (): void => {
        if (check()) done()
      }
      const deadline = setTimeout(() => done(new Error(`${what}: not reached after ${timeoutMs / 1000} s`)), timeoutMs)
      timer = setInterval(look, 1000)
      this.waiters.add(look)
      look()
    })
  }
}

/** Counts ADDED, MODIFIED and DELETED events of a collection from the moment it starts. */
export class ChangeCounter {
  changes = 0
  private readonly stopper = new AbortController()
  private running: Promise<void> | undefined
  private readonly client: KubeClient
  private readonly path: string

  constructor(client: KubeClient, path: string) {
    this.client = client
    this.path = path
  }

  async start(): Promise<void> {
    const list = await this.client.get<{ metadata?: { resourceVersion?: string } }>(this.path, { limit: 1 })
    let rv = list.metadata?.resourceVersion ?? ''
    const signal = this.stopper.signal
    this.running = (async () => {
      while (!signal.aborted) {
        try {
          await this.client.watch(
            this.path,
            { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 300 },
            (e) => {
              rv = (e.object as KubeObject).metadata?.resourceVersion ?? rv
              if (e.type === 'ERROR') throw new Error(`${this.path}: watch error ${JSON.stringify(e.object).slice(0, 200)}`)
              if (e.type !== 'BOOKMARK') this.changes++
            },
            signal,
          )
        } catch (e) {
          if (signal.aborted) return
          throw e
        }
        await sleep(0)
      }
    })()
  }

  async stop(): Promise<void> {
    this.stopper.abort()
    await this.running?.catch(() => {})
  }
}
