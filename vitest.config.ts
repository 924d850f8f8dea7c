import { defineConfig } from "vitest/config"
import { portalVitePlugin } from "./src/programs/http/portal/bundle.mjs"

export default defineConfig({
  // The local portal page as strings (`virtual:portal-assets`), as the esbuild bundle has it.
  plugins: [portalVitePlugin()],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default"]
  }
})
