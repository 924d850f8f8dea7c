/**
 * Which build this is. The official export and attestation (sealing a record, `catalog verify`, the signed
 * artifacts) are the paid step: the free build — the npm package (`npm pack`, built with `--free`) — does not
 * install them, and every path to them answers PORTAL_NOT_INSTALLED. The repository's own build (`npm run
 * build`) is the full build, so the tests exercise sealing. esbuild replaces `__CATALOG_OFFICIAL__` at build
 * time; unbundled (vitest, vite-node) the full build is assumed.
 */
declare const __CATALOG_OFFICIAL__: boolean | undefined

export const officialInstalled: boolean = typeof __CATALOG_OFFICIAL__ === "boolean" ? __CATALOG_OFFICIAL__ : true

/** The edition's name, as `catalog --version --json` and `catalog help --json` say it. */
export const edition: "free" | "full" = officialInstalled ? "full" : "free"
