// Bundles src/bin.ts into dist/ as ESM with code splitting, so that the CLI loads only what a command needs.
// The bundle is written to a fresh folder and swapped in with renames, so a build never leaves dist/
// missing or half-written for a CLI that is running at the same time.
import { build } from "esbuild"
import { chmodSync, existsSync, renameSync, rmSync } from "node:fs"

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
      js: "import { createRequire as __catalogCreateRequire } from 'node:module'; const require = __catalogCreateRequire(import.meta.url);"
    },
    external: ["pg-native", "cloudflare:sockets"]
  })
  chmodSync(`${out}/bin.js`, 0o755)
  const old = `dist.old-${process.pid}`
  if (existsSync("dist")) renameSync("dist", old)
  renameSync(out, "dist")
  rmSync(old, { recursive: true, force: true })
} catch (e) {
  rmSync(out, { recursive: true, force: true })
  throw e
}
