/**
 * Appended ledger events are not refused (CI commits its runs' events), but `cairn diff` names every entry whose
 * decay counter or confirmations they move, and flags one they push past its decay limit. Real git, the real CLI.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { tempRepo, type TempRepo } from "./repo.js";

const LEDGER = "knowledge/.ledger/2026-02.jsonl";
const CTX_CANCEL =
  "---\nlastConfirmed: 2026-01-10\nprovenance: independent\n---\nAuth middleware swallows cancellation errors; check the context after upstream calls.\n\nEvidence: src/auth.ts:1-3, handleRequest()\nVerify: grep for handleRequest in src/auth.ts\n";
const OTHER = CTX_CANCEL.replace("Auth middleware swallows cancellation errors", "Retries without backoff hammer the upstream");

type Effect = { id: string; flag?: string; before: { unconfirmedRuns: number; independent: number }; after: { unconfirmedRuns: number; independent: number }; runs: number };
type Diff = { ledger: Record<string, number>; ledgerEffects: Effect[]; problems: Array<{ file: string; line: number; rule: string; severity: string; message: string }>; warnings: string[] };

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

let n = 0;
const event = (fields: Record<string, unknown>, day: number) => `${JSON.stringify({ v: 1, eventId: `01EFFECT${String(++n).padStart(18, "0")}`, time: `2026-02-${String(day).padStart(2, "0")}T10:00:00.000Z`, ...fields })}\n`;
const injected = (run: string, entries: string[], day: number) => event({ type: "injected", run, agent: "security", entries }, day);

/** main: two entries, ctx-cancel injected once (decay 1/10); a branch `pr` is checked out. */
async function base(): Promise<{ r: TempRepo; first: string }> {
  repo = await tempRepo();
  const first = injected("run0", ["ctx-cancel"], 1);
  await repo.write("src/auth.ts", "export function handleRequest() {\n  return 1;\n}\n");
  await repo.write("cairn.config.json", JSON.stringify({ embedder: { provider: "none" } }));
  await repo.write("knowledge/ctx-cancel.md", CTX_CANCEL);
  await repo.write("knowledge/retry-backoff.md", OTHER);
  await repo.write("knowledge/archive/.gitkeep", "");
  await repo.write(LEDGER, first);
  repo.commit("main");
  repo.git("checkout", "-q", "-b", "pr");
  return { r: repo, first };
}

async function diffOf(r: TempRepo): Promise<{ code: number; text: string; json: Diff }> {
  const text = await cairn(["--root", r.dir, "diff", "main...pr"]);
  const json = await cairn(["--root", r.dir, "diff", "main...pr", "--json"]);
  expect(json.code).toBe(text.code);
  return { code: text.code, text: text.stdout, json: JSON.parse(json.stdout) as Diff };
}

describe("cairn diff: what new ledger events do to the entries they name", () => {
  it("fabricated injected events that push an entry past its decay limit name it and are flagged", async () => {
    const { r, first } = await base();
    const lines = Array.from({ length: 10 }, (_, i) => injected(`ci-${i + 1}`, ["ctx-cancel"], 2 + i)).join("");
    await r.write(LEDGER, first + lines);
    r.commit("ledger");
    const d = await diffOf(r);
    expect(d.code).toBe(0); // a warning: appends are how CI records its runs
    expect(d.json.ledger).toEqual({ injected: 10 });
    expect(d.json.ledgerEffects).toEqual([expect.objectContaining({ id: "ctx-cancel", flag: "past-limit", before: expect.objectContaining({ unconfirmedRuns: 1 }), after: expect.objectContaining({ unconfirmedRuns: 11 }), runs: 10 })]);
    expect(d.json.problems).toEqual([
      expect.objectContaining({ file: LEDGER, line: 11, rule: "ledger-decay-pushed", severity: "warning", message: expect.stringContaining("ctx-cancel: decay 1/10 → 11/10 (past the limit: inject withholds it and the next record or decay archives it) by 10 new events (10 injected) from 10 runs (ci-1, ci-2, ci-3 and 7 more)") }),
    ]);
    expect(d.text).toContain("No entry changes. ledger: +10 events (10 injected) · ⚠️ 1 entry pushed past its decay limit");
    expect(d.text).toContain("### Decay counters moved by new ledger events (1)\n\n- ⚠️ `ctx-cancel` · decay 1/10 → 11/10, past the limit: inject withholds it and the next record or decay archives it — 10 new events (10 injected) from 10 runs (ci-1, ci-2, ci-3 and 7 more)");
    expect(d.text).toMatch(/### Problems \(1\)\n\n- ⚠️ `knowledge\/\.ledger\/2026-02\.jsonl:11` `ledger-decay-pushed` ctx-cancel: decay 1\/10 → 11\/10/);
    // The lifecycle agrees: status says the same entry is past its limit.
    expect((await cairn(["--root", r.dir, "status"], { env: { CAIRN_USE_WATCH: "0" } })).stdout).toMatch(/ctx-cancel\s+active\s+11\/10 .*past its decay limit/);
  });

  it("a normal CI append lists the counters it moves, and nothing alarming", async () => {
    const { r, first } = await base();
    const ci = injected("ci-7", ["ctx-cancel", "retry-backoff"], 3) + event({ type: "confirmed", run: "ci-7", agent: "security", entry: "retry-backoff", provenance: "independent" }, 4);
    await r.write(LEDGER, first + ci);
    r.commit("ci: run ci-7");
    const d = await diffOf(r);
    expect(d.code).toBe(0);
    expect(d.json.problems).toEqual([]);
    expect(d.json.warnings).toEqual([]);
    expect(d.json.ledgerEffects.map((e) => [e.id, e.flag, e.before.unconfirmedRuns, e.after.unconfirmedRuns, e.before.independent, e.after.independent])).toEqual([
      ["ctx-cancel", undefined, 1, 2, 0, 0],
      ["retry-backoff", undefined, 0, 0, 0, 1],
    ]);
    expect(d.text).toContain("No entry changes. ledger: +2 events (1 confirmed, 1 injected)\n");
    expect(d.text).toContain("- `ctx-cancel` · decay 1/10 → 2/10 — 1 new event (1 injected) from 1 run (ci-7)\n- `retry-backoff` · decay 0/10; independent confirmations 0 → 1 — 2 new events (1 confirmed, 1 injected) from 1 run (ci-7)");
    expect(d.text).not.toMatch(/⚠️|### Problems|### Warnings/);
  });

  it("keeps the list bounded when a change appends events for thousands of entries", async () => {
    const { r, first } = await base();
    const ids = Array.from({ length: 1500 }, (_, i) => `ghost-${String(i).padStart(4, "0")}`);
    await r.write(LEDGER, first + injected("bulk", ids, 2));
    r.commit("bulk");
    const d = await diffOf(r);
    expect(d.json.ledgerEffects).toHaveLength(1500);
    expect(d.text).toContain("### Decay counters moved by new ledger events (1500)");
    expect(d.text).toContain("- `ghost-0000` (no entry has this id) · decay 0/10 → 1/10 — 1 new event (1 injected) from 1 run (bulk)");
    expect(d.text).toContain("- … and 1400 more (run `cairn diff --json` to see them all)");
    expect(d.text.length).toBeLessThan(30_000);
  });
});
