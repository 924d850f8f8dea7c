/** The page sources of this folder as strings, built by bundle.mjs (esbuild plugin and Vite plugin). */
declare module "virtual:portal-assets" {
  const assets: {
    /** index.html, with the `<!--AGENTS_CONFIG-->` slot. */
    readonly html: string
    readonly css: string
    /** client/main.ts bundled to one browser script. */
    readonly js: string
    readonly icon: string
  }
  export default assets
}
