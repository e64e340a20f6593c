// The report page: the entry table — decay bar, confirmations over runs, holdout evidence, verification
// and anchor drift per entry; filter and sort; a row opens its details with a chart of its runs.

const DECAY_LABEL: Record<string, string> = { ok: "in window", near: "near decay", "last-chance": "last chance (holdout)", "past-limit": "past its limit", archived: "archived" };
const EVIDENCE_HINT: Record<string, string> = {
  independent: "an agent found it without being shown it",
  "primed-only": "reported only when shown, never when withheld: likely a false positive",
  untested: "never withheld, never found unshown",
};
const VERIFY_KIND: Record<string, string> = { passed: "good", failed: "bad", "not-mechanical": "quiet", outdated: "quiet", never: "quiet" };
const VERIFY_LABEL: Record<string, string> = { passed: "passed", failed: "failed", "not-mechanical": "not mechanical", outdated: "outdated", never: "never run" };
const DRIFT_KIND: Record<string, string> = { ok: "good", drifted: "warn", unresolved: "bad", external: "quiet" };
const EVIDENCE_KIND: Record<string, string> = { independent: "good", "primed-only": "bad", untested: "quiet" };

function decayBar(entry: ReportEntry): HTMLElement {
  const d = entry.decay;
  const archived = d.state === "archived";
  const ratio = archived ? 1 : Math.min(1, d.runs / d.limit);
  const fill = h("div", { class: `decay-fill decay-${d.state}` });
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  const marker = h("div", { class: "decay-mark", title: `near decay from ${d.nearAt}/${d.limit}` });
  marker.style.left = `${((d.nearAt / d.limit) * 100).toFixed(1)}%`;
  const track = h(
    "div",
    { class: "decay-track", role: "meter", "aria-label": `decay ${d.runs} of ${d.limit} runs`, "aria-valuemin": "0", "aria-valuemax": String(d.limit), "aria-valuenow": String(d.runs) },
    fill,
    archived ? null : marker,
  );
  const held = d.heldOutRuns > 0 || d.state === "last-chance" ? ` · held ${d.heldOutRuns}/${d.holdoutRuns}` : "";
  const text = archived ? "archived" : `${d.runs}/${d.limit}${held}`;
  return h(
    "div",
    { class: "decay", "data-state": d.state, "data-runs": String(d.runs), "data-limit": String(d.limit), title: `${DECAY_LABEL[d.state] ?? d.state}: ${d.runs} of ${d.limit} runs injected it since its last confirmation${d.holdoutRuns ? `; withheld in ${d.heldOutRuns} of ${d.holdoutRuns} holdout runs` : ""}` },
    track,
    h("span", { class: "decay-text" }, text),
  );
}

function entryCell(entry: ReportEntry): HTMLElement {
  return h(
    "td",
    { class: "entry-cell" },
    h("div", { class: "entry-title" }, entry.title),
    h("div", { class: "entry-id" }, entry.id),
    entry.tags.length ? h("div", { class: "tags" }, ...entry.tags.map((t) => h("span", { class: "tag" }, t))) : null,
  );
}

function stateCell(entry: ReportEntry): HTMLElement {
  return h(
    "td",
    null,
    badge(entry.state, entry.state === "active" ? "good" : "quiet"),
    entry.status !== "observed" ? h("div", { class: "small" }, badge(entry.status, entry.status === "disputed" || entry.status === "superseded" ? "warn" : "quiet", "claim status")) : null,
  );
}

function confirmationsCell(model: Model, entry: ReportEntry): HTMLElement {
  const c = entry.confirmations;
  return h("td", null, sparkline(model, entry), h("div", { class: "small" }, h("span", { class: "ind" }, `${c.independent} independent`), " · ", h("span", { class: "pri" }, `${c.primed} primed`)));
}

function holdoutCell(entry: ReportEntry): HTMLElement {
  const o = entry.holdout;
  const detail = o.withheld ? `withheld ${o.withheld}× · found ${o.found}×` : "never withheld";
  return h("td", null, badge(o.evidence, EVIDENCE_KIND[o.evidence] ?? "quiet", EVIDENCE_HINT[o.evidence]), h("div", { class: "small" }, detail));
}

function verificationCell(entry: ReportEntry): HTMLElement {
  const v = entry.verification;
  return h("td", null, badge(VERIFY_LABEL[v.state] ?? v.state, VERIFY_KIND[v.state] ?? "quiet", v.message ?? undefined), v.time ? h("div", { class: "small" }, when(v.time).slice(0, 10)) : null);
}

function driftCell(entry: ReportEntry): HTMLElement {
  const d = entry.drift;
  const first = d.problems[0];
  return h("td", null, badge(d.state, DRIFT_KIND[d.state] ?? "quiet", first?.message), d.problems.length > 1 ? h("div", { class: "small" }, plural(d.problems.length, "problem")) : null);
}

function details(model: Model, entry: ReportEntry): HTMLElement {
  const facts: Array<[string, string | null]> = [
    ["file", entry.path],
    ["provenance", entry.provenance],
    ["last confirmed", entry.lastConfirmed],
    ["last injected", entry.lastInjected ? when(entry.lastInjected) : null],
    ["agents", entry.agents.length ? entry.agents.join(", ") : "every agent"],
    ["archived", entry.archived ? `${entry.archived}${entry.archivedReason ? ` — ${entry.archivedReason}` : ""}` : null],
  ];
  const problems = [...entry.warnings, ...entry.drift.problems.filter((p) => p.severity === "error").map((p) => p.message)];
  return h(
    "div",
    { class: "details" },
    h("p", { class: "finding" }, entry.finding),
    h("dl", null, ...facts.filter(([, v]) => v).flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    problems.length ? h("ul", { class: "warnings" }, ...[...new Set(problems)].map((w) => h("li", null, w))) : null,
    runChart(model, entry.series, { injected: "injected (agents)", heldOut: "withheld (agents)", independent: "independent", primed: "primed" }, `runs of ${entry.id}`),
  );
}

type SortKey = "entry" | "state" | "decay" | "confirmations" | "evidence" | "verification" | "drift" | "confirmed";

const RANK = {
  decay: { ok: 1, near: 2, "last-chance": 3, "past-limit": 4, archived: 0 } as Record<string, number>,
  evidence: { "primed-only": 2, untested: 1, independent: 0 } as Record<string, number>,
  verification: { failed: 3, outdated: 1, passed: 0, "not-mechanical": 0, never: 0 } as Record<string, number>,
  drift: { unresolved: 3, drifted: 2, external: 1, ok: 0 } as Record<string, number>,
};

function sortValue(entry: ReportEntry, key: SortKey): number | string {
  switch (key) {
    case "entry":
      return entry.title.toLowerCase();
    case "state":
      return `${entry.state}:${entry.status}`;
    case "decay":
      return (RANK.decay[entry.decay.state] ?? 0) * 1000 + entry.decay.runs / entry.decay.limit;
    case "confirmations":
      return entry.confirmations.independent * 1e6 + entry.confirmations.primed;
    case "evidence":
      return RANK.evidence[entry.holdout.evidence] ?? 0;
    case "verification":
      return RANK.verification[entry.verification.state] ?? 0;
    case "drift":
      return RANK.drift[entry.drift.state] ?? 0;
    case "confirmed":
      return entry.lastConfirmed ?? "";
  }
}

const ATTENTION: Record<string, (e: ReportEntry) => boolean> = {
  all: () => true,
  decay: (e) => e.decay.state === "near" || e.decay.state === "last-chance" || e.decay.state === "past-limit",
  "primed-only": (e) => e.holdout.evidence === "primed-only",
  verification: (e) => e.verification.state === "failed",
  anchors: (e) => e.drift.state === "drifted" || e.drift.state === "unresolved",
};

function select(id: string, label: string, options: Array<[string, string]>): HTMLSelectElement {
  const el = h("select", { id, "aria-label": label }, ...options.map(([value, text]) => h("option", { value }, text)));
  return el;
}

function entriesSection(model: Model): HTMLElement {
  const columns: Array<[SortKey, string]> = [
    ["entry", "Entry"],
    ["state", "State"],
    ["decay", "Decay"],
    ["confirmations", "Confirmations over runs"],
    ["evidence", "Evidence (held out)"],
    ["verification", "Verification"],
    ["drift", "Anchors"],
    ["confirmed", "Last confirmed"],
  ];
  let sort: { key: SortKey; desc: boolean } = { key: "decay", desc: true };
  const search = h("input", { id: "entry-filter", type: "search", placeholder: "filter by id, title, tag, path…", "aria-label": "filter entries" });
  const state = select("state-filter", "state", [["all", "active and archived"], ["active", "active"], ["archived", "archived"]]);
  const attention = select("attention-filter", "needs attention", [
    ["all", "everything"],
    ["decay", "near decay or past it"],
    ["primed-only", "primed-only (likely false)"],
    ["verification", "verification failed"],
    ["anchors", "anchor drift or unresolved"],
  ]);
  const count = h("span", { class: "count", "aria-live": "polite" });
  const head = h("tr", null);
  const body = h("tbody", null);
  const table = h("table", { class: "entries" }, h("thead", null, head), body);

  const headers = columns.map(([key, label]) => {
    const th = h("th", { "data-sort": key, role: "columnheader", title: `sort by ${label.toLowerCase()}` }, label);
    th.addEventListener("click", () => {
      sort = { key, desc: sort.key === key ? !sort.desc : key !== "entry" };
      render();
    });
    head.appendChild(th);
    return th;
  });

  function render(): void {
    const text = search.value.trim().toLowerCase();
    const shown = model.entries
      .filter((e) => state.value === "all" || e.state === state.value)
      .filter((e) => (ATTENTION[attention.value] ?? ATTENTION.all!)(e))
      .filter((e) => !text || [e.id, e.title, e.path, e.finding, ...e.tags].some((s) => s.toLowerCase().includes(text)))
      .sort((a, b) => {
        const x = sortValue(a, sort.key);
        const y = sortValue(b, sort.key);
        const order = x < y ? -1 : x > y ? 1 : a.id.localeCompare(b.id);
        return sort.desc && x !== y ? -order : order;
      });
    headers.forEach((th, i) => th.setAttribute("aria-sort", columns[i]?.[0] === sort.key ? (sort.desc ? "descending" : "ascending") : "none"));
    body.replaceChildren();
    for (const entry of shown) {
      const row = h(
        "tr",
        { class: `entry-row state-${entry.state}`, "data-id": entry.id, tabindex: "0", "aria-expanded": "false", title: "show details" },
        entryCell(entry),
        stateCell(entry),
        h("td", null, decayBar(entry)),
        confirmationsCell(model, entry),
        holdoutCell(entry),
        verificationCell(entry),
        driftCell(entry),
        h("td", { class: "small" }, entry.lastConfirmed ?? "—"),
      );
      let open: HTMLElement | null = null;
      const toggle = () => {
        if (open) {
          open.remove();
          open = null;
          row.setAttribute("aria-expanded", "false");
          return;
        }
        open = h("tr", { class: "details-row", "data-details": entry.id }, h("td", { colspan: String(columns.length) }, details(model, entry)));
        row.after(open);
        row.setAttribute("aria-expanded", "true");
      };
      row.addEventListener("click", toggle);
      row.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle();
        }
      });
      body.appendChild(row);
    }
    count.textContent = `${shown.length} of ${plural(model.entries.length, "entry", "entries")}`;
  }

  for (const control of [search, state, attention]) control.addEventListener("input", render);
  render();
  return section(
    "entries",
    "Entries",
    "Decay: runs that injected the entry since its last independent confirmation, out of decayAfterRuns (the tick marks near decay). Confirmations: independent above the line, primed below, per run. Click a row for its details.",
    h("div", { class: "controls" }, search, state, attention, count),
    h("div", { class: "table-wrap" }, table),
  );
}
