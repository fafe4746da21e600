// A loopback TCP proxy in front of the API server that a test can freeze:
// while frozen, bytes are held back (buffered, not lost) in both directions
// and connections stay open, which is what a half-open connection or a stuck
// load balancer looks like to a watch. Thawing delivers what was held back.

import { createServer, connect, type Socket, type Server } from 'node:net'

export interface FreezableProxy {
  url: string
  freeze(): void
  thaw(): void
  close(): Promise<void>
}

export async function startProxy(target: string): Promise<FreezableProxy> {
  const t = new URL(target)
  let frozen = false
  const sockets = new Set<Socket>()
  const held: (() => void)[] = []
  const server: Server = createServer((client) => {
    const upstream = connect(Number(t.port), t.hostname)
    sockets.add(client)
    sockets.add(upstream)
    const pipe = (from: Socket, to: Socket): void => {
      from.on('data', (chunk) => {
        if (frozen) held.push(() => to.write(chunk))
        else to.write(chunk)
      })
    }
    pipe(client, upstream)
    pipe(upstream, client)
    const end = (): void => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as { port: number }).port
  return {
    url: `https://127.0.0.1:${port}`,
    freeze: () => (frozen = true),
    thaw: () => {
      frozen = false
      for (const f of held.splice(0)) f()
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}
