/**
 * The fold answers exactly what the event-list code it replaced answered (test/ledger/legacy.ts),
 * and a state folded up to any point, encoded, decoded and folded on is the state folded at once.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeLedgerFiles } from "../../src/ledger/read.js";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { decodeState, encodeState } from "../../src/ledger/state-codec.js";
import { foldEvents } from "../../src/ledger/source.js";
import { LedgerState } from "../../src/ledger/state.js";
import { projectState } from "../../src/ledger/projections.js";
import { AGENTS, DATES, describeState, ENTRIES, ledgerEvents, RUN_REFS } from "./arbitrary.js";
import {
  legacyCompoundedFindings,
  legacyConflictEvents,
  legacyHeldOutForRun,
  legacyInjectionsForRun,
  legacyKnownRuns,
  legacyLatestFingerprints,
  legacyNames,
  legacyProjectLedger,
  legacyRecordedCitations,
  legacyRecordedFindings,
  legacyRunRecord,
  legacyVerificationStates,
} from "./legacy.js";

/** The events as `readLedger` returns them: sorted by time then eventId, duplicates dropped. */
function asRead(events: LedgerEvent[]): LedgerEvent[] {
  return mergeLedgerFiles([{ file: "x.jsonl", events, lines: events.map((_, i) => i + 1), warnings: [] }]).events;
}

/** A union merge's leftovers: some events twice. */
const withDuplicates = (events: LedgerEvent[], picks: number[]) => [...events, ...picks.filter((i) => i < events.length).map((i) => structuredClone(events[i] as LedgerEvent))];

const dates = fc.tuple(...ENTRIES.map(() => fc.option(fc.constantFrom(...DATES), { nil: undefined })));
const today = fc.option(fc.constantFrom("2026-02-11", "2026-02-14"), { nil: undefined });

/** Through the snapshot's bytes and back (its header as JSON). */
function roundTrip(state: LedgerState): LedgerState {
  const { header, body } = encodeState(state);
  const decoded = decodeState(JSON.parse(JSON.stringify(header)), Buffer.from(body));
  if ("problem" in decoded) throw new Error(decoded.problem);
  return decoded.state;
}

describe("the fold agrees with the event-list code it replaced", () => {
  it("on random ledgers: projections, runs, recorded findings, conflicts, verifications, fingerprints", () => {
    fc.assert(
      fc.property(ledgerEvents(), fc.array(fc.nat(80), { maxLength: 6 }), dates, today, (raw, dup, fm, day) => {
        const events = asRead(withDuplicates(raw, dup));
        const state = foldEvents(events);
        const infos = ENTRIES.map((id, i) => ({ id, ...(fm[i] !== undefined ? { lastConfirmed: fm[i] } : {}) }));
        const options = day ? { today: day } : {};
        expect([...projectState(state, infos, options)]).toEqual([...legacyProjectLedger(events, infos, options)]);
        for (const ref of RUN_REFS) {
          for (const agent of [undefined, ...AGENTS, "nobody"]) {
            expect(state.injectionsForRun(ref, agent)).toEqual(legacyInjectionsForRun(events, ref, agent));
            expect(state.heldOutForRun(ref, agent)).toEqual(legacyHeldOutForRun(events, ref, agent));
          }
          expect(state.runRecord(ref)).toEqual(legacyRunRecord(events, ref));
          expect(new Map([...state.recordedFindings(ref)].sort())).toEqual(new Map([...legacyRecordedFindings(events, ref)].sort()));
          expect([...state.recordedCitations(ref)].sort()).toEqual([...legacyRecordedCitations(events, ref)].sort());
          expect(new Map([...state.compoundedFindings(ref)].sort())).toEqual(new Map([...legacyCompoundedFindings(events, ref)].sort()));
        }
        expect(state.knownRuns()).toEqual(legacyKnownRuns(events));
        const conflicts = legacyConflictEvents(events);
        for (const id of ENTRIES) {
          expect(state.names(id)).toBe(legacyNames(events, id));
          expect(state.entry(id)?.lastArchived).toBe(conflicts.archived.get(id));
          expect(state.entry(id)?.lastAffirmed).toBe(conflicts.confirmed.get(id));
        }
        expect(new Map([...state.verifications()].sort())).toEqual(new Map([...legacyVerificationStates(events)].sort()));
        expect(new Map([...state.fingerprints()].sort())).toEqual(new Map([...legacyLatestFingerprints(events)].sort()));
        // The digest a cached anchor result is keyed by: of the fingerprints' JSON, as a snapshot keeps it.
        const prints = legacyLatestFingerprints(events);
        for (const id of ENTRIES) {
          const latest = prints.get(id);
          expect(state.printsDigest(id)).toBe(latest ? createHash("sha256").update(JSON.stringify(latest)).digest("hex").slice(0, 16) : undefined);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("snapshot + tail", () => {
  it("a state encoded at any split point and folded on equals the state folded at once", () => {
    fc.assert(
      fc.property(ledgerEvents(), fc.array(fc.nat(80), { maxLength: 4 }), fc.array(fc.nat(100), { maxLength: 3 }), fc.array(fc.nat(7), { maxLength: 3 }), dates, today, (raw, dup, cuts, peeks, fm, day) => {
        const events = asRead(withDuplicates(raw, dup));
        const whole = describeState(foldEvents(events), fm, day);
        // Several snapshots along the way, each decoded and folded on; in between, a few entries and runs
        // are decoded (queried) and the rest written back as they were read.
        let state = new LedgerState();
        let at = 0;
        for (const cut of [...cuts.map((c) => Math.min(c, events.length)).sort((a, b) => a - b), events.length]) {
          for (; at < cut; at++) state.apply(events[at] as LedgerEvent);
          state = roundTrip(state);
          for (const peek of peeks) {
            // Some entries decoded with their kept events, some without (those are written back as they were read).
            const fold = state.entry(ENTRIES[peek % ENTRIES.length] as string);
            if (peek % 3 === 0) void fold?.prints;
            state.injectionsForRun(RUN_REFS[peek % RUN_REFS.length] as (typeof RUN_REFS)[number]);
          }
        }
        expect(describeState(state, fm, day)).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it("with entries in several blocks: blocks never read are copied, read or extended ones written again, same answers", () => {
    // 150 entries (blocks of 64: three), each injected, some confirmed with fingerprints, some archived or verified.
    const time = (i: number) => new Date(Date.parse("2026-02-10T00:00:00Z") + i * 1000).toISOString();
    let i = 0;
    const eventsFor = (ids: number[]): LedgerEvent[] =>
      ids.flatMap((k) => {
        const entry = `e${k}`;
        const out: LedgerEvent[] = [{ v: 1, eventId: `I${++i}`, time: time(i), type: "injected", run: `r${k % 7}`, agent: "security", entries: [entry] }];
        if (k % 3 === 0) out.push({ v: 1, eventId: `C${++i}`, time: time(i), type: "confirmed", run: `r${k % 7}`, agent: "security", entry, provenance: "independent", fingerprints: [{ path: `src/${k}.ts`, start: 1, end: 2, hash: "0123456789abcdef" }] });
        if (k % 5 === 0) out.push({ v: 1, eventId: `A${++i}`, time: time(i), type: "archived", entry, reason: "decayed" });
        if (k % 11 === 0) out.push({ v: 1, eventId: `V${++i}`, time: time(i), type: "verified", entry, result: "failed", verifyHash: "v1", steps: [{ step: 0, result: "failed" }] });
        return out;
      });
    const first = eventsFor(Array.from({ length: 150 }, (_, k) => k));
    // Then: entries of block 0 get new events (it is decoded), block 1 is only read, block 2 gets new entries after the stored ones.
    const later = eventsFor([5, 6, 150, 151, 152]);
    const ids = Array.from({ length: 153 }, (_, k) => `e${k}`);
    // The digests first, as check asks them: from the snapshot's list, before any entry is decoded.
    const answers = (state: LedgerState) => [
      ids.map((id) => state.printsDigest(id)),
      ...ids.map((id) => {
        const e = state.entry(id);
        if (e === undefined) return undefined;
        const { independent, primed, withheld, found, injectedRuns, lastReset, afterRuns, heldOnlyRuns, lastInjected, lastInjectedRun, named, lastArchived, lastAffirmed, verification, prints } = e;
        const fields = { independent, primed, withheld, found, injectedRuns, lastReset, afterRuns, heldOnlyRuns, lastInjected, lastInjectedRun, named, lastArchived, lastAffirmed, verification, prints };
        return { ...fields, after: state.runsAfterReset(e as never), digest: state.printsDigest(id) };
      }),
    ];
    let state = roundTrip(foldEvents(first));
    void state.entry("e70")?.prints;
    for (const event of later) state.apply(event);
    state = roundTrip(state);
    expect(answers(state)).toEqual(answers(foldEvents([...first, ...later])));
    // Read nothing, write again: every block copied as it was.
    expect(answers(roundTrip(roundTrip(state)))).toEqual(answers(foldEvents([...first, ...later])));
  });

  it("refuses to fold an event that sorts before the last one", () => {
    const state = new LedgerState();
    state.apply({ v: 1, eventId: "B", time: "2026-02-10T00:00:00.000Z", type: "retracted", entry: "a" });
    expect(() => state.apply({ v: 1, eventId: "A", time: "2026-02-10T00:00:00.000Z", type: "retracted", entry: "a" })).toThrow(/order/);
  });

  it("a damaged encoded state is refused, not half-used", () => {
    const state = foldEvents([
      { v: 1, eventId: "A", time: "2026-02-10T00:00:00.000Z", type: "injected", run: "r1", agent: "security", entries: ["a"] },
      { v: 1, eventId: "B", time: "2026-02-10T00:01:00.000Z", type: "confirmed", run: "r1", agent: "security", entry: "a", provenance: "primed", findingHash: "h" },
    ]);
    const { header, body } = encodeState(state);
    expect("state" in decodeState(structuredClone(header), Buffer.from(body))).toBe(true);
    const damaged: Array<(h: any, b: Buffer) => void> = [
      (_, b) => (b[5] = b[5]! ^ 1), // one bit of the body
      (h) => (h.bytes += 1),
      (h) => (h.sha256 = "0".repeat(64)),
      (h) => (h.origins = ["main"]),
      (h) => (h.last = { v: 1 }),
      (h) => (h.runs = [0, 1e9]),
      (h) => (h.size = -1),
    ];
    for (const damage of damaged) {
      const copy = structuredClone(header);
      const bytes = Buffer.from(body);
      damage(copy, bytes);
      expect(decodeState(copy, bytes)).toEqual({ problem: expect.any(String) });
    }
    expect(decodeState(null, Buffer.from(body))).toEqual({ problem: expect.any(String) });
  });
});
