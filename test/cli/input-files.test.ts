/** File arguments (`--findings`, `--from`, `--summary-file`): a BOM is accepted; a missing file or a directory is a usage error in words. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

const BOM = "\uFEFF";

async function project(): Promise<string> {
  const dir = await testdir({ ...SOURCE_FILES, "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), "knowledge/auth.md": entryText() });
  expect((await cairn(["init"], { cwd: dir })).code).toBe(0);
  return dir;
}

describe("file arguments", () => {
  it("a findings file starting with a UTF-8 BOM is read by record and compound, as config and new --from are", async () => {
    const dir = await project();
    await writeFile(path.join(dir, "findings.json"), `${BOM}${JSON.stringify({ findings: [{ agent: "security", text: "Auth middleware swallows context cancellation errors." }] })}\n`);
    const record = await cairn(["record", "--run", "r1", "--findings", "findings.json", "--dry-run"], { cwd: dir });
    expect(record.stderr).not.toMatch(/not valid JSON/);
    expect(record.code).toBe(0);
    await writeFile(path.join(dir, "synth.json"), `${BOM}${JSON.stringify({ findings: [{ text: "Retries double charge customers.", agents: ["a", "b"], evidence: ["src/auth.ts:1"], verify: ["grep for retry in src/"], durable: true }] })}\n`);
    const compound = await cairn(["compound", "--run", "r1", "--findings", "synth.json", "--dry-run"], { cwd: dir });
    expect(compound.stderr).not.toMatch(/not valid JSON/);
    expect(compound.code).toBe(0);
  });

  it("a missing file or a directory is a usage error naming the path and what was expected, not a Node error", async () => {
    const dir = await project();
    await mkdir(path.join(dir, "adir"));
    const cases: [string[], string][] = [
      [["record", "--run", "r1", "--findings", "X"], "cannot read findings: "],
      [["compound", "--run", "r1", "--findings", "X"], "cannot read synthesized findings: "],
      [["new", "e1", "--from", "X"], "cannot read --from: "],
      [["inject", "--run", "r1", "--agent", "a", "--summary-file", "X"], "cannot read --summary-file: "],
      [["inject", "--run", "r1", "--agent", "a", "--diff", "X"], "cannot read --diff: "],
    ];
    for (const [args, prefix] of cases) {
      for (const [name, problem] of [["nope.json", ": no such file; expected "], ["adir", " is a directory; expected "]] as const) {
        const r = await cairn(args.map((a) => (a === "X" ? name : a)), { cwd: dir });
        const label = `${args[0]} ${name}`;
        expect(r.code, label).toBe(2);
        expect(r.stderr, label).toContain(`cairn: ${prefix}${name} (${path.join(dir, name)})${problem}`);
        expect(r.stderr, label).not.toMatch(/ENOENT|EISDIR|unexpected error|\n\s+at /);
      }
    }
  });

  it("bytes that are not UTF-8 are refused with the file, line and column, from a file or stdin; a diff's are read as they come", async () => {
    const dir = await project();
    // Latin-1 "é" (0xe9) on line 2: before, it became U+FFFD in the finding's text without a word.
    const latin1 = Buffer.concat([Buffer.from('{"findings": [\n  {"agent": "security", "text": "Auth middleware caf'), Buffer.from([0xe9]), Buffer.from(' swallows errors."}]}\n')]);
    await writeFile(path.join(dir, "latin1.json"), latin1);
    for (const [args, input] of [
      [["record", "--run", "r1", "--findings", "latin1.json", "--dry-run"], undefined],
      [["record", "--run", "r1", "--findings", "-", "--dry-run"], latin1],
    ] as const) {
      const r = await cairn([...args], { cwd: dir, ...(input ? { input } : {}) });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^cairn: cannot read findings: (latin1\.json|stdin):2:53: byte 0xe9 is not UTF-8; expected UTF-8 text/);
    }
    const diff = Buffer.concat([Buffer.from("--- a/src/auth.ts\n+++ b/src/auth.ts\n@@ -1,2 +1,2 @@\n-export function handleRequest() {\n+export function handleRequest() { // caf"), Buffer.from([0xe9]), Buffer.from("\n   return fetch('x');\n")]);
    await writeFile(path.join(dir, "latin1.diff"), diff);
    const inject = await cairn(["inject", "--run", "r1", "--agent", "a", "--diff", "latin1.diff", "--dry-run"], { cwd: dir });
    expect(inject.code, inject.stderr).toBe(0);
  });
});
