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
});
