/** The versioned playbook for an assistant that reads the catalog through the agent server (`catalog mcp --skill`). */

/** Bump when the advice, the tool surface or its errors change (the e2e contract snapshot records it). */
export const mcpSkillVersion = "1.0.0"

/** SPEC.md's Hard Rule #4, word for word. */
export const hardRule4 =
  "Hard Rule #4: purpose, lawful basis, retention and transfers are legal calls that only a named human may confirm. Signing, unlocking and paying are also human acts. No agent surface can do any of these. The read-only agent server has no write tool. The read API has no write verb. A confirmation must name the person who made it."

export const mcpSkillMarkdown = (toolVersion: string): string =>
  `---
name: local-data-catalog-mcp
description: Answer questions about where personal data is stored, what changed and the state of the GDPR Art. 30 record, from a local data catalog exposed as eight read-only MCP tools.
metadata:
  playbook-version: ${mcpSkillVersion}
  tool-version: ${toolVersion}
---
# Reading the data catalog through its agent server (playbook ${mcpSkillVersion}, local-data-catalog ${toolVersion})

The \`catalog\` server maps where personal data lives by reading **metadata only** (names, types, structure,
planner row estimates — never a row value). It has exactly eight tools and all of them read; none writes,
none reaches the network.

## The rule you must follow
${hardRule4}

So: never claim that a purpose, lawful basis, retention period or transfer is settled unless
\`get_compliance_state\` shows it \`confirmed\` with \`confirmedBy\`. When the user asks you to confirm, sign,
unlock or pay, explain that a named human does it with the CLI (e.g. \`catalog annotate set … --confirm\` with
\`CATALOG_SIGNER_EMAIL\` set) and stop there.

## Which tool, in which order
| Question | Calls, in order |
|---|---|
| Where is X stored? | \`search_datasets {q}\` → \`get_dataset {id}\` on the best hits → \`get_provenance {}\` before you answer |
| Is the RoPA complete? What is still open? | \`get_compliance_state {}\` |
| What feeds this table? Where does its data go? | \`get_lineage {datasetId}\` (omit \`datasetId\` for every edge) |
| What changed? | \`get_changes {}\` (since the last scan), \`{since: 0}\` (everything), \`{since: "2026-01-31T00:00:00Z"}\` |
| What does a business term mean? | \`get_glossary {}\` |
| DORA Register of Information? | \`get_dora {}\` — \`{inScope: false, register: null}\` means DORA scope is not declared |

Always check provenance before relying on an answer: call \`get_provenance\` and turn every source whose
\`reachable\` is false or whose \`staleness\` is \`stale-loud\` or \`never\` into a caveat ("the CRM database was
not reachable at the last scan, so it may hold more"). \`coverage.line\` says it in one sentence.

## Trust vocabulary
- \`seal: "draft"\` — everything here is a DRAFT, not an official record. Say so when you quote the RoPA or DORA draft.
- \`classification.value\` — \`personal\`, \`special\` (Art. 9 categories), \`criminal\` (Art. 10) or \`not\`.
- \`classification.rule\`, \`confidence\` (0..1), \`method\` — why the column was flagged. Below 0.6, say "possibly".
- \`classification.overridden: true\` — a human set this flag (\`by\`, \`at\`); it wins over the scan.
- \`classification.drift: true\` — the human flag and the latest scan disagree; mention it, do not resolve it.
- \`rowCount.display\` is a planner **estimate** ("~N rows (estimate)"); \`estimate: null\` means none is known.
- staleness tiers: \`fresh\` (< 24 h), \`stale-warn\` (< 7 days), \`stale-loud\` (≥ 7 days), \`never\` (never scanned).
- legal field \`status\`: \`suggested\` (a machine draft) or \`confirmed\` (by the named \`confirmedBy\`).

## Results and errors
- Every result is JSON in \`structuredContent\` (the same JSON as text in \`content[0]\`); it is the same value the
  CLI prints with \`--json\` and the read API returns.
- Lists say \`returned\`, \`total\` and \`truncated\`. When \`truncated\` is true you have not seen everything:
  narrow the question (more words, a \`datasetId\`, a later \`since\`) instead of concluding from a partial list.
- A missing, misnamed, mistyped or out-of-range argument, and an unknown tool name, is a **JSON-RPC error
  -32602**; its message and \`error.data.params\` name the parameter (\`data.accepted\` lists the valid ones).
  Fix that argument and call again; do not retry unchanged.
- \`isError: true\` results carry \`{"error": {"code", "message", "fix"}}\`:
  - \`DATASET_NOT_FOUND\` — the id is not in the catalog; find ids with \`search_datasets\`.
  - \`MAP_NOT_FOUND\` — nothing has been scanned yet; tell the user to run \`catalog start\`.
  - \`SCHEMA_MIGRATION_REQUIRED\` — the catalog was written by another version; tell the user to run \`catalog start\`.

## Worked examples
1. "Where do we store customer e-mail addresses?"
   - \`search_datasets {"q": "customer email"}\` → hits such as \`{"kind": "column", "id": "shop/main/customers/email",
     "datasetId": "shop/main/customers", "why": "column name matches \\"email\\"…", "classification": "personal"}\`.
   - \`get_dataset {"id": "shop/main/customers"}\` → every column with its flag, rule and confidence, and the lineage.
   - \`get_provenance {}\` → \`coverage.line\`, e.g. "All 2 sources reached." Answer: "In \`shop/main/customers/email\`
     (flagged personal, rule …, confidence 0.9); the catalog was scanned 2 hours ago and every source was reached."
2. "Which of our processing activities still need a lawful basis?"
   - \`get_compliance_state {}\` → for each activity, \`legal.lawfulBasis.status\`. List the \`suggested\` ones and say that a
     named human must confirm them; you cannot.
3. "What changed since Monday?"
   - \`get_changes {"since": "2026-11-16T00:00:00Z"}\` → entries newest first, each with a \`summary\` and, for human
     corrections, \`by\`. If \`truncated\` is true, page with a later \`since\` or a larger \`limit\` (at most 1000).
4. A mistake and its fix:
   - \`search_datasets {"query": "email"}\` → JSON-RPC error -32602 "search_datasets: missing required parameter 'q' …;
     unknown parameter 'query' …". Call \`search_datasets {"q": "email"}\`.

## What this server never does
It never reads row values, never writes the catalog, never confirms or signs anything, and never opens a
network connection. It carries no secrets: connection strings stay in the user's \`.env\`.
`
