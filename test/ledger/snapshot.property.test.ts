/**
 * Snapshot + appended tail = the whole ledger folded, on real files: after random appends (valid,
 * torn, garbage, repeated lines, events older than the snapshot's), union-merge-like rewrites,
 * removed and new files, a warm Ledger, a cold one (from the snapshot, as a new process) and a
 * cold one without a snapshot all answer what `readLedger` + a fresh fold answer, warnings included.
 */
import { appendFile, mkdir, mkdtemp, readFile, rename, rm, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../src/ledger/events.js";
import { forgetFoldedLedgers, openLedger, readLedger } from "../../src/ledger/index.js";
import { foldEvents } from "../../src/ledger/source.js";
import { DATES, describeState, ENTRIES, ledgerEvents } from "./arbitrary.js";

const FILES = ["2026-02.jsonl", "2026-03.jsonl", "other-host.jsonl"];

type Op =
  | { kind: "append"; file: number; events: LedgerEvent[] }
  | { kind: "torn"; file: number; event: LedgerEvent; cut: number }
  | { kind: "unterminated"; file: number; event: LedgerEvent }
  | { kind: "newline"; file: number }
  | { kind: "garbage"; file: number }
  | { kind: "repeat"; file: number; pick: number }
  | { kind: "reuse"; file: number; pick: number }
  | { kind: "merge"; file: number; events: LedgerEvent[]; at: number; inPlace: boolean }
  | { kind: "edit"; file: number; event: LedgerEvent; at: number; inPlace: boolean }
  | { kind: "drop"; file: number; at: number }
  | { kind: "remove"; file: number }
  | { kind: "read"; who: "warm" | "cold" | "none" };

const file = fc.nat(FILES.length - 1);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("append" as const), file, events: ledgerEvents(6) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("torn" as const), file, event: ledgerEvents(1).filter((e) => e.length === 1).map((e) => e[0] as LedgerEvent), cut: fc.nat(200) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unterminated" as const), file, event: ledgerEvents(1).filter((e) => e.length === 1).map((e) => e[0] as LedgerEvent) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("newline" as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("garbage" as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("repeat" as const), file, pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reuse" as const), file, pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("merge" as const), file, events: ledgerEvents(4), at: fc.nat(1000), inPlace: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("edit" as const), file, event: ledgerEvents(1).filter((e) => e.length === 1).map((e) => e[0] as LedgerEvent), at: fc.nat(1000), inPlace: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop" as const), file, at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), file }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("read" as const), who: fc.constantFrom("warm" as const, "cold" as const, "none" as const) }) },
);

const line = (e: LedgerEvent) => JSON.stringify(e);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cairn-snapshot-property-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function apply(dir: string, o: Exclude<Op, { kind: "read" }>): Promise<void> {
  const target = path.join(dir, FILES[o.file] as string);
  const text = await readFile(target, "utf8").catch(() => "");
  switch (o.kind) {
    case "append":
      return appendFile(target, o.events.map((e) => `${line(e)}\n`).join(""));
    case "torn":
      return appendFile(target, line(o.event).slice(0, 1 + (o.cut % (line(o.event).length - 1))));
    case "unterminated":
      return appendFile(target, line(o.event));
    case "newline":
      return appendFile(target, "\n");
    case "garbage":
      return appendFile(target, "not json\n");
    case "repeat": {
      const lines = text.split("\n").filter((l) => l.startsWith("{"));
      if (lines.length) await appendFile(target, `${lines[o.pick % lines.length]}\n`);
      return;
    }
    case "reuse": {
      // A different event under an existing line's id and time (only a hand edit does this).
      const parse = (l: string): Record<string, unknown> | undefined => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      };
      // Often the latest event: the one a snapshot's tail is compared with.
      const all = (await Promise.all(FILES.map((f) => readFile(path.join(dir, f), "utf8").catch(() => "")))).join("\n");
      const events = all.split("\n").map(parse).filter((e) => e !== undefined).sort((a, b) => `${a.time}${a.eventId}`.localeCompare(`${b.time}${b.eventId}`));
      const picked = o.pick % 2 === 0 ? events.at(-1) : events[o.pick % Math.max(1, events.length)];
      if (picked) await appendFile(target, `${JSON.stringify({ v: 1, eventId: picked.eventId, time: picked.time, type: "retracted", entry: "b" })}\n`);
      return;
    }
    case "merge":
    case "edit":
    case "drop": {
      // What a union merge or a rebase leaves (the other side's lines in the middle), a hand edit of a line, a dropped line.
      const lines = text.split("\n");
      const at = o.at % (lines.length + 1);
      const inserted = o.kind === "merge" ? o.events.map(line) : o.kind === "edit" ? [line(o.event)] : [];
      const merged = [...lines.slice(0, at), ...inserted, ...lines.slice(o.kind === "merge" ? at : at + 1)].join("\n");
      if (o.kind === "drop" || o.inPlace) return writeFile(target, merged);
      await writeFile(`${target}.tmp`, merged);
      return rename(`${target}.tmp`, target);
    }
    case "remove":
      return unlink(target).catch(() => {});
  }
}

describe("Ledger.state(): snapshot + tail equals the whole ledger folded", () => {
  it("after random appends, rewrites and removals, warm, cold and without a snapshot", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(ledgerEvents(12), fc.array(op, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 6 }), fc.tuple(...ENTRIES.map(() => fc.option(fc.constantFrom(...DATES), { nil: undefined }))), async (initial, ops, every, dates) => {
        const project = path.join(root, `p${++n}`);
        const dir = path.join(project, "knowledge", ".ledger");
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, FILES[0] as string), initial.map((e) => `${line(e)}\n`).join(""));
        const options = { root: project, relativeTo: project, snapshot: path.join(project, ".cairn", "ledger-state.json"), snapshotEvery: every };
        forgetFoldedLedgers();
        let warm = openLedger(dir, options);
        for (const o of [...ops, { kind: "read" as const, who: "cold" as const }]) {
          if (o.kind !== "read") {
            await apply(dir, o);
            continue;
          }
          if (o.who === "cold") {
            forgetFoldedLedgers();
            warm = openLedger(dir, options);
          }
          const ledger = o.who === "none" ? openLedger(dir, { root: project, relativeTo: project }) : warm;
          const got = await ledger.state();
          const full = await readLedger(dir, { relativeTo: project });
          expect(got.warnings).toEqual(full.warnings);
          expect(describeState(got.state, dates, "2026-02-14")).toEqual(describeState(foldEvents(full.events), dates, "2026-02-14"));
        }
        await rm(project, { recursive: true, force: true });
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
