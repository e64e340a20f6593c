import { mkdir, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertContained, assertContainedSync, findEscape, findEscapeSync } from "../../src/store/contain.js";
import { testdir } from "../helpers/fixture.js";

describe("containment", () => {
  it("allows plain paths, missing paths and links that stay inside the root", async () => {
    const root = await testdir({ "knowledge/a.md": "x", "src/real.ts": "y" });
    await symlink(path.join(root, "src/real.ts"), path.join(root, "knowledge/inside.md"));
    for (const target of ["knowledge/a.md", "knowledge/.ledger/2026-11.jsonl", "knowledge/inside.md", "."]) {
      expect(await findEscape(root, target)).toBeUndefined();
      expect(findEscapeSync(root, target)).toBeUndefined();
    }
  });

  it("names the link and its target when a file, a directory or a dangling link leaves the root", async () => {
    const outside = await testdir({ "bashrc": "# user's file" });
    const root = await testdir({ "knowledge/.ledger/.gitkeep": "" });
    await symlink(path.join(outside, "bashrc"), path.join(root, "knowledge/.ledger/2026-11.jsonl"));
    await symlink(outside, path.join(root, ".cairn"));
    await symlink(path.join(os.tmpdir(), "does-not-exist-cairn"), path.join(root, ".gitignore"));
    const ledger = await findEscape(root, "knowledge/.ledger/2026-11.jsonl");
    expect(ledger).toEqual({ link: path.join(root, "knowledge/.ledger/2026-11.jsonl"), target: path.join(outside, "bashrc") });
    expect(findEscapeSync(root, ".cairn/gen-1/lexical.json")?.link).toBe(path.join(root, ".cairn"));
    expect((await findEscape(root, ".gitignore"))?.target).toBe(path.join(os.tmpdir(), "does-not-exist-cairn"));
    await expect(assertContained(root, "knowledge/.ledger/2026-11.jsonl", "append to the ledger")).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      message: expect.stringContaining(`knowledge/.ledger/2026-11.jsonl is a symbolic link to ${path.join(outside, "bashrc")}`),
    });
    expect(() => assertContainedSync(root, ".cairn/manifest.json", "write the index")).toThrow(/\.cairn is a symbolic link/);
  });

  it("refuses paths that are lexically outside the root", async () => {
    const root = await testdir();
    await mkdir(path.join(root, "a"));
    await writeFile(path.join(root, "a/b"), "");
    expect((await findEscape(root, "../x"))?.link).toBe(path.resolve(root, "../x"));
    expect(findEscapeSync(root, "/etc/passwd")).toEqual({ link: "/etc/passwd", target: "/etc/passwd" });
  });
});
