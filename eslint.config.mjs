import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

/** A relative import that leaves the folder (`../x/…` at any depth) into one of `folders`. */
const into = (folders) => `^(\\.\\./)+(${folders.join("|")})/`
const restrict = (files, patterns) => ({
  files,
  rules: { "no-restricted-imports": ["error", { patterns }] }
})
/** Technologies a service may not bind itself to: they are chosen in src/layers/. */
const drivers = {
  group: [
    "node:sqlite",
    "pg",
    "mysql2",
    "mysql2/*",
    "@effect/sql-pg",
    "@effect/sql-mysql2",
    "@effect/platform-node",
    "node:fs",
    "node:fs/*",
    "fs"
  ],
  message: "A service depends on abstractions (SqlClient, Files, Clock); the technology is chosen in src/layers/."
}
const noConsoleError = {
  selector: "MemberExpression[object.name='Console'][property.name='error']",
  message: "Use stderrLine (src/services/AppEnv.ts): Console.error is dropped while a CLI command runs."
}
const importBoundaries = [
  restrict(["src/domain/**/*.ts"], [{ regex: "^\\.\\./", message: "src/domain imports nothing of ours." }]),
  restrict(["src/errors/**/*.ts"], [{
    regex: "^\\.\\./(?!domain/)",
    message: "src/errors may import src/domain only."
  }]),
  restrict(["src/classifier/**/*.ts", "src/dora/**/*.ts", "src/migrations/**/*.ts"], [{
    regex: "^\\.\\./(?!domain/|errors/)",
    message: "Pure parts (classifier, dora, migrations) may import src/domain and src/errors only."
  }]),
  restrict(["src/services/**/*.ts"], [
    {
      regex: into(["layers", "programs", "migrations"]),
      message: "src/services may import domain, errors and pure parts, never layers or programs."
    },
    drivers
  ]),
  restrict(["src/layers/**/*.ts"], [{
    regex: into(["programs"]),
    message: "src/layers implement services; programs compose them, not the reverse."
  }]),
  ...["cli", "mcp", "http", "portal"].map((program) =>
    restrict([`src/programs/${program}/**/*.{ts,mjs}`], [{
      regex: into(["cli", "mcp", "http", "portal"].filter((p) => p !== program)),
      message: "A program never reaches into another program."
    }])
  )
]

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      "test-artifacts/**",
      "samples/build/**",
      ".catalog/**",
      "test/fixtures/apps/**"
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Formatting: dprint through @effect/eslint-plugin, with the Effect packages' own settings (width 120).
  ...effectEslint.configs.dprint,
  {
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-constant-condition": ["error", { checkLoops: false }]
    }
  },
  // What each folder may import (docs/architecture.md): a wrong-way arrow fails the build.
  ...importBoundaries,
  {
    // While a CLI command runs, Console.error is reserved for @effect/cli's parse errors (which the CLI
    // drops and reprints in the registry's shape): programs write human lines with stderrLine.
    files: ["src/**/*.ts"],
    ignores: ["src/programs/cli/main.ts"],
    rules: { "no-restricted-syntax": ["error", noConsoleError] }
  },
  {
    // A lazy import() is an import too: a service never loads a layer or a program.
    files: ["src/services/**/*.ts"],
    rules: {
      "no-restricted-syntax": ["error", noConsoleError, {
        selector: "ImportExpression[source.value=/(^|\\/)(layers|programs|migrations)\\//]",
        message: "src/services may import domain, errors and pure parts, never layers or programs."
      }, {
        selector:
          "NewExpression[callee.name='Date'][arguments.length=0], CallExpression[callee.object.name='Date'][callee.property.name='now']",
        message: "A service takes the time from Effect's Clock (DateTime.now), so tests can set it."
      }]
    }
  },
  {
    files: ["scripts/**/*.mjs", "scripts/**/*.js"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        performance: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        structuredClone: "readonly"
      }
    }
  }
)
