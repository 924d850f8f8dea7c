import pkg from "../package.json" with { type: "json" }

/** The tool's version, from package.json (bundled at build time). */
export const version: string = pkg.version
