/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * DOM building without innerHTML: every piece of text from the catalog (dataset and column names,
 * comments, rule ids) is untrusted and only ever becomes a Text node or an attribute value.
 */

export type Child = Node | string | number | null | undefined | false | ReadonlyArray<Child>
type AttrValue = string | number | boolean | null | undefined
export type Attrs = { readonly [name: string]: AttrValue | ((ev: Event) => void) }

const SVG_NS = "http://www.w3.org/2000/svg"

/** Links may only point inside the page (hash routes) or at our own origin. */
const safeHref = (v: string): string => (v.startsWith("#") || (v.startsWith("/") && !v.startsWith("//")) ? v : "#/")

const apply = (el: Element, attrs: Attrs | null | undefined, children: ReadonlyArray<Child>): void => {
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (typeof value === "function") {
        el.addEventListener(name.replace(/^on/, "").toLowerCase(), value)
      } else if (value === true) {
        el.setAttribute(name, "")
      } else if (value !== false && value !== null && value !== undefined) {
        el.setAttribute(name, name === "href" ? safeHref(String(value)) : String(value))
      }
    }
  }
  append(el, children)
}

export const append = (parent: Node, children: ReadonlyArray<Child>): void => {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(parent, c as ReadonlyArray<Child>)
    else if (c instanceof Node) parent.appendChild(c)
    else parent.appendChild(document.createTextNode(String(c)))
  }
}

/** An HTML element: `h("a", { href: "#/x", class: "link" }, "text")`. `on*` attributes take listeners. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Array<Child>
): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  apply(el, attrs, children)
  return el
}

/** An SVG element. */
export const s = <K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Array<Child>
): SVGElementTagNameMap[K] => {
  const el = document.createElementNS(SVG_NS, tag)
  apply(el, attrs, children)
  return el
}

export const clear = (el: Element): void => {
  while (el.firstChild) el.removeChild(el.firstChild)
}

export const replace = (el: Element, ...children: Array<Child>): void => {
  clear(el)
  append(el, children)
}

let idCounter = 0
/** A unique element id for label/aria wiring. */
export const uid = (prefix: string): string => `${prefix}-${++idCounter}`

/** A dataset page link (ids contain `/`, so the id is one encoded segment). */
export const datasetHref = (id: string): string => `#/dataset/${encodeURIComponent(id)}`
