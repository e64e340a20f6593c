import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseLedgerText, readLedger } from "../../src/ledger/read.js";

let dir: string;
let ledgerDir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-ledger-read-"));
  ledgerDir = path.join(dir, "knowledge", ".ledger");
  await mkdir(ledgerDir, { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function line(eventId: string, time: string, entry = "e", extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ v: 1, eventId, time, type: "retracted", entry, ...extra });
}

async function write(name: string, text: string): Promise<void> {
  await writeFile(path.join(ledgerDir, name), text);
}

describe("readLedger", () => {
  it("returns no events for a missing or empty directory", async () => {
    expect(await readLedger(path.join(dir, "nope"))).toEqual({ events: [], warnings: [] });
    expect(await readLedger(ledgerDir)).toEqual({ events: [], warnings: [] });
  });

  it("reads the files cairn diff counts: a hidden .x.jsonl (which a pull request comment never showed) is not the ledger", async () => {
    await write("2026-02.jsonl", `${line("A", "2026-02-01T00:00:00.000Z")}\n`);
    await write(".cache.jsonl", `${line("B", "2026-02-02T00:00:00.000Z")}\n`);
    expect((await readLedger(ledgerDir)).events.map((e) => e.eventId)).toEqual(["A"]);
    const { openLedger, forgetFoldedLedgers } = await import("../../src/ledger/index.js");
    forgetFoldedLedgers();
    expect((await openLedger(ledgerDir).state()).state.size).toBe(1);
    const { classify } = await import("../../src/diff/versions.js");
    expect([classify("knowledge/.ledger/2026-02.jsonl", "knowledge")?.kind, classify("knowledge/.ledger/.cache.jsonl", "knowledge")]).toEqual(["ledger", undefined]);
  });

  it("a merge that left conflict markers: the events on both sides are read, and each marker line is named as one", async () => {
    await write("2026-02.jsonl", [line("A", "2026-02-01T00:00:00.000Z"), "<<<<<<< HEAD", line("B", "2026-02-02T00:00:00.000Z"), "=======", line("C", "2026-02-03T00:00:00.000Z"), ">>>>>>> feature", ""].join("\n"));
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["A", "B", "C"]);
    expect(warnings.map((w) => [w.line, w.rule])).toEqual([[2, "ledger-conflict-marker"], [4, "ledger-conflict-marker"], [6, "ledger-conflict-marker"]]);
    expect(warnings[0]!.message).toMatch(/^line skipped: a git merge conflict marker; the events on both sides of it are kept/);
    // The last marker with no line break after it is a marker too, not a torn write.
    await write("2026-02.jsonl", [line("A", "2026-02-01T00:00:00.000Z"), "<<<<<<< HEAD", line("B", "2026-02-02T00:00:00.000Z"), ">>>>>>> feature"].join("\n"));
    expect((await readLedger(ledgerDir)).warnings.map((w) => [w.line, w.rule])).toEqual([[2, "ledger-conflict-marker"], [4, "ledger-conflict-marker"]]);
  });

  it("skips a torn last line with a warning", async () => {
    await write("2026-02.jsonl", `${line("A", "2026-02-01T00:00:00.000Z")}\n{"v":1,"eventId":"B","ti`);
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["A"]);
    expect(warnings).toEqual([
      expect.objectContaining({ file: `${ledgerDir}/2026-02.jsonl`, line: 2, rule: "ledger-torn-line", severity: "warning" }),
    ]);
  });

  it("accepts a complete last line without a trailing newline", async () => {
    await write("2026-02.jsonl", `${line("A", "2026-02-01T00:00:00.000Z")}\n${line("B", "2026-02-02T00:00:00.000Z")}`);
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["A", "B"]);
    expect(warnings).toEqual([]);
  });

  it("skips invalid lines in the middle with warnings that name the line", async () => {
    const text = [
      line("A", "2026-02-01T00:00:00.000Z"),
      "not json at all",
      JSON.stringify({ v: 1, eventId: "C", time: "2026-02-01T00:00:00.000Z", type: "confirmed", run: "r", agent: "a", entry: "e", provenance: "primed?" }),
      JSON.stringify({ v: 1, eventId: "D", time: "someday", type: "retracted", entry: "e" }),
      JSON.stringify({ v: 1, eventId: "E", time: "2026-02-01T00:00:00.000Z", type: "exploded", entry: "e" }),
      "[1,2,3]",
      line("F", "2026-02-03T00:00:00.000Z"),
      "",
    ].join("\n");
    await write("2026-02.jsonl", text);
    const { events, warnings } = await readLedger(ledgerDir, { relativeTo: dir });
    expect(events.map((e) => e.eventId)).toEqual(["A", "F"]);
    expect(warnings.map((w) => [w.file, w.line, w.rule])).toEqual([
      ["knowledge/.ledger/2026-02.jsonl", 2, "ledger-invalid-line"],
      ["knowledge/.ledger/2026-02.jsonl", 3, "ledger-invalid-line"],
      ["knowledge/.ledger/2026-02.jsonl", 4, "ledger-invalid-line"],
      ["knowledge/.ledger/2026-02.jsonl", 5, "ledger-invalid-line"],
      ["knowledge/.ledger/2026-02.jsonl", 6, "ledger-invalid-line"],
    ]);
    expect(warnings[1]?.message).toContain('"provenance" must be one of independent, primed');
    expect(warnings[2]?.message).toContain('"time" must be an ISO timestamp');
    expect(warnings[3]?.message).toContain('"type" must be one of');
  });

  it("skips lines with an unknown (newer) schema version", async () => {
    await write("2026-02.jsonl", [line("A", "2026-02-01T00:00:00.000Z"), JSON.stringify({ v: 2, eventId: "B", time: "2026-02-01T00:00:00.000Z", type: "teleported" })].join("\n") + "\n");
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["A"]);
    expect(warnings).toEqual([expect.objectContaining({ line: 2, rule: "ledger-unknown-version" })]);
    expect(warnings[0]?.message).toContain("schema version 2");
  });

  it("de-duplicates identical events (as after a git union merge) silently", async () => {
    const a = line("A", "2026-02-01T00:00:00.000Z");
    const b = line("B", "2026-02-02T00:00:00.000Z");
    await write("2026-02.jsonl", [a, b, a, b, a].join("\n") + "\n");
    await write("other-host.jsonl", b + "\n");
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["A", "B"]);
    expect(warnings).toEqual([]);
  });

  it("keeps the first of two different events sharing an id, with a warning", async () => {
    await write("2026-02.jsonl", [line("A", "2026-02-01T00:00:00.000Z", "x"), line("A", "2026-02-01T00:00:00.000Z", "y")].join("\n") + "\n");
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events).toEqual([expect.objectContaining({ eventId: "A", entry: "x" })]);
    expect(warnings).toEqual([expect.objectContaining({ line: 2, rule: "ledger-duplicate-id" })]);
  });

  it("merges several files and sorts by time, then eventId", async () => {
    await write("2026-03.jsonl", [line("Z", "2026-03-01T00:00:00.000Z"), line("B", "2026-01-15T00:00:00.000Z")].join("\n") + "\n");
    await write("2026-01.jsonl", [line("C", "2026-01-15T00:00:00.000Z"), line("A", "2026-01-15T00:00:00.000Z"), line("Y", "2026-01-01T00:00:00.000Z")].join("\n") + "\n");
    await write("notes.txt", "ignored\n");
    await mkdir(path.join(ledgerDir, "sub.jsonl"));
    const { events, warnings } = await readLedger(ledgerDir);
    expect(events.map((e) => e.eventId)).toEqual(["Y", "A", "B", "C", "Z"]);
    expect(warnings).toEqual([]);
  });

  it("tolerates CRLF line endings, a BOM and non-canonical times (normalised to UTC ISO)", async () => {
    await write("2026-02.jsonl", "\uFEFF" + [line("A", "2026-02-01T01:00:00+01:00"), line("B", "2026-02-01T00:30:00Z")].join("\r\n") + "\r\n");
    const { events, warnings } = await readLedger(ledgerDir);
    expect(warnings).toEqual([]);
    expect(events.map((e) => [e.eventId, e.time])).toEqual([
      ["A", "2026-02-01T00:00:00.000Z"],
      ["B", "2026-02-01T00:30:00.000Z"],
    ]);
  });
});

describe("parseLedgerText", () => {
  it("recovers an event glued to a torn fragment and warns about the fragment", () => {
    const text = `{"v":1,"eventId":"T","time":"2026-0${line("A", "2026-02-01T00:00:00.000Z")}\n`;
    const parsed = parseLedgerText(text, "x.jsonl");
    expect(parsed.events.map((e) => e.eventId)).toEqual(["A"]);
    expect(parsed.lines).toEqual([1]);
    expect(parsed.warnings).toEqual([expect.objectContaining({ file: "x.jsonl", line: 1, rule: "ledger-torn-line" })]);
  });
});
