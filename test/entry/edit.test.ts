import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type EditResult, type FrontmatterEdit, editFrontmatter } from "../../src/entry/edit.js";

/** Apply edits and return the new text, failing the test on a refusal. */
function edited(text: string, edits: FrontmatterEdit[]): string {
  const result = editFrontmatter(text, edits);
  if (!result.ok) throw new Error(`unexpected refusal: ${result.reason}`);
  return result.text;
}

function refusal(result: EditResult): string {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.text)}`);
  return result.reason;
}

/** The YAML between the `---` markers, parsed. */
function frontmatterOf(text: string): unknown {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)^(?:---|\.\.\.)[ \t]*\r?$/m.exec(text);
  if (match === null) throw new Error("no frontmatter");
  return parse(match[1]!) ?? {};
}

/** Lines (with terminators) of `after` that are not in `before` at the same position, as a list of pairs. */
function changedLines(before: string, after: string): Array<[string | undefined, string | undefined]> {
  const a = before.split(/(?<=\n)/);
  const b = after.split(/(?<=\n)/);
  const out: Array<[string | undefined, string | undefined]> = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) out.push([a[i], b[i]]);
  return out;
}

const ENTRY = `---
# Finding about auth middleware
id: auth-ctx-cancel
lastConfirmed: 2026-01-02
provenance: primed
tags: [go, auth]
---
Auth middleware often swallows context cancellation errors.

Evidence: middleware/auth.go:47-52, handleRequest()
Verify: grep for ctx.Err() after http.Do() calls.
`;

describe("editFrontmatter: confirm-style edits", () => {
  it("changes exactly the two owned lines and nothing else", () => {
    const text = edited(ENTRY, [
      { op: "set", key: "lastConfirmed", value: "2026-02-12" },
      { op: "set", key: "provenance", value: "independent" },
    ]);
    expect(changedLines(ENTRY, text)).toEqual([
      ["lastConfirmed: 2026-01-02\n", "lastConfirmed: 2026-02-12\n"],
      ["provenance: primed\n", "provenance: independent\n"],
    ]);
    expect(frontmatterOf(text)).toEqual({
      id: "auth-ctx-cancel",
      lastConfirmed: "2026-02-12",
      provenance: "independent",
      tags: ["go", "auth"],
    });
  });

  it("reports changed: false and returns the same text when the value is already set", () => {
    const result = editFrontmatter(ENTRY, [{ op: "set", key: "provenance", value: "primed" }]);
    expect(result).toEqual({ ok: true, text: ENTRY, changed: false });
  });

  it("leaves an equal value alone even when it is formatted differently", () => {
    const text = "---\nprovenance: 'independent'\ntags:\n  - go\n  - auth\n---\nbody\n";
    const result = editFrontmatter(text, [
      { op: "set", key: "provenance", value: "independent" },
      { op: "set", key: "tags", value: ["go", "auth"] },
    ]);
    expect(result).toEqual({ ok: true, text, changed: false });
  });
});

describe("editFrontmatter: line endings and BOM", () => {
  it("keeps CRLF on every line and uses CRLF for an inserted line", () => {
    const text = "---\r\nlastConfirmed: 2026-01-02\r\nprovenance: primed\r\n---\r\nBody line\r\n";
    const out = edited(text, [
      { op: "set", key: "provenance", value: "independent" },
      { op: "set", key: "archived", value: "2026-03-01" },
    ]);
    expect(out).toBe(
      "---\r\nlastConfirmed: 2026-01-02\r\nprovenance: independent\r\narchived: 2026-03-01\r\n---\r\nBody line\r\n",
    );
  });

  it("keeps a UTF-8 BOM and edits the frontmatter after it", () => {
    const text = "\uFEFF---\nlastConfirmed: 2026-01-02\n---\nbody";
    expect(edited(text, [{ op: "set", key: "lastConfirmed", value: "2026-02-12" }])).toBe(
      "\uFEFF---\nlastConfirmed: 2026-02-12\n---\nbody",
    );
  });

  it("keeps the body's own line endings when they differ from the frontmatter's", () => {
    const text = "---\r\na: 1\r\n---\r\nmixed\nendings\r\nno final newline";
    const out = edited(text, [{ op: "set", key: "a", value: 2 }]);
    expect(out).toBe("---\r\na: 2\r\n---\r\nmixed\nendings\r\nno final newline");
  });
});

describe("editFrontmatter: comments, quoting and order", () => {
  it("keeps a quoted key, its spacing and a trailing comment on the replaced line", () => {
    const text = `---\n'provenance'  :   "primed"   # set by a human\n"lastConfirmed": 2026-01-02 # old\n---\n`;
    const out = edited(text, [
      { op: "set", key: "provenance", value: "independent" },
      { op: "set", key: "lastConfirmed", value: "2026-02-12" },
    ]);
    expect(out).toBe(
      `---\n'provenance'  :   independent   # set by a human\n"lastConfirmed": 2026-02-12 # old\n---\n`,
    );
  });

  it("does not take a # inside a quoted value for a comment", () => {
    const text = `---\ntitle: "a # b"  # real comment\nid: x\n---\n`;
    const out = edited(text, [{ op: "set", key: "title", value: "new" }]);
    expect(out).toBe(`---\ntitle: new  # real comment\nid: x\n---\n`);
  });

  it("edits keys in unusual order, with unknown keys, without reordering anything", () => {
    const text = `---\nzeta: 1\nprovenance: primed\nunknownKey: {a: 1}\nlastConfirmed: 2026-01-02\nalpha: "x"\n---\n`;
    const out = edited(text, [{ op: "set", key: "lastConfirmed", value: "2026-02-12" }]);
    expect(changedLines(text, out)).toEqual([["lastConfirmed: 2026-01-02\n", "lastConfirmed: 2026-02-12\n"]]);
    expect(frontmatterOf(out)).toEqual({
      zeta: 1,
      provenance: "primed",
      unknownKey: { a: 1 },
      lastConfirmed: "2026-02-12",
      alpha: "x",
    });
  });

  it("accepts `...` as the closing marker and never touches `---` lines in the body", () => {
    const text = "---\na: 1\n...\nbody\n---\nb: 2\n---\n";
    expect(edited(text, [{ op: "set", key: "b", value: 3 }])).toBe("---\na: 1\nb: 3\n...\nbody\n---\nb: 2\n---\n");
  });
});

describe("editFrontmatter: inserting a missing key", () => {
  it("inserts after the last key's lines, leaving trailing comments and blank lines last", () => {
    const text = "---\nid: x\ntags:\n  - a\n  - b\n# end of keys\n\n---\nbody\n";
    const out = edited(text, [{ op: "set", key: "archived", value: "2026-03-01" }]);
    expect(out).toBe("---\nid: x\ntags:\n  - a\n  - b\narchived: 2026-03-01\n# end of keys\n\n---\nbody\n");
  });

  it("inserts before the closing marker when the block has no keys", () => {
    expect(edited("---\n---\nbody\n", [{ op: "set", key: "a", value: true }])).toBe("---\na: true\n---\nbody\n");
    expect(edited("---\n# only a comment\n---\n", [{ op: "set", key: "a", value: 1 }])).toBe(
      "---\n# only a comment\na: 1\n---\n",
    );
  });

  it("quotes a value that YAML would otherwise misread", () => {
    const reason = "decayed: injected in 10 runs without independent confirmation";
    const out = edited(ENTRY, [{ op: "set", key: "archivedReason", value: reason }]);
    expect(out).toContain(`\narchivedReason: "decayed: injected in 10 runs without independent confirmation"\n---\n`);
    expect(frontmatterOf(out)).toMatchObject({ archivedReason: reason });
  });

  it("quotes a key that is not a simple identifier", () => {
    const out = edited("---\na: 1\n---\n", [{ op: "set", key: "odd key: yes", value: "v" }]);
    expect(out).toBe('---\na: 1\n"odd key: yes": v\n---\n');
  });
});

describe("editFrontmatter: removal", () => {
  it("removes archived and archivedReason, keeping the comment above and the body", () => {
    const text = `---\nlastConfirmed: 2026-01-02\n# archived by cairn decay\narchived: 2026-03-01\narchivedReason: "decayed: injected in 10 runs"\nprovenance: primed\n---\nbody\n`;
    const out = edited(text, [
      { op: "remove", key: "archived" },
      { op: "remove", key: "archivedReason" },
    ]);
    expect(out).toBe("---\nlastConfirmed: 2026-01-02\n# archived by cairn decay\nprovenance: primed\n---\nbody\n");
  });

  it("is a no-op for a missing key or a file without frontmatter", () => {
    expect(editFrontmatter(ENTRY, [{ op: "remove", key: "archived" }])).toEqual({ ok: true, text: ENTRY, changed: false });
    expect(editFrontmatter("just text\n", [{ op: "remove", key: "a" }])).toEqual({
      ok: true,
      text: "just text\n",
      changed: false,
    });
  });
});

describe("editFrontmatter: multi-line values", () => {
  it("replaces an indented block sequence, dropping its inner comment but not the one after it", () => {
    const text = "---\ntags:\n  - a\n  # inner\n  - b\n# about next\nnext: 1\n---\n";
    const out = edited(text, [{ op: "set", key: "tags", value: ["c", "d e"] }]);
    expect(out).toBe("---\ntags: [c, d e]\n# about next\nnext: 1\n---\n");
  });

  it("owns block sequence items at column 0 and keeps a comment on the key line", () => {
    const text = "---\ntags: # topics\n- a\n- b\nid: x\n---\n";
    expect(edited(text, [{ op: "set", key: "tags", value: ["z"] }])).toBe("---\ntags: [z] # topics\nid: x\n---\n");
    expect(edited(text, [{ op: "remove", key: "tags" }])).toBe("---\nid: x\n---\n");
  });

  it("owns a block scalar including lines that look like comments", () => {
    const text = "---\nnote: >-\n  folded\n  # not a comment\n\n# a real comment\nid: x\n---\n";
    expect(edited(text, [{ op: "set", key: "note", value: "short" }])).toBe(
      "---\nnote: short\n\n# a real comment\nid: x\n---\n",
    );
  });

  it("owns trailing blank lines of a keep-chomped block scalar", () => {
    const text = "---\nnote: |+\n  kept\n\n# after\n---\n";
    const out = edited(text, [{ op: "set", key: "id", value: "x" }]);
    expect(out).toBe("---\nnote: |+\n  kept\n\nid: x\n# after\n---\n");
    expect(frontmatterOf(out)).toEqual({ note: "kept\n\n", id: "x" });
  });

  it("owns a whitespace-only line that is block scalar content (longer than its indentation)", () => {
    const text = "---\nnote: |\n  kept\n    \n\nid: x\n---\n";
    expect(edited(text, [{ op: "set", key: "note", value: "v" }])).toBe("---\nnote: v\n\nid: x\n---\n");
  });

  it("drops anchors and tags of a replaced value with the value", () => {
    const text = "---\ntitle: !!str &t old # keep\ntags: !!seq\n- a\n---\n";
    const out = edited(text, [
      { op: "set", key: "title", value: "new" },
      { op: "set", key: "tags", value: ["b"] },
    ]);
    expect(out).toBe("---\ntitle: new # keep\ntags: [b]\n---\n");
  });

  it("bounds a multi-line flow collection by its brackets, quotes and comments", () => {
    const text = "---\ntags: [a, 'b]',\n  \"c # d\", # comment ]\n  e]  # end\nid: x\n---\n";
    expect(edited(text, [{ op: "set", key: "tags", value: ["f"] }])).toBe("---\ntags: [f]\nid: x\n---\n");
  });

  it("accepts a flow collection closed at column 0", () => {
    const text = "---\ntags: [\n  a,\n]\nid: x\n---\n";
    expect(edited(text, [{ op: "remove", key: "tags" }])).toBe("---\nid: x\n---\n");
  });
});

describe("editFrontmatter: files without frontmatter", () => {
  it("creates a block at the top, after the BOM, in the file's line ending", () => {
    expect(edited("Body\n", [{ op: "set", key: "lastConfirmed", value: "2026-02-12" }])).toBe(
      "---\nlastConfirmed: 2026-02-12\n---\nBody\n",
    );
    expect(edited("\uFEFFBody\r\nmore\r\n", [{ op: "set", key: "a", value: 1 }])).toBe(
      "\uFEFF---\r\na: 1\r\n---\r\nBody\r\nmore\r\n",
    );
    expect(edited("", [{ op: "set", key: "a", value: 1 }])).toBe("---\na: 1\n---\n");
  });
});

describe("editFrontmatter: value formatting round-trips through yaml", () => {
  const strings = [
    "plain words",
    "decayed: injected",
    "yes",
    "No",
    "null",
    "~",
    "123",
    "1e3",
    "0755",
    "1:20",
    "0x1F",
    ".inf",
    "",
    " leading space",
    "trailing space ",
    "#hash",
    "a # b",
    "ends with colon:",
    "- dash",
    "multi\nline",
    'quote " and \\ backslash',
    "tab\there",
    "it's fine",
    "émoji 🪨 ok",
    "\u2028separator",
    "[not a list]",
    "&anchor",
    "2026-02-12T10:00:00Z",
  ];
  it.each(strings)("string %j", (value) => {
    const out = edited("---\na: 1\n---\n", [{ op: "set", key: "v", value }]);
    expect(frontmatterOf(out)).toEqual({ a: 1, v: value });
    expect(parse(out.split("\n")[2]!.replace(/^v: /, "k: "), { version: "1.1" })).toEqual({ k: value });
  });

  it("writes dates, numbers and booleans plain", () => {
    const out = edited("---\n---\n", [
      { op: "set", key: "d", value: "2026-02-12" },
      { op: "set", key: "num", value: 0.25 },
      { op: "set", key: "m", value: -3 },
      { op: "set", key: "big", value: 1e21 },
      { op: "set", key: "b", value: false },
    ]);
    expect(out).toBe("---\nd: 2026-02-12\nnum: 0.25\nm: -3\nbig: 1e+21\nb: false\n---\n");
    expect(frontmatterOf(out)).toEqual({ d: "2026-02-12", num: 0.25, m: -3, big: 1e21, b: false });
  });

  it("writes arrays in flow style, quoting items that need it", () => {
    const value = ["go", "a,b", "yes", "x: y", "[z]", "", "it's"];
    const out = edited("---\n---\n", [{ op: "set", key: "tags", value }]);
    expect(out).toBe(`---\ntags: [go, "a,b", "yes", "x: y", "[z]", "", it's]\n---\n`);
    expect(frontmatterOf(out)).toEqual({ tags: value });
    expect(edited("---\n---\n", [{ op: "set", key: "tags", value: [] }])).toBe("---\ntags: []\n---\n");
  });
});

describe("editFrontmatter: refusals", () => {
  const set: FrontmatterEdit = { op: "set", key: "a", value: 2 };

  it("refuses duplicate top-level keys, naming the key and lines", () => {
    expect(refusal(editFrontmatter("---\na: 1\nb: 2\na: 3\n---\n", [set]))).toMatch(/"a" appears more than once \(lines 2 and 4\)/);
    expect(refusal(editFrontmatter("---\nb: 1\nb: 2\n---\n", [set]))).toMatch(/"b" appears more than once/);
  });

  it("refuses unterminated frontmatter", () => {
    expect(refusal(editFrontmatter("---\na: 1\nbody\n", [set]))).toMatch(/no closing `---`/);
  });

  it("refuses invalid YAML with its line", () => {
    expect(refusal(editFrontmatter("---\nok: 1\na: [1, 2\n---\n", [set]))).toMatch(/not valid YAML \(line \d\)/);
    expect(refusal(editFrontmatter('---\na: "x\ny"\n---\n', [set]))).toMatch(/not valid YAML/);
  });

  it("refuses frontmatter that is not a mapping", () => {
    expect(refusal(editFrontmatter("---\n- a\n- b\n---\n", [set]))).toMatch(/not a mapping/);
  });

  it("refuses layouts it cannot bound, such as complex keys", () => {
    expect(refusal(editFrontmatter("---\n? a\n: 1\n---\n", [set]))).toMatch(/cannot tell which lines each key owns/);
  });

  it("refuses an edit that would break an alias elsewhere", () => {
    expect(refusal(editFrontmatter("---\na: &x 1\nb: *x\n---\n", [set]))).toMatch(/change how other frontmatter lines parse/);
    expect(refusal(editFrontmatter("---\na: &x 1\nb: *x\n---\n", [{ op: "remove", key: "a" }]))).toMatch(/alias/);
  });

  it("refuses a removal that would turn a following indented comment into block scalar content", () => {
    const text = "---\nnote: |\n  text\nx: 1\n  # about x\n---\n";
    expect(refusal(editFrontmatter(text, [{ op: "remove", key: "x" }]))).toMatch(/join a block scalar/);
    expect(edited(text, [{ op: "set", key: "x", value: 2 }])).toBe("---\nnote: |\n  text\nx: 2\n  # about x\n---\n");
  });

  it("refuses a bare carriage return inside the frontmatter", () => {
    expect(refusal(editFrontmatter("---\na: 1\rb: 2\n---\n", [set]))).toMatch(/bare carriage return/);
  });

  it("refuses values it cannot write and an empty key", () => {
    expect(refusal(editFrontmatter("---\n---\n", [{ op: "set", key: "n", value: Number.NaN }]))).toMatch(/unsupported value/);
    const badArray = [1, 2] as unknown as string[];
    expect(refusal(editFrontmatter("---\n---\n", [{ op: "set", key: "n", value: badArray }]))).toMatch(/string\[\]/);
    expect(refusal(editFrontmatter("---\n---\n", [{ op: "set", key: "", value: 1 }]))).toMatch(/non-empty/);
  });

  it("applies no edit at all when a later edit is refused", () => {
    const text = "---\na: 1\nb: &x 1\nc: *x\n---\n";
    const result = editFrontmatter(text, [set, { op: "remove", key: "b" }]);
    expect(refusal(result)).toMatch(/cannot remove frontmatter key "b"/);
  });
});
