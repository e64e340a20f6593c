/** An entry's anchors as a whole: where each points now (for retrieval), drift warnings (for agents and status), fingerprints (for confirmations). */
import type { Diagnostic } from "../entry/diagnostic.js";
import type { AnchorResolver } from "../check/anchors.js";
import type { Entry } from "../entry/types.js";
import type { AnchorFingerprint } from "../ledger/events.js";
import type { NewEvent } from "../ledger/index.js";
import type { ResolvedAnchor } from "./types.js";

/** Each evidence anchor of `entry` resolved: its files, the lines it points at now, and whether it drifted. */
export async function resolveEntryAnchors(resolver: AnchorResolver, entry: Entry): Promise<ResolvedAnchor[]> {
  const out: ResolvedAnchor[] = [];
  for (const anchor of entry.evidence.anchors) out.push(await resolver.locate(anchor, entry));
  return out;
}

/** One line per anchor problem, as an agent or `status` reads it: `anchor drift: src/a.ts:52-61 — the cited lines moved to 92-101`. */
/** An anchor diagnostic as a warning line for agents and `status` ("anchor drift: src/x.ts:52-61 — the cited lines moved to 92-101"). */
export function anchorWarning(d: Pick<Diagnostic, "rule" | "message" | "short">): string {
  const label = d.rule === "anchor-external" ? "anchor not checked" : "anchor drift";
  return `${label}: ${d.short ?? d.message.replace(/^evidence anchor /, "")}`;
}

export function anchorWarnings(resolved: readonly ResolvedAnchor[]): string[] {
  const out: string[] = [];
  for (const r of resolved) {
    for (const p of r.problems) {
      const label = p.rule === "anchor-external" ? "anchor not checked" : "anchor drift";
      out.push(`${label}: ${r.anchor.raw.split("\n")[0]} — ${p.short}`);
    }
  }
  return [...new Set(out)];
}

/** The fingerprints to store when `entry` is confirmed: one per anchor that points at lines or a definition. */
export async function fingerprintsOf(resolver: AnchorResolver, entry: Entry): Promise<AnchorFingerprint[]> {
  const out: AnchorFingerprint[] = [];
  for (const resolved of await resolveEntryAnchors(resolver, entry)) {
    const print = await resolver.locator.fingerprint(resolved);
    if (print && !out.some((p) => p.path === print.path && p.symbol === print.symbol && p.start === print.start && p.end === print.end)) out.push(print);
  }
  return out;
}

/**
 * Wrap an append so the confirmation events of `entries` (`manual-confirmed`, independent
 * `confirmed`) carry the fingerprints of their anchors. Computing them never blocks a confirmation.
 */
export function appendWithFingerprints<A extends (events: NewEvent[]) => Promise<unknown>>(
  append: A & { now?: () => Date; stampTime?: () => Promise<Date>; prepare?: (events: NewEvent[]) => Promise<NewEvent[]> },
  resolver: AnchorResolver,
  entries: readonly Entry[],
): ((events: NewEvent[]) => Promise<unknown>) & { now?: () => Date; stampTime?: () => Promise<Date>; prepare?: (events: NewEvent[]) => Promise<NewEvent[]> } {
  const wanting = (event: NewEvent) => !("fingerprints" in event && event.fingerprints) && (event.type === "manual-confirmed" || (event.type === "confirmed" && event.provenance === "independent"));
  // The fingerprints of the events that want them and have none yet (a change's log holds them: see AppendEvents.prepare).
  const withPrints = async (events: NewEvent[]): Promise<NewEvent[]> => {
    if (!events.some(wanting)) return events;
    const prints = new Map<string, AnchorFingerprint[]>();
    for (const entry of entries) {
      try {
        const list = await fingerprintsOf(resolver, entry);
        if (list.length) prints.set(entry.id, list);
      } catch {
        // A confirmation is recorded even when the anchored files cannot be read.
      }
    }
    return events.map((event) => {
      const list = "entry" in event ? prints.get(event.entry) : undefined;
      return list && wanting(event) ? ({ ...event, fingerprints: list } as NewEvent) : event;
    });
  };
  const wrapped = async (events: NewEvent[]) => append(await withPrints(events));
  const prepare = async (events: NewEvent[]) => {
    const printed = await withPrints(events);
    return append.prepare ? append.prepare(printed) : printed;
  };
  // Keep the caller's clock (`now`): changes stamp their own events with it.
  return Object.assign(wrapped, { prepare, ...(append.now ? { now: append.now } : {}), ...(append.stampTime ? { stampTime: append.stampTime } : {}) });
}
