/**
 * A knowledge directory reached through a link inside the repository: git reports the files under the real directory,
 * the layout (and every diagnostic) names them by the link. The diff maps one to the other.
 */
import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { diffKnowledge, renderDiffMarkdown } from "../../src/diff/index.js";
import { layoutFor } from "../../src/store/layout.js";
import { entryText, ledgerLine, tempRepo, type TempRepo } from "./repo.js";

const TODAY = "2026-03-01";

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** `real` holds the entries; `link` (a symbolic link to it) is what the layout names. */
async function linked(real: string, link: string): Promise<TempRepo> {
  repo = await tempRepo();
  await repo.write(`${real}/kept.md`, entryText({ finding: "An entry the pull request archives." }));
  await repo.write(`${real}/edited.md`, entryText({ finding: "Old finding about retries." }));
  await repo.write(`${real}/.ledger/2026-02.jsonl`, ledgerLine({ type: "injected", run: "r0", agent: "sec", entries: ["edited"], time: "2026-02-01T10:00:00.000Z" }));
  await symlink(path.relative(path.dirname(path.join(repo.dir, link)), path.join(repo.dir, real)), path.join(repo.dir, link));
  repo.commit("base");
  await repo.write(`${real}/leak.md`, entryText({ finding: "A new entry added under the real directory." }));
  await repo.write(`${real}/edited.md`, entryText({ finding: "New finding about retries." }));
  await repo.remove(`${real}/kept.md`);
  await repo.write(`${real}/archive/kept.md`, entryText({ finding: "An entry the pull request archives.", extra: "archived: 2026-02-10\narchivedReason: decayed\n" }));
  await repo.write(`${real}/.ledger/2026-02.jsonl`, "");
  await repo.write(`${real}/.ledger/2026-03.jsonl`, ledgerLine({ type: "injected", run: "r1", agent: "sec", entries: ["leak"], time: "2026-02-20T10:00:00.000Z" }));
  repo.commit("a pull request");
  return repo;
}

describe("cairn diff with a knowledge directory reached through a link", () => {
  it.each([
    ["knowledgeDir: kb, kb -> knowledge", "knowledge", "kb"],
    ["no config, knowledge -> docs/kb", "docs/kb", "knowledge"],
  ])("%s: entries, the archive and the ledger are reported under the layout's paths", async (_name, real, shown) => {
    const r = await linked(real, shown);
    const config = { ...DEFAULT_CONFIG, knowledgeDir: shown };
    const d = await diffKnowledge(layoutFor(r.dir, config), config, "HEAD~1", "HEAD", { today: TODAY });
    expect(d.added.map((e) => [e.id, e.path])).toEqual([["leak", `${shown}/leak.md`]]);
    expect(d.edited.map((e) => [e.id, e.path, e.sections])).toEqual([["edited", `${shown}/edited.md`, ["finding"]]]);
    expect(d.archived.map((e) => [e.id, e.path, e.previousPath])).toEqual([["kept", `${shown}/archive/kept.md`, `${shown}/kept.md`]]);
    expect(d.ledger).toEqual({ injected: 1 });
    expect(d.problems).toEqual([expect.objectContaining({ file: `${shown}/.ledger/2026-02.jsonl`, rule: "ledger-event-removed" })]);
    expect(renderDiffMarkdown(d)).not.toContain("No knowledge changes");
  });
});
