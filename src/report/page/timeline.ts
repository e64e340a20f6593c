// The report page: the lifecycle timeline, newest first, filterable by kind of event.

const TIMELINE_LABEL: Record<string, string> = {
  created: "created",
  compounded: "compounded",
  archived: "archived",
  restored: "restored",
  retracted: "retracted",
  superseded: "superseded",
  "status-set": "status changed",
  "manual-confirmed": "confirmed by hand",
};
const TIMELINE_KIND: Record<string, string> = {
  created: "good",
  compounded: "good",
  restored: "good",
  "manual-confirmed": "good",
  archived: "quiet",
  superseded: "quiet",
  "status-set": "warn",
  retracted: "bad",
};

function timelineItem(item: Model["timeline"][number]): HTMLElement {
  const who = [item.run ? `run ${item.run}` : "", item.agents?.length ? `agents ${item.agents.join(", ")}` : "", item.actor ? `by ${item.actor}` : "", item.origin ? `on ${item.origin}` : ""].filter(Boolean).join(" · ");
  return h(
    "li",
    { class: "event", "data-type": item.type },
    h("time", null, when(item.time)),
    badge(TIMELINE_LABEL[item.type] ?? item.type, TIMELINE_KIND[item.type] ?? "quiet"),
    h("span", { class: "event-entry" }, item.entry),
    item.detail ? h("span", { class: "event-detail" }, item.detail) : null,
    who ? h("span", { class: "event-who" }, who) : null,
  );
}

function timelineSection(model: Model): HTMLElement {
  const items = [...model.timeline].reverse();
  const kinds = [...new Set(items.map((i) => i.type))];
  const active = new Set(kinds);
  const list = h("ol", { class: "timeline" });
  const render = () => list.replaceChildren(...items.filter((i) => active.has(i.type)).map(timelineItem));
  const chips = kinds.map((kind) => {
    const chip = h("button", { class: "chip on", type: "button", "data-kind": kind, "aria-pressed": "true" }, `${TIMELINE_LABEL[kind] ?? kind} (${items.filter((i) => i.type === kind).length})`);
    chip.addEventListener("click", () => {
      if (active.has(kind)) active.delete(kind);
      else active.add(kind);
      chip.classList.toggle("on", active.has(kind));
      chip.setAttribute("aria-pressed", String(active.has(kind)));
      render();
    });
    return chip;
  });
  render();
  return section(
    "timeline",
    "Timeline",
    items.length ? "Lifecycle events from the ledger, newest first: who changed what, in which run, and why." : "No lifecycle events yet.",
    chips.length ? h("div", { class: "controls" }, ...chips) : null,
    list,
  );
}
