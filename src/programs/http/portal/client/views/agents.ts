import type { AgentsConfig } from "../../assets.js"
import { api } from "../api.js"
import { h } from "../dom.js"
import { codeBlock, command, errorPanel, md, pageHeader, pill, section, table } from "../ui.js"

/** The config embedded by the server in index.html (`#agents-config`). */
export const readAgentsConfig = (): AgentsConfig | null => {
  const el = document.getElementById("agents-config")
  if (!el?.textContent) return null
  try {
    return JSON.parse(el.textContent) as AgentsConfig
  } catch {
    return null
  }
}

/** The endpoint list of `GET /api/v1`, read defensively. */
const endpointsOf = (
  index: unknown
): Array<{ readonly method: string; readonly path: string; readonly description: string }> => {
  const list = (index as { endpoints?: unknown } | null)?.endpoints
  if (!Array.isArray(list)) return []
  return list.flatMap((e: unknown) => {
    const x = e as { method?: unknown; path?: unknown; description?: unknown } | null
    return x && typeof x.path === "string"
      ? [{
        method: typeof x.method === "string" ? x.method : "GET",
        path: x.path,
        description: typeof x.description === "string" ? x.description : ""
      }]
      : []
  })
}

const order: ReadonlyArray<readonly [string, string]> = [
  ["Where is X stored?", "search_datasets → get_dataset → get_provenance"],
  ["What is the RoPA status?", "get_compliance_state"],
  ["What feeds this table?", "get_lineage"],
  ["What changed?", "get_changes"]
]

export const agentsView = async (): Promise<HTMLElement> => {
  const cfg = readAgentsConfig()
  const page = h(
    "div",
    { class: "page agents" },
    pageHeader(
      "Agents (MCP)",
      md(
        "Let an AI assistant answer questions from this catalog. `catalog mcp` is a read-only agent server over stdio: the assistant launches it, it has no network, and it has no write tool — it cannot confirm, sign or change anything."
      )
    )
  )
  if (cfg === null) {
    page.appendChild(
      errorPanel(
        new Error(
          "The registration details are missing from this page. Print them in a terminal with `catalog mcp --print-config`."
        )
      )
    )
    return page
  }
  const [dora, index] = await Promise.all([api.dora(), api.index().catch(() => null)])
  const tools = dora.inScope ? cfg.tools.doraInScope : cfg.tools.doraOutOfScope

  page.appendChild(
    section(
      "Register the server",
      h("p", null, "For a coding client, one command (run it in the project where you use the assistant):"),
      h("div", { class: "reg-command", "data-testid": "registration-command" }, command(cfg.command)),
      h(
        "p",
        null,
        "For any client that reads an ",
        h("code", null, "mcpServers"),
        " block, paste this into its configuration:"
      ),
      h(
        "div",
        { "data-testid": "registration-block" },
        codeBlock(JSON.stringify(cfg.block, null, 2), "Registration block")
      ),
      h(
        "p",
        { class: "small muted" },
        "Both paths are absolute because the assistant starts the server from its own working folder: ",
        h("code", null, "CATALOG_DATA"),
        " is this catalog (",
        h("code", { class: "path" }, cfg.dataDir),
        ")",
        cfg.configPath
          ? [
            ", ",
            h("code", null, "CATALOG_CONFIG"),
            " its configuration (",
            h("code", { class: "path" }, cfg.configPath),
            ")"
          ]
          : " (no catalog.yml was found next to it)",
        ". The same block is printed by ",
        h("code", null, "catalog mcp --print-config"),
        "; the assistant's playbook by ",
        h("code", null, "catalog mcp --skill"),
        "."
      ),
      h(
        "p",
        { class: "small muted", "data-testid": "registration-launch" },
        cfg.launch.command === "npx"
          ? [
            "The server is started with ",
            h("code", null, "npx"),
            " from the registry this catalog was installed from; npx runs the ",
            h("code", null, "node"),
            " on the assistant's PATH, which must be 22.18 or newer."
          ]
          : [
            "The command is this installation itself: the Node binary running it (",
            h("code", { class: "path" }, cfg.launch.command),
            ") and its entry file (",
            h("code", { class: "path" }, cfg.launch.args[0] ?? ""),
            "), so it works from any folder. Print the block again after moving, reinstalling or upgrading the catalog or Node."
          ]
      )
    )
  )

  page.appendChild(
    section(
      `Tools (${tools.length})`,
      h(
        "p",
        null,
        "Every tool only reads. They answer from the same reader as this page and the CLI, so all three agree."
      ),
      h(
        "ol",
        { class: "tools", "data-testid": "mcp-tools" },
        tools.map((t) =>
          h(
            "li",
            { class: "tool", "data-tool": t.name },
            h(
              "div",
              { class: "tool-head" },
              h("code", { class: "tool-name" }, t.name),
              h("span", { class: "tool-title" }, t.title),
              pill("read-only", "neutral")
            ),
            h("p", { class: "tool-desc" }, md(t.description))
          )
        )
      ),
      dora.inScope
        ? null
        : h(
          "p",
          { class: "small muted" },
          "An eighth tool, for the DORA register, is listed once DORA scope is declared in catalog.yml."
        )
    )
  )

  page.appendChild(
    h(
      "div",
      { class: "grid2" },
      section(
        "How an assistant should use them",
        h(
          "dl",
          { class: "facts" },
          order.map(([q, a]) => h("div", null, h("dt", null, q), h("dd", null, h("code", null, a))))
        ),
        h(
          "p",
          { class: "small" },
          "Provenance comes before relying on an answer, so stale or unreachable sources become caveats."
        )
      ),
      section(
        "What stays human",
        h(
          "p",
          null,
          "Purpose, lawful basis, retention and transfers are legal calls that only a named human may confirm. Signing, unlocking and paying are human acts too. No agent surface can do any of these; whatever an agent drafts stays ",
          h("em", null, "suggested"),
          "."
        )
      )
    )
  )

  const endpoints = endpointsOf(index)
  if (endpoints.length > 0) {
    page.appendChild(
      section(
        "Read API",
        h(
          "p",
          null,
          "While ",
          h("code", null, "catalog open"),
          " runs, the same answers are served as JSON at ",
          h("code", null, `${location.origin}/api/v1`),
          " (GET only, loopback only). This page uses nothing else."
        ),
        table(
          "Read API endpoints",
          ["Method", "Path", "Returns"],
          endpoints.map((e) =>
            h(
              "tr",
              null,
              h("td", { class: "mono" }, e.method),
              h("td", { class: "mono" }, e.path),
              h("td", null, e.description)
            )
          )
        )
      )
    )
  }
  return page
}
