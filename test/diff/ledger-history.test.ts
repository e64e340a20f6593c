/** The ledger is append-only: a change that rewrites or removes events is an error of `cairn diff`; appends and union merges are fine. */
import { afterEach, describe, expect, it } from "vitest";
import { diff as diffCommand } from "../../src/cli/commands/diff.js";
import type { Io } from "../../src/cli/output.js";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { diffKnowledge, renderDiffMarkdown } from "../../src/diff/index.js";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { layoutFor } from "../../src/store/layout.js";
import { entryText, tempRepo, type TempRepo } from "./repo.js";

const TODAY = "2026-03-01";
const LEDGER = "knowledge/.ledger/2026-02.jsonl";

/** Eight injections of ctx-cancel with fixed ids: its decay counter is 8/10 at BASE. */
const injections = Array.from({ length: 8 }, (_, i) => ({
  v: 1,
  eventId: `01HIST${String(i + 1).padStart(20, "0")}`,
  type: "injected",
  run: `base-${i + 1}`,
  agent: "security",
  entries: ["ctx-cancel"],
  time: `2026-02-0${i + 1}T10:00:00.000Z`,
}));
const lines = (events: readonly object[]) => events.map((e) => `${JSON.stringify(e)}\n`).join("");
const appended = { v: 1, eventId: "01HIST00000000000000000099", type: "injected", run: "pr-1", agent: "security", entries: ["ctx-cancel"], time: "2026-02-20T10:00:00.000Z" };

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function history(): Promise<TempRepo> {
  repo = await tempRepo();
  await repo.write("knowledge/ctx-cancel.md", entryText({ finding: "Auth middleware swallows context cancellation errors." }));
  await repo.write(LEDGER, lines(injections));
  repo.commit("base");
  return repo;
}

const diffNow = (r: TempRepo) => diffKnowledge(layoutFor(r.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });

describe("cairn diff and the append-only ledger", () => {
  it("events rewritten in place (same eventId, another entry) are errors at their lines, naming what changed", async () => {
    const r = await history();
    await r.write(LEDGER, lines(injections.map((e) => ({ ...e, entries: ["ctx-cancex"] }))));
    const d = await diffNow(r);
    expect(d.ledger).toEqual({});
    expect(d.problems).toHaveLength(8);
    expect(d.problems[0]).toMatchObject({ file: LEDGER, line: 1, rule: "ledger-event-rewritten", severity: "error" });
    expect(d.problems[0]!.message).toContain(`ledger event ${injections[0]!.eventId} (injected) was rewritten in place: entries ["ctx-cancel"] → ["ctx-cancex"]`);
    expect(d.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const md = renderDiffMarkdown(d);
    expect(md).not.toContain("No knowledge changes.");
    expect(md).toMatch(/### Problems \(8\)\n\n- ❌ `knowledge\/\.ledger\/2026-02\.jsonl:1` `ledger-event-rewritten` ledger event/);
  });

  it("removed events are one error per file (not a warning), with the count and the first removed event", async () => {
    const r = await history();
    await r.write(LEDGER, lines([...injections.slice(0, 5), appended]));
    const d = await diffNow(r);
    expect(d.ledger).toEqual({ injected: 1 });
    expect(d.warnings).toEqual([]);
    expect(d.problems).toEqual([
      expect.objectContaining({ file: LEDGER, rule: "ledger-event-removed", severity: "error", message: expect.stringContaining(`3 ledger events were removed from ${LEDGER}: ${injections[5]!.eventId} (injected, line 6 at BASE) and 2 more`) }),
    ]);
  });

  it("appended events, lines a union merge reordered, repeated identical lines and a reformatted line are fine", async () => {
    const r = await history();
    const reordered = [...injections].reverse();
    const reformatted = JSON.stringify(Object.fromEntries(Object.entries(injections[0]!).reverse()));
    await r.write(LEDGER, `${reformatted}\n${lines(reordered)}${lines([injections[3]!, appended])}`);
    const d = await diffNow(r);
    expect(d.problems).toEqual([]);
    expect(d.ledger).toEqual({ injected: 1 });
  });

  it("a second line reusing a BASE event's id with other content is a rewrite, even when the original line stays", async () => {
    const r = await history();
    await r.write(LEDGER, lines([...injections, { ...injections[2]!, entries: ["other"] }]));
    const d = await diffNow(r);
    expect(d.problems).toEqual([expect.objectContaining({ rule: "ledger-event-rewritten", line: 9 })]);
  });

  it("the command prints the summary and exits 1 on such an error (markdown and --json), 0 for an append", async () => {
    const r = await history();
    const kb = await openKnowledgeBase({ root: r.dir, now: () => new Date(`${TODAY}T00:00:00Z`) });
    const io = (): Io & { stdout: string[] } => {
      const stdout: string[] = [];
      return { stdout, out: (t) => stdout.push(t), err: () => {}, tty: false };
    };
    await r.write(LEDGER, lines([...injections, appended]));
    expect(await diffCommand(kb, io(), "HEAD", undefined, {})).toBe(0);
    await r.write(LEDGER, lines(injections.map((e) => ({ ...e, entries: ["ctx-cancex"] }))));
    const out = io();
    expect(await diffCommand(kb, out, "HEAD", undefined, {})).toBe(1);
    expect(out.stdout.join("")).toContain("ledger-event-rewritten");
    const json = io();
    expect(await diffCommand(kb, json, "HEAD", undefined, { json: true })).toBe(1);
    expect(JSON.parse(json.stdout.join("")).problems).toHaveLength(8);
  });
});
