/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The local portal page: a hash router over read-only views of the catalog. Every view reads the
 * read API (/api/v1) of the `catalog open` process; nothing on this page writes.
 */
import type { Provenance } from "../../../../domain/Compliance.js"
import { api } from "./api.js"
import { h, replace } from "./dom.js"
import { errorPanel, stalenessBadge, timeAgo, worstTier } from "./ui.js"
import { agentsView, readAgentsConfig } from "./views/agents.js"
import { changesView } from "./views/changes.js"
import { datasetView } from "./views/dataset.js"
import { datasetsView } from "./views/datasets.js"
import { doraView } from "./views/dora.js"
import { glossaryView } from "./views/glossary.js"
import { lineageView } from "./views/lineage.js"
import { overviewView } from "./views/overview.js"
import { provenanceView } from "./views/provenance.js"
import { ropaView } from "./views/ropa.js"

interface Route {
  readonly name: string
  readonly title: (arg: string) => string
  readonly render: (arg: string, query: URLSearchParams) => Promise<HTMLElement>
}

const routes: Record<string, Route> = {
  overview: { name: "overview", title: () => "Overview", render: () => overviewView() },
  datasets: { name: "datasets", title: () => "Datasets", render: (_, q) => datasetsView(q) },
  dataset: { name: "datasets", title: (id) => id, render: (id) => datasetView(id) },
  lineage: { name: "lineage", title: () => "Lineage", render: (_, q) => lineageView(q) },
  glossary: { name: "glossary", title: () => "Glossary", render: (_, q) => glossaryView(q) },
  ropa: { name: "ropa", title: () => "RoPA draft", render: () => ropaView() },
  dora: { name: "dora", title: () => "DORA register", render: () => doraView() },
  provenance: { name: "provenance", title: () => "Provenance", render: () => provenanceView() },
  changes: { name: "changes", title: () => "Changes", render: (_, q) => changesView(q) },
  agents: { name: "agents", title: () => "Agents (MCP)", render: () => agentsView() }
}

/** `#/dataset/<encoded id>?x=y` → route, argument, query. A raw id with `/` is accepted too. */
export const parseHash = (
  hash: string
): { readonly route: string; readonly arg: string; readonly query: URLSearchParams } => {
  const raw = hash.replace(/^#\/?/, "")
  const qi = raw.indexOf("?")
  const path = qi >= 0 ? raw.slice(0, qi) : raw
  const query = new URLSearchParams(qi >= 0 ? raw.slice(qi + 1) : "")
  const [head = "", ...rest] = path.split("/")
  let arg = rest.join("/")
  try {
    arg = decodeURIComponent(arg)
  } catch {
    // keep it as written
  }
  return { route: head === "" ? "overview" : head, arg, query }
}

const main = () => document.getElementById("main")!
let renderSeq = 0

const notFound = (route: string): HTMLElement =>
  h(
    "div",
    { class: "page" },
    h("header", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Not found")),
    h(
      "p",
      null,
      "There is no screen called ",
      h("code", null, route),
      ". ",
      h("a", { href: "#/overview" }, "Go to the overview"),
      "."
    )
  )

const render = async (): Promise<void> => {
  if (location.hash !== "" && !location.hash.startsWith("#/")) return // an in-page anchor such as #main
  const { route, arg, query } = parseHash(location.hash)
  const r = routes[route]
  const mine = ++renderSeq
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".sidebar a[data-route]")) {
    if (a.dataset["route"] === (r?.name ?? "")) a.setAttribute("aria-current", "page")
    else a.removeAttribute("aria-current")
  }
  document.body.classList.remove("nav-open")
  const host = main()
  host.setAttribute("aria-busy", "true")
  const loading = window.setTimeout(() => {
    if (mine === renderSeq) {
      replace(
        host,
        h(
          "div",
          { class: "loading", role: "status" },
          h("span", { class: "spinner", "aria-hidden": "true" }),
          "Loading…"
        )
      )
    }
  }, 120)
  let view: HTMLElement
  try {
    view = r ? await r.render(arg, query) : notFound(route)
  } catch (e) {
    view = h(
      "div",
      { class: "page" },
      h("header", { class: "page-head" }, h("h1", { tabindex: "-1" }, r ? r.title(arg) : "Error")),
      errorPanel(e)
    )
  }
  window.clearTimeout(loading)
  if (mine !== renderSeq) return
  replace(host, view)
  host.removeAttribute("aria-busy")
  document.title = `${r ? r.title(arg) : "Not found"} · Local Data Catalog`
  host.querySelector<HTMLElement>(".term.focus")?.scrollIntoView({ block: "center" })
  if (focusOnRender) host.querySelector<HTMLElement>("h1")?.focus({ preventScroll: true })
  focusOnRender = true
  window.scrollTo(0, 0)
}
let focusOnRender = false

/** The top bar's trust line: worst staleness and the last scan. */
const renderTrust = (prov: Provenance) => {
  const el = document.getElementById("trust-pill")
  if (!el) return
  const worst = worstTier(prov.sources.map((x) => x.staleness))
  replace(
    el,
    h(
      "a",
      { href: "#/provenance", class: "trust-link", title: prov.coverage.line },
      worst ? stalenessBadge(worst) : null,
      h("span", { class: "trust-text" }, "scanned ", timeAgo(prov.lastScanAt))
    )
  )
}

let lastHead: string | null = null
const watchForScans = async () => {
  try {
    const prov = await api.provenance()
    renderTrust(prov)
    const head = `${prov.lastScanAt ?? ""}#${prov.changeLogHead?.seq ?? ""}`
    if (lastHead !== null && head !== lastHead) {
      const banner = document.getElementById("update-banner")
      if (banner) {
        replace(
          banner,
          h(
            "p",
            null,
            "The catalog changed since this page was loaded (a scan or a correction). ",
            h("button", {
              type: "button",
              class: "btn small",
              onclick: () => {
                banner.hidden = true
                void render()
              }
            }, "Show the latest")
          )
        )
        banner.hidden = false
      }
    }
    lastHead = head
  } catch {
    // the API is away; the next view render shows why
  }
}

const boot = () => {
  const cfg = readAgentsConfig()
  const ver = document.getElementById("app-version")
  if (ver && cfg) ver.textContent = `v${cfg.version}`

  const form = document.getElementById("search-form") as HTMLFormElement | null
  const input = document.getElementById("search-input") as HTMLInputElement | null
  form?.addEventListener("submit", (ev) => {
    ev.preventDefault()
    const q = input?.value.trim() ?? ""
    location.hash = q ? `#/datasets?q=${encodeURIComponent(q)}` : "#/datasets"
  })
  document.getElementById("nav-toggle")?.addEventListener("click", () => {
    const open = document.body.classList.toggle("nav-open")
    document.getElementById("nav-toggle")?.setAttribute("aria-expanded", String(open))
  })
  document.querySelector(".skip")?.addEventListener("click", (ev) => {
    ev.preventDefault()
    main().focus()
  })
  document.addEventListener("keydown", (ev) => {
    const t = ev.target as HTMLElement | null
    if (ev.key === "/" && t && !/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) {
      ev.preventDefault()
      input?.focus()
    }
  })

  api.dora().then((d) => {
    const item = document.querySelector<HTMLElement>(".sidebar a[data-route=\"dora\"] .nav-note")
    if (item) item.textContent = d.inScope ? "" : "not in scope"
  }).catch(() => undefined)

  window.addEventListener("hashchange", () => void render())
  void render()
  void watchForScans()
  window.setInterval(() => void watchForScans(), 30_000)
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot)
else boot()
