// Bundles src/bin.ts into dist/ as ESM with code splitting, so that the CLI loads only what a command needs.
// Two editions (src/edition.ts): `--free` is the npm package (prepack), without the official export and
// attestation — `__CATALOG_OFFICIAL__` is the constant false, so esbuild drops the code behind
// `officialInstalled` and every path to the official record answers PORTAL_NOT_INSTALLED; without it, the
// full build (`npm run build`, which the tests run).
// The bundle is written to a fresh folder and moved in with renames, so a build never leaves dist/
// missing or half-written for a CLI that is running at the same time.
import { build } from "esbuild"
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { portalEsbuildPlugin } from "../src/programs/http/portal/bundle.mjs"

const free = process.argv.includes("--free")
const out = `dist.build-${process.pid}`
rmSync(out, { recursive: true, force: true })
try {
  await build({
    entryPoints: { bin: "src/bin.ts" },
    outdir: out,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "bundle",
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
    banner: {
      js:
        "import { createRequire as __catalogCreateRequire } from 'node:module'; const require = __catalogCreateRequire(import.meta.url);"
    },
    external: ["pg-native", "cloudflare:sockets"],
    define: { __CATALOG_OFFICIAL__: free ? "false" : "true" },
    // The local portal page (served by `catalog open`) as strings: `virtual:portal-assets`.
    plugins: [portalEsbuildPlugin()]
  })
  chmodSync(`${out}/bin.js`, 0o755)
  // Move the new files in one by one (bin.js last). Chunk names are content hashes, so the previous
  // build's chunks stay loadable for a CLI that started before this build; they are pruned after an hour.
  mkdirSync("dist", { recursive: true })
  const fresh = new Set(readdirSync(out))
  for (
    const f of [...fresh].filter((f) => !f.startsWith("bin.js")).concat(
      [...fresh].filter((f) => f.startsWith("bin.js"))
    )
  ) {
    renameSync(`${out}/${f}`, `dist/${f}`)
  }
  rmSync(out, { recursive: true, force: true })
  // --clean (before `npm pack`): only this build's files, so the package carries no stale chunks.
  const clean = process.argv.includes("--clean")
  for (const f of readdirSync("dist")) {
    if (!fresh.has(f) && (clean || Date.now() - statSync(`dist/${f}`).mtimeMs > 3_600_000)) {
      rmSync(`dist/${f}`, { force: true })
    }
  }
} catch (e) {
  rmSync(out, { recursive: true, force: true })
  throw e
}
