// The report page: building DOM nodes. Every string from the model (entries and the ledger arrive by
// pull request from anyone) becomes a text node or an attribute value set through the DOM — never
// HTML — so a title like `<img src=x onerror=…>` is shown as text.

type Model = import("../types.js").ReportModel;
type ReportEntry = import("../types.js").ReportEntry;
type RunPoint = import("../types.js").RunPoint;

type Child = Node | string | number | null | undefined | false;

/** Attributes the page sets; none of them can run code or load anything. */
type Attrs = {
  class?: string;
  title?: string;
  role?: string;
  id?: string;
  colspan?: string;
  type?: string;
  placeholder?: string;
  value?: string;
  for?: string;
  tabindex?: string;
  [data: `data-${string}`]: string | undefined;
  [aria: `aria-${string}`]: string | undefined;
};

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined) continue;
      if (name === "class") el.className = value;
      else el.setAttribute(name, value);
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}

/** A small coloured label, e.g. a state or an evidence verdict. */
function badge(text: string, kind: string, title?: string): HTMLElement {
  return h("span", { class: `badge badge-${kind}`, title }, text);
}

/** A section with a heading and an optional note under it. */
function section(id: string, title: string, note: string | null, ...children: Child[]): HTMLElement {
  return h("section", { id, "aria-label": title }, h("h2", null, title), note ? h("p", { class: "note" }, note) : null, ...children);
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** `2026-03-11T10:00:00.000Z` → `2026-03-11 10:00` (UTC, as the ledger records it). */
function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return iso.length > 16 ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso;
}
