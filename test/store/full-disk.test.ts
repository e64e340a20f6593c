/**
 * A disk that takes no more bytes. The fault is real: the child runs with a file size limit of 0 (`ulimit -f 0`, with
 * SIGXFSZ ignored), so every write of a byte fails with EFBIG, as it fails with ENOSPC on a full disk: files can be
 * created, nothing can be written into them.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

function cairnOnFullDisk(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve) => {
    execFile("bash", ["-c", `trap '' XFSZ; ulimit -f 0; exec ${quoted}`], { cwd, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(process.platform === "win32")("a disk that takes no more bytes", () => {
  it("reads still answer (the index is a cache, refreshed in memory and said not saved); nothing is left behind in .cairn/", async () => {
    const dir = await testdir({ ...SOURCE_FILES, "knowledge/retry-swallow.md": entryText({ finding: "Retry helpers swallow the final error." }) });
    const search = await cairnOnFullDisk(["search", "retry"], dir);
    expect(search.stderr).toMatch(/cannot lock the search index \(.*index\.lock\): EFBIG: file too large, write: the index was refreshed in memory and not saved/);
    expect(search).toMatchObject({ code: 0, stdout: expect.stringContaining("retry-swallow") });
    const status = await cairnOnFullDisk(["status"], dir);
    expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^retry-swallow\s+active/m) });
    expect((await cairnOnFullDisk(["show", "retry-swallow"], dir)).code).toBe(0);
    expect((await cairnOnFullDisk(["check"], dir)).code).toBe(0);
    // A failed write of a lock removed its temp file: a full disk is not also littered with empty files.
    expect((await readdir(path.join(dir, ".cairn"))).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    // Injecting must record what it injects: with no room in the ledger, nothing is injected (and the review goes on).
    const inject = await cairnOnFullDisk(["inject", "--run", "r1", "--agent", "sec", "--keywords", "retry"], dir);
    expect(inject.code).toBe(0);
    expect(inject.stderr).toMatch(/continuing without knowledge context/);
    expect(inject.stdout).not.toContain("Retry helpers swallow");
    // `cairn index` exists to write the index: it still fails, saying why.
    const index = await cairnOnFullDisk(["index"], dir);
    expect(index.code).toBe(3);
    expect(index.stderr).toMatch(/^cairn: cannot lock the search index .*EFBIG/m);
  });
});
