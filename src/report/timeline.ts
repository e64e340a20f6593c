/** The report's timeline: lifecycle events (created, compounded, archived, restored, retracted, superseded, status changes, hand confirmations), oldest first. */
import type { LedgerEvent } from "../ledger/events.js";
import type { TimelineItem, TimelineType } from "./types.js";

const TYPES: ReadonlySet<string> = new Set<TimelineType>(["created", "compounded", "archived", "restored", "retracted", "superseded", "status-set", "manual-confirmed"]);

function detailOf(event: LedgerEvent): string | undefined {
  switch (event.type) {
    case "archived":
    case "restored":
      return event.reason;
    case "superseded":
      return `by ${event.by}`;
    case "status-set":
      return `${event.from} → ${event.to}`;
    default:
      return undefined;
  }
}

export function buildTimeline(events: readonly LedgerEvent[]): TimelineItem[] {
  const out: TimelineItem[] = [];
  for (const event of events) {
    if (!TYPES.has(event.type) || !("entry" in event)) continue;
    const item: TimelineItem = { time: event.time, type: event.type as TimelineType, entry: event.entry };
    if ("run" in event && event.run) item.run = event.run;
    if (event.type === "compounded") item.agents = [...event.agents];
    if (event.actor) item.actor = event.actor;
    if (event.origin) item.origin = event.origin;
    const detail = detailOf(event);
    if (detail !== undefined) item.detail = detail;
    out.push(item);
  }
  return out.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}
