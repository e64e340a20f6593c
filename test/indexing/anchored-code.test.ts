/**
 * The anchored-code lexical field (issue 10 phase 2): each entry is also indexed by the code its
 * anchors point at, resolved as `check` resolves anchors, bounded, refreshed when the code changes,
 * never read from outside the repository, and never read again by a search that finds it unchanged.
 */
import { mkdir, rm, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/index.js";
import { entryText, testdir } from "../helpers/fixture.js";

/** A handler whose body holds words no entry uses. */
const handler = (body: string, above = 0) =>
  [...Array.from({ length: above }, (_, i) => `export const padding${i} = ${i};`), "export function handleRequest(req) {", `  const ctx = req.context;`, `  ${body}`, "  return ctx;", "}", ""].join("\n");

const entry = (evidence = "src/auth.ts:1-5, handleRequest() — the context is not checked after the upstream call.") =>
  entryText({ finding: "Handlers often skip the context check after an upstream call.", evidence, verify: "Re-read the handler." });

const ids = async (kb: Awaited<ReturnType<typeof openKnowledgeBase>>, query: string) => (await kb.search(query)).results.map((r) => r.id);

async function kbAt(files: Record<string, string>) {
  const root = await testdir(files);
  return { root, kb: await openKnowledgeBase({ root, embedder: null, refreshIntervalMs: 0 }) };
}

describe("the anchored-code field", () => {
  it("finds an entry by the code its anchor points at: pasting the anchored line finds it", async () => {
    const { kb } = await kbAt({
      "src/auth.ts": handler("if (upstream.quarkleFlag && !ctx.zibbleDone) retryAll();"),
      "knowledge/ctx.md": entry(),
      "knowledge/other.md": entryText({ finding: "Caches need explicit expiry for stale keys.", evidence: "src/cache.ts:1 — no expiry." }),
      "src/cache.ts": "export const cache = new Map();\n",
    });
    expect(await ids(kb, "if (upstream.quarkleFlag && !ctx.zibbleDone) retryAll();")).toEqual(["ctx"]);
    // A ranking field only: nothing of it reaches what an agent is given.
    const injected = await kb.inject({ run: "r1", agent: "correctness", summary: "quarkleFlag zibbleDone handling", dryRun: true });
    expect(injected.markdown).not.toContain("quarkleFlag &&");
  });

  it("follows the code: editing the anchored function's body changes what finds the entry after a refresh", async () => {
    const { root, kb } = await kbAt({ "src/auth.ts": handler("legacyWobbleCheck(ctx);"), "knowledge/ctx.md": entry() });
    expect(await ids(kb, "legacyWobbleCheck")).toEqual(["ctx"]);
    await writeFile(path.join(root, "src/auth.ts"), handler("freshGrommetGuard(ctx);"));
    expect(await ids(kb, "freshGrommetGuard")).toEqual(["ctx"]);
    expect(await ids(kb, "legacyWobbleCheck")).toEqual([]);
    // Another process sees the same (what was saved matches the files).
    const other = await openKnowledgeBase({ root, embedder: null });
    expect(await ids(other, "freshGrommetGuard")).toEqual(["ctx"]);
  });

  it("a symbol anchor whose lines drifted still indexes its definition, and hunks are compared with where it is now", async () => {
    // The entry cites lines 1-5; 40 lines were inserted above the function since.
    const { kb } = await kbAt({ "src/auth.ts": handler("driftedSprocketCall(ctx);", 40), "knowledge/ctx.md": entry() });
    expect(await ids(kb, "driftedSprocketCall")).toEqual(["ctx"]);
    const response = await kb.search("unrelated words", { floor: false, changedFiles: ["src/auth.ts"], changedHunks: [{ path: "src/auth.ts", ranges: [{ start: 43, end: 43 }], headings: [], code: [] }] });
    expect(response.results.find((r) => r.id === "ctx")?.explain.changedFiles?.touch).toBe("hunk");
  });

  it("indexes nothing through an anchor that leaves the repository by a symbolic link", async () => {
    const outside = await testdir({ "secret.ts": handler("outsideTokenPlover(ctx);") });
    const { root, kb } = await kbAt({ "knowledge/ctx.md": entry("src/auth.ts:1-5, handleRequest() — linked.") });
    await mkdir(path.join(root, "src"), { recursive: true });
    await symlink(path.join(outside, "secret.ts"), path.join(root, "src/auth.ts"));
    expect(await ids(kb, "outsideTokenPlover")).toEqual([]);
    // Nor through a linked directory.
    await rm(path.join(root, "src"), { recursive: true });
    await symlink(outside, path.join(root, "src"));
    await writeFile(path.join(outside, "auth.ts"), handler("outsideTokenPlover(ctx);"));
    expect(await ids(kb, "outsideTokenPlover")).toEqual([]);
  });

  it("is bounded on huge and hostile files", async () => {
    const long = ["export function handleRequest(req) {", "  earlyQuokka(req);", ...Array.from({ length: 5_000 }, (_, i) => `  step${i}(req);`), "  lateNarwhal(req);", "}"].join("\n");
    const { root, kb } = await kbAt({
      "src/auth.ts": long,
      "src/huge.ts": `export function handleRequest(req) { hugeWalrus(req); }\n${"// filler line of a generated file\n".repeat(60_000)}`,
      "src/hostile.ts": `${" ".repeat(500_000)}\nexport function handleRequest(req) { hostileOcelot(req); }\n`,
      "knowledge/ctx.md": entry(),
      "knowledge/huge.md": entry("src/huge.ts:1, handleRequest() — generated."),
      "knowledge/hostile.md": entry("src/hostile.ts:2, handleRequest() — odd file."),
    });
    const t0 = performance.now();
    await kb.index();
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(await ids(kb, "earlyQuokka")).toEqual(["ctx"]);
    expect(await ids(kb, "lateNarwhal")).toEqual([]); // past the 60 lines kept per anchor
    expect(await ids(kb, "hugeWalrus")).toEqual([]); // over 1 MB: not read
    expect(await ids(kb, "hostileOcelot")).toEqual(["hostile"]);
    expect(root).toBeTruthy();
  });

  it("a search that finds the anchored files unchanged does not read them again", async () => {
    const { root } = await kbAt({ "src/auth.ts": handler("alphaPelicanWidget(ctx);"), "knowledge/ctx.md": entry() });
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(root, "src/auth.ts"), hourAgo, hourAgo);
    await (await openKnowledgeBase({ root, embedder: null })).index();
    // Same size, same mtime, new text: only a read would see it.
    await writeFile(path.join(root, "src/auth.ts"), handler("omegaGiraffeButton(ctx);"));
    await utimes(path.join(root, "src/auth.ts"), hourAgo, hourAgo);
    const cold = await openKnowledgeBase({ root, embedder: null });
    expect(await ids(cold, "alphaPelicanWidget")).toEqual(["ctx"]);
    expect(await ids(cold, "omegaGiraffeButton")).toEqual([]);
  });

  it("a catalogue-only refresh (status) leaves the code to the next search, which builds it", async () => {
    const { root, kb } = await kbAt({ "src/auth.ts": handler("statusFirstToken(ctx);"), "knowledge/ctx.md": entry() });
    await kb.index();
    await writeFile(path.join(root, "knowledge/new.md"), entry("src/auth.ts:1-5, handleRequest() — a second entry."));
    const cold = await openKnowledgeBase({ root, embedder: null });
    await cold.status();
    expect(await ids(cold, "statusFirstToken")).toEqual(["ctx", "new"]);
  });
});
