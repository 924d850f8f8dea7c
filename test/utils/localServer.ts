/** A real local HTTP server for client tests: answers every request with `handler`, closed after `use`. */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export const withLocalServer = <A, E, R>(handler: http.RequestListener, use: (url: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<http.Server>((resolve) => {
        const s = http.createServer(handler)
        s.listen(0, "127.0.0.1", () => resolve(s))
      })
    ),
    (s) => use(`http://127.0.0.1:${(s.address() as AddressInfo).port}`),
    (s) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          s.closeAllConnections()
          s.close(() => resolve())
        })
      )
  )
