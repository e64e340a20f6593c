// Creating an embedder (and reading its id and dims) must not import TF.js or transformers.js.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { REPO } from "../../helpers/cli.js";
import { testdir } from "../../helpers/fixture.js";

const HEAVY = ["@huggingface/transformers", "onnxruntime", "@energetic-ai", "@tensorflow"];

/** Run `code` (ESM, TypeScript imports allowed) in a fresh node; returns every module URL it resolved. */
async function traceImports(code: string): Promise<string[]> {
  const log = path.join(await testdir(), "imports.log");
  await promisify(execFile)(process.execPath, ["--import", "tsx", "--import", path.join(REPO, "test/helpers/trace-imports.mjs"), "--input-type=module", "-e", code], {
    cwd: REPO,
    env: { ...process.env, CAIRN_TRACE_IMPORTS: log },
  });
  return (await readFile(log, "utf8")).split("\n").filter(Boolean);
}

describe("embedders load lazily", () => {
  test("createEmbedder for every provider imports no model runtime; the first embed does", async () => {
    const index = pathToFileURL(path.join(REPO, "src/indexing/embedders/index.ts")).href;
    const fixture = path.join(REPO, "test/fixtures/tiny-bert");
    const modules = await traceImports(`
      const { createEmbedder } = await import(${JSON.stringify(index)});
      const made = [
        createEmbedder({ provider: "use-lite" }),
        createEmbedder({ provider: "transformers", model: "tiny", path: ${JSON.stringify(fixture)} }),
        createEmbedder({ provider: "none" }),
      ];
      for (const e of made) if (e) void [e.id, e.dims];
      await import("node:fs").then((fs) => fs.appendFileSync(process.env.CAIRN_TRACE_IMPORTS, "--- embed ---\\n"));
      await made[1].embed(["hello"]);
    `);
    const marker = modules.indexOf("--- embed ---");
    expect(marker).toBeGreaterThan(0);
    const before = modules.slice(0, marker);
    const after = modules.slice(marker + 1);
    expect(before.some((m) => m.includes("/src/indexing/embedders/use-lite.ts"))).toBe(true);
    for (const heavy of HEAVY) expect(before.filter((m) => m.includes(heavy))).toEqual([]);
    expect(after.some((m) => m.includes("@huggingface/transformers"))).toBe(true); // the trace does see lazy imports
  });
});
