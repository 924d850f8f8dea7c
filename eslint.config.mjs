import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

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
  {
    // While a CLI command runs, Console.error is reserved for @effect/cli's parse errors (which the CLI
    // drops and reprints in the registry's shape): programs write human lines with stderrLine.
    files: ["src/**/*.ts"],
    ignores: ["src/programs/cli/main.ts"],
    rules: {
      "no-restricted-syntax": ["error", {
        selector: "MemberExpression[object.name='Console'][property.name='error']",
        message: "Use stderrLine (src/services/AppEnv.ts): Console.error is dropped while a CLI command runs."
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
