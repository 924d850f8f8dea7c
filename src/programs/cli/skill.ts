/** The versioned playbook for a coding agent that drives the CLI (`catalog skill`). */
export const skillVersion = "1.1.0"

export const skillMarkdown = (toolVersion: string): string =>
  `---
name: local-data-catalog-cli
playbook-version: ${skillVersion}
tool-version: ${toolVersion}
---
# Driving \`catalog\` as a coding agent

\`catalog\` maps where personal data lives by reading **metadata only** (names, types, structure, planner
row estimates — never a row value) and keeps a local catalog in \`.catalog/index.db\`.

## Ground rules
1. Always pass \`--json\`. Success prints one JSON value on stdout; failure prints
   \`{"error":{"code","message","fix"}}\` on stdout. Exit codes: 0 ok, 1 error, 2 usage, 3 a core RoPA field moved (\`watch --ci\`).
2. Never wait for a prompt: nothing prompts off a TTY, with \`--non-interactive\`, or when \`CI\` is set.
   A missing input is a coded error naming the flag or variable to supply.
3. Read \`error.fix\` and do what it says before retrying. Do not retry the same call unchanged.
4. Secrets: never put a connection string in \`catalog.yml\` or on the command line. Reference a database by
   the **name** of the variable that holds it: \`catalog add postgres --ref DATABASE_URL\`. If the variable is
   missing, \`add\` writes a placeholder to \`.env\`; ask the human to replace it (\`SECRET_PLACEHOLDER_UNREPLACED\`
   until they do). Never print or echo a secret.
5. Hard Rule #4: purpose, lawful basis, retention and transfers are legal calls that only a named human may
   confirm. Signing, unlocking and paying are also human acts. Do not try to perform them; hand the exact
   command to the human.

## First run
\`\`\`sh
catalog doctor --json          # what is missing, each with its fix
catalog add postgres --ref DATABASE_URL --json
catalog test postgres --json   # reachable?
catalog start --json           # scan; read .coverage.line — a source may be unreachable
catalog status --json
\`\`\`

## Answering questions
- Where is X stored? \`catalog search <words> --json\`, then \`catalog show <datasetId> --json\` for columns,
  flags (\`classification.value\`, \`rule\`, \`confidence\`, \`method\`) and lineage. Then check
  \`catalog status --json\`: if \`.coverage.complete\` is false or a source's \`staleness\` is \`stale-loud\` or
  \`never\`, say so as a caveat.
- What changed? \`catalog log --json\` (since the last scan) or \`catalog log --since 0 --json\` (everything).
- Row counts are planner **estimates** (\`rowCount.display\` is "~N rows (estimate)"); \`null\` means the
  source has no estimate. Never run \`count(*)\` against a source to "fix" that.

## Trust vocabulary
- \`classification.overridden: true\` — a human set this value (\`by\`, \`at\`); it wins over the scan.
- \`classification.drift: true\` — the human value and the latest scan disagree; flag it for review, do not change it.
- \`confidence\` is calibrated: about 80 % of columns flagged at 0.8 are right. Below 0.6, say "possibly".
- staleness: \`fresh\` (< 24 h), \`stale-warn\` (< 7 d), \`stale-loud\` (≥ 7 d), \`never\` (never scanned).

## Corrections
An agent may propose a correction but should let the human run it:
\`catalog classify set <columnId> <personal|special|criminal|not> --json\` (attributed to \`CATALOG_SIGNER_EMAIL\`
or the OS user) and \`catalog classify clear <columnId> --json\`.

## Sharing the draft (a human decides)
Sending metadata off the machine is a human's decision. You may prepare and show it:
\`catalog invite --no-upload --json\` writes the snapshot (\`snapshot\`, \`bytes\`, \`sha256\`, \`preview\`) and
\`catalog serve-claim\` shows the claim page locally (the human runs it in a terminal). Never pass \`--yes\` to
\`catalog invite\` without the human's explicit approval of that preview and recipient: hand them the exact
command (\`catalog invite --email <address>\`), which asks them on their terminal. \`CATALOG_ONLY\` means the
organisation keeps everything local — do not switch it off.

## Reference
\`catalog help --json\` lists every command, every environment variable and every error code with its fix.
`
