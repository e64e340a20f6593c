import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLineIndex, lineColumnAt, sanitizeText } from "../../../src/check/sanitize/index.js";

describe("lineColumnAt", () => {
  it.each([
    ["start", "abc", 0, 1, 1],
    ["middle of first line", "abc\ndef", 2, 1, 3],
    ["after LF", "abc\ndef", 4, 2, 1],
    ["after CRLF", "abc\r\ndef", 5, 2, 1],
    ["on the CR of CRLF (end of line 1)", "abc\r\ndef", 3, 1, 4],
    ["on the LF of CRLF (still line 1)", "abc\r\ndef", 4, 1, 5],
    ["lone CR ends a line", "abc\rdef", 4, 2, 1],
    ["blank lines", "a\n\n\nb", 4, 4, 1],
    ["mixed endings", "a\r\nb\nc\rd", 7, 4, 1],
    ["BOM is not a column", "\uFEFFabc", 1, 1, 1],
    ["BOM on the first line only", "\uFEFFa\nbc", 4, 2, 2],
    ["offset past the end is clamped", "ab", 99, 1, 3],
    ["negative offset is clamped", "ab", -5, 1, 1],
    ["astral characters count as two UTF-16 units", "😀x", 2, 1, 3],
  ])("%s", (_name, text, offset, line, column) => {
    expect(lineColumnAt(text, offset)).toEqual({ line, column });
  });

  it("shifts lines by startLine for a piece of a file", () => {
    const at = createLineIndex("x\ny", 10);
    expect(at(2)).toEqual({ line: 11, column: 1 });
  });
});

describe("diagnostic positions in real files", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "cairn-sanitize-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const lines = [
    "---",
    "lastConfirmed: 2026-02-12",
    "provenance: independent",
    "---",
    "Clients in src/net/client.ts call 10.20.30.40 directly.",
    "",
    "Evidence: src/net/client.ts:12, connect() — see /home/alice/notes.txt.",
    "Verify: grep for password=hunter2 in config/*.yml.",
  ];
  const expected = [
    { line: 5, column: 35, rule: "ip-address" },
    { line: 7, column: 49, rule: "absolute-path" },
    { line: 8, column: 18, rule: "secret-assignment" },
  ];

  it.each([
    ["LF", "\n", ""],
    ["CRLF", "\r\n", ""],
    ["CR", "\r", ""],
    ["BOM + CRLF", "\r\n", "\uFEFF"],
    ["BOM + LF", "\n", "\uFEFF"],
  ])("%s: same lines and columns", async (_name, eol, bom) => {
    const file = path.join(dir, "entry.md");
    await writeFile(file, bom + lines.join(eol) + eol, "utf8");
    const text = await readFile(file, "utf8");
    expect(text.startsWith("\uFEFF")).toBe(bom !== "");
    const diagnostics = sanitizeText(text, "knowledge/entry.md");
    expect(diagnostics.map(({ line, column, rule }) => ({ line, column, rule }))).toEqual(expected);
    expect(diagnostics.every((d) => d.file === "knowledge/entry.md")).toBe(true);
  });

  it("a BOM does not shift a match at the very start of the file", () => {
    expect(sanitizeText("\uFEFF10.1.2.3 is internal", "x.md")[0]).toMatchObject({ line: 1, column: 1 });
  });

  it("startLine offsets the reported line for a snippet", () => {
    const [d] = sanitizeText("ok\nuse 10.1.2.3", "<finding>", undefined, 7);
    expect(d).toMatchObject({ file: "<finding>", line: 8, column: 5 });
  });
});
