/**
 * A first scan that fails leaves no trace: no empty `index.db` after which `status` would report
 * "0 datasets" instead of "no catalog yet" (MAP_NOT_FOUND), and no empty `.catalog/` folder.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"

export const discardNewCatalogOnFailure = <A, E, R>(scan: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | AppEnv> =>
  Effect.gen(function*() {
    const dir = dataDir(yield* AppEnv)
    const file = indexPath(dir)
    const dirExisted = fs.existsSync(dir)
    const fileExisted = fs.existsSync(file)
    return yield* scan.pipe(Effect.onError(() =>
      fileExisted ? Effect.void : Effect.sync(() => {
        for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true })
        if (!dirExisted && fs.existsSync(dir) && fs.readdirSync(dir).length === 0) fs.rmdirSync(dir)
      })
    ))
  })
