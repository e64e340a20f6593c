import { describe, expect, it } from "vitest";
import { parseBatch, parseRaw } from "../../src/diff/git.js";
import { classify } from "../../src/diff/versions.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

describe("parseRaw", () => {
  it("reads NUL-separated records, with two paths for renames and unusual characters kept verbatim", () => {
    const text = [`:100644 100644 ${A} ${B} M`, "knowledge/é x.md", `:100644 100644 ${A} ${A} R100`, "knowledge/a.md", "knowledge/archive/a.md", `:000000 100644 ${Z} ${B} A`, "knowledge/new\nline.md", ""].join("\0");
    expect(parseRaw(text)).toEqual([
      { status: "M", oldMode: "100644", newMode: "100644", oldOid: A, newOid: B, oldPath: "knowledge/é x.md", path: "knowledge/é x.md" },
      { status: "R", oldMode: "100644", newMode: "100644", oldOid: A, newOid: A, oldPath: "knowledge/a.md", path: "knowledge/archive/a.md" },
      { status: "A", oldMode: "000000", newMode: "100644", oldOid: Z, newOid: B, oldPath: "knowledge/new\nline.md", path: "knowledge/new\nline.md" },
    ]);
    expect(parseRaw("")).toEqual([]);
  });
});

describe("parseBatch", () => {
  it("splits cat-file --batch output by the sizes in the headers, skipping missing objects", () => {
    const out = Buffer.concat([Buffer.from(`${A} blob 5\nab\ncd\n`), Buffer.from(`${Z} missing\n`), Buffer.from(`${B} blob 0\n\n`)]);
    const blobs = parseBatch(out, [A, Z, B]);
    expect(blobs.get(A)?.toString()).toBe("ab\ncd");
    expect(blobs.has(Z)).toBe(false);
    expect(blobs.get(B)?.length).toBe(0);
  });

  it("fails on truncated output instead of returning wrong contents", () => {
    expect(() => parseBatch(Buffer.from(`${A} blob 5\nab`), [A, B])).toThrow(/output ends before the record/);
  });
});

describe("classify", () => {
  it("knows entries, archived entries and ledger files, like listEntryFiles", () => {
    expect(classify("knowledge/a.md", "knowledge")).toEqual({ kind: "entry", state: "active" });
    expect(classify("knowledge/archive/a.md", "knowledge")).toEqual({ kind: "entry", state: "archived" });
    expect(classify("knowledge/.ledger/2026-02.jsonl", "knowledge")).toEqual({ kind: "ledger" });
    for (const other of ["knowledge/README.md", "knowledge/.hidden.md", "knowledge/notes/a.md", "knowledge/archive/deep/a.md", "knowledge/a.txt", "knowledgebase/a.md", "other/a.md"]) {
      expect(classify(other, "knowledge")).toBeUndefined();
    }
    expect(classify("a.md", "")).toEqual({ kind: "entry", state: "active" });
    expect(classify("sub/kb/archive/a.md", "sub/kb")).toEqual({ kind: "entry", state: "archived" });
  });
});
