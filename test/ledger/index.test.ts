import { appendFile, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openLedger } from "../../src/ledger/index.js";

let dir: string;
let ledgerDir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "cairn-ledger-index-"));
  ledgerDir = path.join(dir, "knowledge", ".ledger");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("Ledger", () => {
  it("reads nothing from a ledger that does not exist yet, then sees appends", async () => {
    const ledger = openLedger(ledgerDir);
    expect((await ledger.read()).events).toEqual([]);
    await ledger.append([{ type: "injected", run: "r1", agent: "security", entries: ["a", "b"], time: "2026-02-01T00:00:00Z" }]);
    await ledger.append([{ type: "injected", run: "r1", agent: "security", entries: ["c"], time: "2026-02-01T00:01:00Z" }]);
    expect((await ledger.read()).events).toHaveLength(2);
    expect(await ledger.injectionsForRun("r1", "security")).toEqual(["a", "b", "c"]);
    expect(await ledger.wasInjected("r1", "security", "b")).toBe(true);
    expect(await ledger.wasInjected("r1", "performance", "b")).toBe(false);
  });

  it("returns the cached result while no file changed, and re-reads changed or removed files", async () => {
    const ledger = openLedger(ledgerDir);
    await ledger.append([
      { type: "retracted", entry: "jan", time: "2026-01-10T00:00:00Z" },
      { type: "retracted", entry: "feb", time: "2026-02-10T00:00:00Z" },
    ]);
    const first = await ledger.read();
    expect(await ledger.read()).toBe(first);

    await appendFile(path.join(ledgerDir, "2026-02.jsonl"), "garbage\n");
    const second = await ledger.read();
    expect(second).not.toBe(first);
    expect(second.events).toHaveLength(2);
    expect(second.warnings).toEqual([expect.objectContaining({ rule: "ledger-invalid-line", line: 2 })]);

    await unlink(path.join(ledgerDir, "2026-01.jsonl"));
    const third = await ledger.read();
    expect(third.events.map((e) => ("entry" in e ? e.entry : ""))).toEqual(["feb"]);

    // A rewrite (as by git checkout) with other contents is noticed too.
    await writeFile(path.join(ledgerDir, "2026-02.jsonl"), "");
    expect((await ledger.read()).events).toEqual([]);
  });

  it("projects decay counters from the ledger and the frontmatter", async () => {
    const ledger = openLedger(ledgerDir, { relativeTo: dir });
    await ledger.append([
      { type: "injected", run: "r1", agent: "a", entries: ["E"], time: "2026-02-12T23:00:00Z" },
      { type: "injected", run: "r2", agent: "a", entries: ["E"], time: "2026-02-13T09:00:00Z" },
      { type: "injected", run: "r2", agent: "b", entries: ["E"], time: "2026-02-13T09:00:01Z" },
      { type: "confirmed", run: "r2", agent: "b", entry: "E", provenance: "primed", time: "2026-02-13T09:30:00Z" },
      { type: "injected", run: "r3", agent: "a", entries: ["E"], time: "2026-02-14T09:00:00Z" },
    ]);
    const views = await ledger.project([{ id: "E", lastConfirmed: "2026-02-12" }]);
    expect(views.get("E")).toMatchObject({ unconfirmedRuns: 2, injectedRuns: 3, confirmations: { independent: 0, primed: 1 }, lastInjectedRun: "r3" });
  });
});
