// Bundles src/bin.ts into dist/ as ESM with code splitting, so that the CLI loads only what a command needs.
import { build } from "esbuild"
import { rmSync, chmodSync } from "node:fs"

rmSync("dist", { recursive: true, force: true })
await build({
  entryPoints: { bin: "src/bin.ts" },
  outdir: "dist",
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
chmodSync("dist/bin.js", 0o755)
