import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isCairnError } from "../../src/errors.js";
import { appendEvents, ledgerFileFor, MAX_WRITE_BYTES, type NewEvent } from "../../src/ledger/append.js";
import { LEDGER_SCHEMA_VERSION } from "../../src/ledger/events.js";
import { readLedger } from "../../src/ledger/read.js";

let dir: string;
let ledgerDir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-ledger-append-"));
  ledgerDir = path.join(dir, "knowledge", ".ledger");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(file: string): Promise<string[]> {
  const text = await readFile(path.join(ledgerDir, file), "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n");
}

describe("appendEvents", () => {
  it("creates the directory and fills v, eventId and time", async () => {
    const before = Date.now();
    const written = await appendEvents(ledgerDir, [{ type: "injected", run: "r1", agent: "security", entries: ["a", "b"] }]);
    const after = Date.now();
    expect(written).toHaveLength(1);
    const event = written[0]!;
    expect(event.v).toBe(LEDGER_SCHEMA_VERSION);
    expect(event.eventId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const time = Date.parse(event.time);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
    const files = await readdir(ledgerDir);
    expect(files).toEqual([ledgerFileFor(event.time)]);
    const [line] = await lines(files[0]!);
    expect(JSON.parse(line!)).toEqual(event);
    // v, eventId and time come first: readers can recover lines by their `{"v":` start.
    expect(line!.startsWith(`{"v":${LEDGER_SCHEMA_VERSION},"eventId":"${event.eventId}","time":"`)).toBe(true);
  });

  it("keeps caller-provided times (canonicalised) and files events by UTC month", async () => {
    const written = await appendEvents(ledgerDir, [
      { type: "manual-confirmed", entry: "a", time: "2026-01-31T23:30:00-02:00" },
      { type: "retracted", entry: "b", time: new Date("2026-02-12T10:00:00Z") },
      { type: "superseded", entry: "c", by: "d", time: "2026-02-13T00:00:00Z" },
    ]);
    expect(written.map((e) => e.time)).toEqual(["2026-02-01T01:30:00.000Z", "2026-02-12T10:00:00.000Z", "2026-02-13T00:00:00.000Z"]);
    expect(await readdir(ledgerDir)).toEqual(["2026-02.jsonl"]);
    await appendEvents(ledgerDir, [{ type: "retracted", entry: "e", time: "2025-12-31T23:59:59.999Z" }]);
    expect((await readdir(ledgerDir)).sort()).toEqual(["2025-12.jsonl", "2026-02.jsonl"]);
    expect(await lines("2026-02.jsonl")).toHaveLength(3);
  });

  it("gives unique ids that keep batch order among events with the same time", async () => {
    const time = "2026-03-01T00:00:00.000Z";
    const batch: NewEvent[] = Array.from({ length: 500 }, (_, i) => ({ type: "retracted", entry: `e${i}`, time }));
    const written = await appendEvents(ledgerDir, batch);
    const ids = written.map((e) => e.eventId);
    expect(new Set(ids).size).toBe(500);
    expect([...ids].sort()).toEqual(ids);
    const read = await readLedger(ledgerDir);
    expect(read.events.map((e) => ("entry" in e ? e.entry : ""))).toEqual(batch.map((e) => ("entry" in e ? e.entry : "")));
  });

  it("validates every event before writing any", async () => {
    const bad = [
      { type: "injected", run: "r1", agent: "a", entries: ["x"] },
      { type: "confirmed", run: "r1", agent: "a", entry: "x", provenance: "maybe" },
    ] as unknown as NewEvent[];
    const error = await appendEvents(ledgerDir, bad).catch((e: unknown) => e);
    expect(isCairnError(error) && error.code).toBe("INVALID");
    expect((error as Error).message).toMatch(/event 1 .*"provenance" must be one of independent, primed/);
    expect(await readdir(dir)).toEqual([]);

    const badTime = await appendEvents(ledgerDir, [{ type: "retracted", entry: "x", time: "yesterday-ish" }]).catch((e: unknown) => e);
    expect(isCairnError(badTime) && badTime.code).toBe("INVALID");
    expect((badTime as Error).message).toContain("invalid time");
  });

  it("writes single-line JSON even when values contain newlines", async () => {
    await appendEvents(ledgerDir, [{ type: "archived", entry: "x", reason: "line one\nline two\r\n\u2028end", time: "2026-04-01T00:00:00Z" }]);
    const all = await lines("2026-04.jsonl");
    expect(all).toHaveLength(1);
    const read = await readLedger(ledgerDir);
    expect(read.events[0]).toMatchObject({ type: "archived", reason: "line one\nline two\r\n\u2028end" });
  });

  it("splits large batches into chunks of complete lines and loses none", async () => {
    const entries = Array.from({ length: 5 }, (_, i) => `entry-${"y".repeat(200)}-${i}`);
    const batch: NewEvent[] = Array.from({ length: 400 }, (_, i) => ({
      type: "injected",
      run: `run-${i}`,
      agent: "perf",
      entries,
      time: "2026-05-05T05:05:05.005Z",
    }));
    await appendEvents(ledgerDir, batch);
    const { size } = await stat(path.join(ledgerDir, "2026-05.jsonl"));
    expect(size).toBeGreaterThan(4 * MAX_WRITE_BYTES);
    const all = await lines("2026-05.jsonl");
    expect(all).toHaveLength(400);
    expect(all.map((l) => (JSON.parse(l) as { run: string }).run)).toEqual(batch.map((_, i) => `run-${i}`));
  });

  it("appends after existing content, and a torn tail costs only the fragment", async () => {
    await mkdir(ledgerDir, { recursive: true });
    await appendEvents(ledgerDir, [{ type: "retracted", entry: "first", time: "2026-06-01T00:00:00Z" }]);
    const file = path.join(ledgerDir, "2026-06.jsonl");
    const before = await readFile(file, "utf8");
    await writeFile(file, before + '{"v":1,"eventId":"01TORN","time":"2026-06-01T00:0');
    await appendEvents(ledgerDir, [{ type: "retracted", entry: "second", time: "2026-06-02T00:00:00Z" }]);
    const read = await readLedger(ledgerDir);
    expect(read.events.map((e) => ("entry" in e ? e.entry : ""))).toEqual(["first", "second"]);
    expect(read.warnings).toHaveLength(1);
    expect(read.warnings[0]).toMatchObject({ rule: "ledger-torn-line", line: 2, severity: "warning" });
  });

  it("does nothing for an empty batch", async () => {
    expect(await appendEvents(ledgerDir, [])).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });
});
