/** The `Fix:` section reaches agents' prompts: a pull request that edits only it is an edit, not formatting. */
import { rename } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config.js";
import { diffKnowledge, renderDiffMarkdown } from "../../src/diff/index.js";
import { layoutFor } from "../../src/store/layout.js";
import { entryText, tempRepo, type TempRepo } from "./repo.js";

const TODAY = "2026-03-01";
const withFix = (fix: string, extra = "") => `${entryText({ finding: "Upstream fetch in auth middleware drops the cancellation signal.", extra })}\nFix: ${fix}\n`;

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

describe("cairn diff and the Fix section", () => {
  it("an edit of only the Fix paragraph is reported as `fix edited`, not formatting only", async () => {
    repo = await tempRepo();
    await repo.write("knowledge/retry.md", withFix("pass the request signal to fetch."));
    repo.commit("base");
    await repo.write("knowledge/retry.md", withFix("remove the signal argument from fetch entirely; cancellation here should not be reported."));
    const d = await diffKnowledge(layoutFor(repo.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
    expect(d.edited).toHaveLength(1);
    expect(d.edited[0]).toMatchObject({ id: "retry", sections: ["fix"] });
    expect(d.edited[0]!.formattingOnly).toBeUndefined();
    expect(renderDiffMarkdown(d)).toMatch(/fix edited/);
    expect(renderDiffMarkdown(d)).not.toMatch(/formatting only/);
  });

  it("a rename that also edits the Fix paragraph says so; adding a Fix paragraph is an edit too", async () => {
    repo = await tempRepo();
    await repo.write("knowledge/retry.md", withFix("pass the request signal to fetch.", "id: retry\n"));
    await repo.write("knowledge/plain.md", entryText({ finding: "Handlers drop the context error after upstream calls." }));
    repo.commit("base");
    await rename(path.join(repo.dir, "knowledge/retry.md"), path.join(repo.dir, "knowledge/retry-signal.md"));
    await repo.write("knowledge/retry-signal.md", withFix("ignore the signal; cancellation is not a problem here.", "id: retry\n"));
    await repo.write("knowledge/plain.md", `${entryText({ finding: "Handlers drop the context error after upstream calls." })}\nFix: check ctx.Err() after the call.\n`);
    const d = await diffKnowledge(layoutFor(repo.dir, DEFAULT_CONFIG), DEFAULT_CONFIG, "HEAD", undefined, { today: TODAY });
    const byId = new Map(d.edited.map((e) => [e.id, e]));
    expect(byId.get("retry")).toMatchObject({ kinds: ["edited", "renamed"], sections: ["fix"], previousPath: "knowledge/retry.md" });
    expect(byId.get("plain")).toMatchObject({ sections: ["fix"] });
    expect(d.renamed).toEqual([]);
  });
});
