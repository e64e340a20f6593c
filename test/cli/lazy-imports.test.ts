import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cairn, REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const HEAVY = ["hnswlib-node", "@huggingface/transformers", "onnxruntime", "@energetic-ai", "@tensorflow", "chokidar", "chart.js", "/dist/report/", "vscode-languageserver", "vscode-jsonrpc"];

/** The source modules each chunk of the bundle holds (scripts/bundle.mjs writes esbuild's metafile beside them). */
async function chunkInputs(): Promise<Map<string, string[]>> {
  const meta = JSON.parse(await readFile(path.join(REPO, "dist/bin/meta.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return new Map(Object.entries(meta.outputs).map(([file, output]) => [pathToFileURL(path.join(REPO, file)).href, Object.keys(output.inputs).map((input) => path.join(REPO, input))]));
}

/** Every module the command loaded: files loaded from disk as they are, a bundle chunk as the source modules it holds. */
async function trace(args: string[], input?: string): Promise<{ code: number; modules: string[] }> {
  const dir = await testdir();
  const log = path.join(dir, "imports.log");
  const result = await cairn(args, {
    ...(input !== undefined ? { input } : {}),
    env: { CAIRN_TRACE_IMPORTS: log },
    nodeArgs: ["--import", path.join(REPO, "test/helpers/trace-imports.mjs")],
  });
  const loaded = (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
  // The shipped executable is the bundle: the trace must have gone through its chunks, or it proves nothing about it.
  expect(loaded.filter((url) => url.includes("/dist/bin/")).length).toBeGreaterThan(1);
  const chunks = await chunkInputs();
  return { code: result.code, modules: loaded.flatMap((url) => chunks.get(url) ?? [url]) };
}

describe("heavy modules are loaded lazily", () => {
  it.each([["check"], ["status"]])("`cairn %s` loads none of transformers.js, hnswlib-node, USE/tfjs, chokidar, the report, the language server", async (command) => {
    const { code, modules } = await trace([command]);
    expect(code).toBe(0);
    expect(modules.length).toBeGreaterThan(10); // the trace really recorded the CLI's imports
    expect(modules.some((m) => m.includes("/dist/cli/commands/"))).toBe(true);
    for (const heavy of HEAVY) expect(modules.filter((m) => m.includes(heavy))).toEqual([]);
  });

  it("`cairn status` carries none of zod's translations but English (they were 366 KB of every command's start-up)", async () => {
    const { code, modules } = await trace(["status"]);
    expect(code).toBe(0);
    expect(modules.some((m) => m.includes("/node_modules/zod/"))).toBe(true);
    expect(modules.filter((m) => m.includes("/node_modules/zod/v4/locales/") && !m.endsWith("/en.js"))).toEqual([]);
  });

  it("with the index fresh, `status`, `index` and `search --json` load no YAML parser and no surgical editor: they parse no entry", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/a.md": entryText(), "knowledge/b.md": entryText({ finding: "Retries never back off; add jitter." }) });
    expect((await cairn(["--root", root, "index"])).code).toBe(0);
    expect((await cairn(["--root", root, "status"])).code).toBe(0); // the lint cache
    for (const args of [["status"], ["index"], ["search", "retries", "--json"]]) {
      const { code, modules } = await trace(["--root", root, ...args]);
      expect(code).toBe(0);
      expect(modules.some((m) => m.includes("/dist/knowledge-base.js"))).toBe(true);
      for (const parser of ["/node_modules/yaml/", "/dist/entry/parse.js", "/dist/entry/edit.js", "/dist/store/mutate.js"]) expect(modules.filter((m) => m.includes(parser))).toEqual([]);
    }
    // The parser is still there when a command needs it: a changed entry is parsed.
    await writeFile(path.join(root, "knowledge/b.md"), entryText({ finding: "Retries never back off; add jitter and a cap." }));
    const { modules } = await trace(["--root", root, "status"]);
    expect(modules.some((m) => m.includes("/node_modules/yaml/"))).toBe(true);
  });

  it("`cairn report --json` builds the model without the page, the chart library or the search index", async () => {
    const { code, modules } = await trace(["report", "--json"]);
    expect(code).toBe(0);
    expect(modules.some((m) => m.endsWith("/dist/report/model.js"))).toBe(true);
    for (const page of ["/dist/report/assets.js", "/dist/report/html.js", "chart.js", "hnswlib-node", "@energetic-ai"]) expect(modules.filter((m) => m.includes(page))).toEqual([]);
  });

  it("`cairn lsp` loads the language server library (so the trace above would see it) and still none of the search stack", async () => {
    // stdin closes at once: the server starts, then ends as the protocol asks when its input is gone.
    const { modules } = await trace(["lsp", "--stdio"], "");
    expect(modules.some((m) => m.includes("/dist/lsp/server.js"))).toBe(true);
    expect(modules.some((m) => m.includes("vscode-languageserver"))).toBe(true);
    for (const heavy of HEAVY.filter((h) => !h.startsWith("vscode-"))) expect(modules.filter((m) => m.includes(heavy))).toEqual([]);
  });
});
