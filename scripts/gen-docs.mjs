// Writes docs/commands.md from `catalog help --json`, so the command reference never drifts from the CLI.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"

const doc = JSON.parse(execFileSync(process.execPath, ["dist/bin.js", "help", "--json"], { encoding: "utf8" }))
const lines = [
  "# Command reference",
  "",
  `Generated from \`catalog help --json\` (version ${doc.version}) by \`npm run docs\`. Do not edit by hand.`,
  "",
  `Usage: \`${doc.usage}\``,
  "",
  "## Global options",
  "",
  ...doc.globalOptions.map((o) => `- \`${o.flag}\` — ${o.description}`),
  "",
  "## Exit codes",
  "",
  ...Object.entries(doc.exitCodes).map(([k, v]) => `- \`${k}\` — ${v}`),
  "",
  "## Commands",
  ""
]
for (const c of doc.commands) {
  lines.push(`### \`${c.name}\``, "", "```", c.usage, "```", "", c.summary, "")
  if (c.options.length > 0) lines.push(...c.options.map((o) => `- \`${o.flag}\` — ${o.description}`), "")
  lines.push("Examples:", "", "```sh", ...c.examples, "```", "")
  if (c.errors.length > 0) lines.push(`Errors: ${c.errors.map((e) => `\`${e}\``).join(", ")}`, "")
}
lines.push("## Environment variables", "", ...doc.environment.map((e) => `- \`${e.name}\` — ${e.description}`), "")
lines.push("## Error registry", "", "| code | exit | message | fix |", "|---|---|---|---|")
for (const e of doc.errors) {
  lines.push(
    `| \`${e.code}\` | ${e.exitCode} | ${e.message.replace(/\|/g, "\\|")} | ${(e.fix ?? "").replace(/\|/g, "\\|")} |`
  )
}
writeFileSync("docs/commands.md", lines.join("\n") + "\n")
console.log(`docs/commands.md: ${doc.commands.length} commands, ${doc.errors.length} error codes`)
