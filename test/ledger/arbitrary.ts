/**
 * Random ledgers for the equivalence tests: few runs, origins, agents (in several spellings) and
 * entries, times on a few days with many ties, duplicates as a union merge leaves them, holdout,
 * finding hashes, fingerprints, verifications. Plus `describeState`: every answer a consumer can
 * ask of a folded ledger, as one plain value to compare.
 */
import fc from "fast-check";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { projectState } from "../../src/ledger/projections.js";
import type { RunRef } from "../../src/ledger/run-ref.js";
import type { LedgerState } from "../../src/ledger/state.js";

export const ENTRIES = ["a", "b", "c", "d"];
export const RUNS = ["r1", "r2", "r3", "r4"];
export const ORIGINS = [undefined, "main@aaaa", "feature@aaaa"];
export const AGENTS = ["security", " Security ", "performance", "style"];
export const DATES = ["2026-02-09", "2026-02-10", "2026-02-11", "2026-02-12", "2026-02-13", "2030-01-01"];

const start = Date.parse("2026-02-10T00:00:00Z");
/** Minutes over three days, on a coarse grid so that equal times are common. */
const time = fc.integer({ min: 0, max: 3 * 24 * 4 }).map((quarter) => new Date(start + quarter * 15 * 60_000).toISOString());
/** Mostly the first value, so that the same (run, agent, entry) meets itself often (repeats, holdout then confirmation). */
const skewed = <T>(values: readonly T[]): fc.Arbitrary<T> => fc.oneof({ weight: 3, arbitrary: fc.constant(values[0] as T) }, { weight: 2, arbitrary: fc.constantFrom(...values) });
const run = skewed(RUNS);
const origin = skewed(ORIGINS);
const agent = skewed(AGENTS);
const entry = skewed(ENTRIES);
const hash = fc.option(fc.constantFrom("h1", "h2", "h3"), { nil: undefined });
const prints = fc.option(fc.constant([{ path: "src/x.ts", start: 1, end: 2, hash: "0123456789abcdef" }]), { nil: undefined });
const provenance = fc.constantFrom("independent" as const, "primed" as const);

type Body = Omit<LedgerEvent, "v" | "eventId" | "time">;
const clean = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ run, origin, agent, entries: fc.uniqueArray(entry, { maxLength: 3 }) }).map((r) => clean({ type: "injected" as const, ...r })) },
  { weight: 2, arbitrary: fc.record({ run, origin, agent, entry }).map((r) => clean({ type: "held-out" as const, ...r })) },
  { weight: 4, arbitrary: fc.record({ run, origin, agent, entry, provenance, findingHash: hash, fingerprints: prints }).map((r) => clean({ type: "confirmed" as const, ...r })) },
  { weight: 1, arbitrary: fc.record({ entry, fingerprints: prints }).map((r) => clean({ type: "manual-confirmed" as const, ...r })) },
  { weight: 1, arbitrary: fc.record({ entry, date: fc.constantFrom(...DATES.slice(0, 5)) }).map((r) => ({ type: "hand-confirmed" as const, ...r })) },
  { weight: 1, arbitrary: fc.record({ entry }).map((r) => ({ type: "restored" as const, ...r, reason: "recurred" })) },
  { weight: 1, arbitrary: fc.record({ entry, origin }).map((r) => clean({ type: "archived" as const, ...r, reason: "decayed" })) },
  { weight: 1, arbitrary: fc.record({ entry, run, origin, findingHash: hash }).map((r) => clean({ type: "compounded" as const, ...r, agents: ["security", "style"] })) },
  { weight: 1, arbitrary: fc.record({ entry }).map((r) => ({ type: "created" as const, ...r })) },
  { weight: 1, arbitrary: fc.record({ entry }).map((r) => ({ type: "retracted" as const, ...r })) },
  {
    weight: 1,
    arbitrary: fc.record({ entry, result: fc.constantFrom("passed" as const, "failed" as const), verifyHash: fc.constantFrom("v1", "v2") }).map((r) => ({ type: "verified" as const, ...r, steps: [{ step: 0, result: r.result }] })),
  },
);

let counter = 0;
/** A random ledger as appended: events with unique ids (some in the same millisecond), in no particular order. */
export const ledgerEvents = (maxLength = 60): fc.Arbitrary<LedgerEvent[]> =>
  fc.array(fc.tuple(time, body), { maxLength, size: "max" }).map((list) =>
    list.map(([t, b]) => ({ v: 1, eventId: `E${String(++counter).padStart(8, "0")}`, time: t, ...b }) as LedgerEvent),
  );

/** Every run a consumer may ask about: each id with no origin, each origin, and an origin never seen. */
export const RUN_REFS: RunRef[] = RUNS.flatMap((r) => [{ run: r }, ...ORIGINS.filter((o) => o !== undefined).map((o) => ({ run: r, origin: o })), { run: r, origin: "elsewhere@ffff" }]).concat([{ run: "never" }]);

/** Every answer the state gives, for the probes above and `dates` as the entries' frontmatter. */
export function describeState(state: LedgerState, dates: ReadonlyArray<string | undefined>, today?: string): unknown {
  const infos = ENTRIES.map((id, i) => ({ id, ...(dates[i] !== undefined ? { lastConfirmed: dates[i] } : {}) }));
  const perRun = RUN_REFS.map((ref) => ({
    ref,
    injected: [undefined, ...AGENTS, "nobody"].map((a) => state.injectionsForRun(ref, a)),
    held: [undefined, ...AGENTS, "nobody"].map((a) => state.heldOutForRun(ref, a)),
    record: state.runRecord(ref),
    recorded: [...state.recordedFindings(ref)].sort(),
    cited: [...state.recordedCitations(ref)].sort(),
    compounded: [...state.compoundedFindings(ref)].sort(),
  }));
  const conflicts = ENTRIES.map((id) => ({ archived: state.entry(id)?.lastArchived, affirmed: state.entry(id)?.lastAffirmed }));
  return {
    size: state.size,
    views: [...projectState(state, infos, today ? { today } : {})],
    perRun,
    knownRuns: state.knownRuns(),
    names: ENTRIES.map((id) => state.names(id)),
    verifications: [...state.verifications()].sort(),
    fingerprints: [...state.fingerprints()].sort(),
    printsDigests: ENTRIES.map((id) => state.printsDigest(id)),
    conflicts,
  };
}
