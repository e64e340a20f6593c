// The report page: per agent, what it was given (entries injected, withheld by holdout) and what it
// found (findings matching entries, independent or primed), run by run; all agents together first.

const AGENT_LABELS = { injected: "entries injected", heldOut: "entries withheld (holdout)", independent: "findings matched: independent", primed: "findings matched: primed" };

function agentCard(model: Model, agent: Model["agents"][number]): HTMLElement {
  const t = agent.totals;
  const stats: Array<[string, number, string]> = [
    ["injected", t.injected, ""],
    ["withheld", t.heldOut, "held"],
    ["independent", t.independent, "ind"],
    ["primed", t.primed, "pri"],
    ["compounded", t.compounded, ""],
  ];
  return h(
    "article",
    { class: "card agent", "data-agent": agent.name },
    h("h3", null, agent.name, h("span", { class: "muted" }, ` · ${plural(t.runs, "run")}`)),
    h("div", { class: "stats" }, ...stats.map(([label, n, cls]) => h("span", { class: `stat ${cls}` }, h("b", null, n), ` ${label}`))),
    runChart(model, agent.series, AGENT_LABELS, `runs of agent ${agent.name}`),
  );
}

function agentsSection(model: Model): HTMLElement {
  const overall: RunPoint[] = model.runs.map((r, run) => ({ run, injected: r.injected, heldOut: r.heldOut, independent: r.independent, primed: r.primed }));
  const all = h(
    "article",
    { class: "card agent wide", "data-agent": "" },
    h("h3", null, "All agents"),
    runChart(model, overall, { injected: "entries injected (distinct)", heldOut: "withheld (agent, entry)", independent: "independent confirmations", primed: "primed confirmations" }, "runs of all agents"),
  );
  const cards = model.agents.map((agent) => agentCard(model, agent));
  return section(
    "agents",
    "Agents",
    model.runs.length
      ? `Per run: bars are what each agent was given, lines what it found. A finding is primed when the agent had that entry in its prompt in that run. Totals cover the whole ledger${model.runs.length < model.summary.runs ? `; charts show the last ${plural(model.runs.length, "run")} of ${model.summary.runs}` : ""}.`
      : "No runs recorded yet: cairn inject records what each agent is given.",
    model.runs.length ? h("div", { class: "cards" }, all, ...cards) : null,
  );
}
