// Build-time helper for the local portal page: turns the page sources in this folder into the
// virtual module `virtual:portal-assets` ({ html, css, js, icon } as strings), so that the page ends
// up inside the esbuild bundle (scripts/build.mjs) and is importable under Vitest (vitest.config.ts)
// without reading files at run time. The client (client/*.ts) is bundled to one browser script.
import { build } from "esbuild"
import { readFileSync } from "node:fs"
import { join } from "node:path"

export const portalVirtualId = "virtual:portal-assets"
const here = import.meta.dirname

/** The source of the virtual module: every asset as a string literal. */
export const portalAssetsModule = async () => {
  const client = await build({
    entryPoints: [join(here, "client", "main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent"
  })
  const js = client.outputFiles[0].text
  const read = (name) => readFileSync(join(here, name), "utf8")
  const assets = { html: read("index.html"), css: read("app.css"), icon: read("icon.svg"), js }
  return `export default ${JSON.stringify(assets)};\n`
}

/** esbuild plugin (scripts/build.mjs). */
export const portalEsbuildPlugin = () => ({
  name: "portal-assets",
  setup(b) {
    b.onResolve({ filter: /^virtual:portal-assets$/ }, (a) => ({ path: a.path, namespace: "portal-assets" }))
    b.onLoad(
      { filter: /.*/, namespace: "portal-assets" },
      async () => ({ contents: await portalAssetsModule(), loader: "js", watchDirs: [here] })
    )
  }
})

/** Vite plugin (vitest.config.ts). */
export const portalVitePlugin = () => ({
  name: "portal-assets",
  resolveId(id) {
    return id === portalVirtualId ? "\0" + portalVirtualId : null
  },
  async load(id) {
    return id === "\0" + portalVirtualId ? await portalAssetsModule() : null
  }
})
