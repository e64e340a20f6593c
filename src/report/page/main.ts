// The report page: read the embedded data (JSON, never HTML) and render every section.

type PageMeta = { chart: string; cairn: string };

function readJson<T>(id: string): T {
  const el = document.getElementById(id);
  if (!el?.textContent) throw new Error(`the page has no #${id} data`);
  return JSON.parse(el.textContent) as T;
}

function header(model: Model): HTMLElement {
  const c = model.config;
  const holdout = c.holdout === "off" ? "holdout off" : `holdout ${c.holdout} (${plural(c.holdoutRuns, "run")})`;
  return h(
    "header",
    null,
    h("h1", null, "Knowledge report", h("span", { class: "project" }, model.project)),
    h("p", { class: "muted" }, `Generated ${when(model.generatedAt)} UTC · decay after ${plural(c.decayAfterRuns, "run")} · near decay from ${c.decayAfterRuns ? Math.ceil(c.decayAfterRuns * c.nearDecayRatio) : 0} · ${holdout} · at most ${c.maxPerAgent} entries per agent per run`),
  );
}

function summaryCards(model: Model): HTMLElement {
  const s = model.summary;
  const card = (label: string, value: string | number, kind: string, hint: string) =>
    h("div", { class: `card stat-card ${kind}`, title: hint, "data-stat": label }, h("div", { class: "value" }, value), h("div", { class: "label" }, label));
  const alert = (n: number, kind: string) => (n > 0 ? kind : "");
  return h(
    "div",
    { class: "summary", role: "list" },
    card("active", s.active, "", "entries in knowledge/"),
    card("archived", s.archived, "", "entries in knowledge/archive/"),
    card("near decay", s.nearDecay, alert(s.nearDecay, "warn"), "active entries near their decay limit"),
    card("last chance", s.lastChance, alert(s.lastChance, "warn"), "one run from decay: withheld from agents until one finds it on its own"),
    card("past limit", s.pastLimit, alert(s.pastLimit, "bad"), "the next record or decay archives them"),
    card("primed-only", s.evidence["primed-only"], alert(s.evidence["primed-only"], "bad"), "active entries reported only when shown: likely false positives"),
    card("independent", s.evidence.independent, "", "active entries some agent found without being shown them"),
    card("verification failed", s.verificationFailed, alert(s.verificationFailed, "bad"), "the verify step's pattern is gone: likely fixed"),
    card("anchor drift", s.drifted + s.unresolved, alert(s.drifted + s.unresolved, "warn"), `${s.drifted} drifted, ${s.unresolved} unresolved`),
    card("runs", s.runs, "", `${s.agents} agents`),
    card("confirmations", `${s.confirmations.independent} / ${s.confirmations.primed}`, "", "independent / primed"),
    card("conflicts", s.conflicts, alert(s.conflicts, "bad"), "merge conflicts of the lifecycle to resolve"),
  );
}

function notices(model: Model): HTMLElement | null {
  if (!model.conflicts.length && !model.warnings.length) return null;
  return section(
    "notices",
    "Conflicts and warnings",
    null,
    h(
      "ul",
      { class: "warnings" },
      ...model.conflicts.map((c) => h("li", null, h("b", null, c.id), `: ${c.message}. What to do: ${c.fix}`)),
      ...model.warnings.map((w) => h("li", null, w)),
    ),
  );
}

function renderPage(): void {
  const root = document.getElementById("report");
  if (!root) throw new Error("the page has no #report element");
  try {
    const model = readJson<Model>("cairn-report-data");
    const meta = readJson<PageMeta>("cairn-report-meta");
    setUpCharts();
    root.replaceChildren(
      header(model),
      summaryCards(model),
      notices(model) ?? "",
      entriesSection(model),
      agentsSection(model),
      timelineSection(model),
      h("footer", { class: "muted" }, `cairn ${meta.cairn} · charts by ${meta.chart} · this page works offline: no server, no network`),
    );
    // Charts are drawn in the next frame; this runs after them.
    requestAnimationFrame(() => document.documentElement.setAttribute("data-rendered", "true"));
  } catch (error) {
    root.replaceChildren(h("p", { class: "error" }, `The report could not be rendered: ${(error as Error).message}`));
    document.documentElement.setAttribute("data-rendered", "error");
    throw error;
  }
}

renderPage();
