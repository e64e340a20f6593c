import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { projectLedger } from "../../src/ledger/projections.js";

/** A direct reading of lifecycle rule 3, to check the optimised projection against. */
function reference(events: LedgerEvent[], id: string, lastConfirmed: string | undefined) {
  const resets: string[] = [];
  for (const e of events) {
    const reset =
      (e.type === "confirmed" && e.provenance === "independent") || e.type === "manual-confirmed" || e.type === "restored" || e.type === "compounded";
    if (reset && e.entry === id) resets.push(e.time);
  }
  const lastReset = resets.sort().at(-1);
  // The clock: a frontmatter date on or before the day of the last reset is that reset's (exact) date; a later one counts to the end of its day.
  const date = lastConfirmed !== undefined && (lastReset === undefined || lastConfirmed > lastReset.slice(0, 10)) ? `${lastConfirmed}T23:59:59.999Z` : undefined;
  const since = [lastReset, date].filter((t): t is string => t !== undefined).sort().at(-1);
  const injections = events.filter((e): e is Extract<LedgerEvent, { type: "injected" }> => e.type === "injected" && e.entries.includes(id));
  return {
    unconfirmedRuns: new Set(injections.filter((e) => since === undefined || e.time > since).map((e) => e.run)).size,
    injectedRuns: new Set(injections.map((e) => e.run)).size,
    lastConfirmedAt: since,
    independent: events.filter((e) => e.type === "confirmed" && e.entry === id && e.provenance === "independent").length,
    primed: events.filter((e) => e.type === "confirmed" && e.entry === id && e.provenance === "primed").length,
  };
}

const ENTRIES = ["a", "b", "c", "d"];
const start = Date.parse("2026-02-10T00:00:00Z");
const time = fc.integer({ min: 0, max: 4 * 24 * 60 }).map((minutes) => new Date(start + minutes * 60_000).toISOString());
const run = fc.constantFrom("r1", "r2", "r3", "r4", "r5", "r6");
const agent = fc.constantFrom("security", "performance", "style");
const entry = fc.constantFrom(...ENTRIES, "unknown");
let counter = 0;
const base = (t: string) => ({ v: 1, eventId: `E${String(++counter).padStart(8, "0")}`, time: t });
const event: fc.Arbitrary<LedgerEvent> = fc.oneof(
  fc.record({ t: time, run, agent, entries: fc.uniqueArray(entry, { minLength: 1, maxLength: 3 }) }).map(({ t, ...rest }) => ({ ...base(t), type: "injected" as const, ...rest })),
  fc.record({ t: time, run, agent, entry, provenance: fc.constantFrom("independent" as const, "primed" as const) }).map(({ t, ...rest }) => ({ ...base(t), type: "confirmed" as const, ...rest })),
  fc.record({ t: time, entry }).map(({ t, entry }) => ({ ...base(t), type: "manual-confirmed" as const, entry })),
  fc.record({ t: time, entry }).map(({ t, entry }) => ({ ...base(t), type: "restored" as const, entry, reason: "recurred" })),
  fc.record({ t: time, entry }).map(({ t, entry }) => ({ ...base(t), type: "archived" as const, entry, reason: "decayed" })),
);
const frontmatter = fc.option(fc.constantFrom("2026-02-09", "2026-02-10", "2026-02-11", "2026-02-12", "2026-02-13"), { nil: undefined });

describe("projectLedger agrees with a direct reading of rule 3", () => {
  it("on random ledgers", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.tuple(frontmatter, frontmatter, frontmatter, frontmatter), (events, dates) => {
        const infos = ENTRIES.map((id, i) => ({ id, ...(dates[i] !== undefined ? { lastConfirmed: dates[i] } : {}) }));
        const views = projectLedger(events, infos);
        for (const info of infos) {
          const expected = reference(events, info.id, info.lastConfirmed);
          const view = views.get(info.id);
          expect(view).toMatchObject({
            unconfirmedRuns: expected.unconfirmedRuns,
            injectedRuns: expected.injectedRuns,
            confirmations: { independent: expected.independent, primed: expected.primed },
          });
          expect(view?.lastConfirmedAt).toBe(expected.lastConfirmedAt);
        }
      }),
      { numRuns: 300 },
    );
  });
});
