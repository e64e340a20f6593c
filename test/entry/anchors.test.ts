import { describe, expect, it } from "vitest";
import { parseAnchors } from "../../src/entry/anchors.js";
import type { Anchor } from "../../src/entry/types.js";

type Case = { name: string; text: string; expected: Array<Partial<Anchor>> };

/** Each expected anchor is matched on the fields given; `path: undefined` asserts a symbol-only anchor. */
const cases: Case[] = [
  {
    name: "paragraph style, note wraps onto the next line",
    text: "middleware/auth.go:47-52, handleRequest() — context.Err() not\nchecked after upstream call.",
    expected: [
      {
        raw: "middleware/auth.go:47-52, handleRequest()",
        path: "middleware/auth.go",
        startLine: 47,
        endLine: 52,
        symbol: "handleRequest",
        note: "context.Err() not checked after upstream call.",
      },
    ],
  },
  {
    name: "list style from the spec",
    text: [
      "- `src/entry/parse.ts:10-40` parseEntry() — remark is used for the body",
      "- src/cli/*.ts — every command imports lazily",
      "- lib/server.js:120, Server.listen — binds before config is loaded",
      "- `Server.listen` in lib/server.js",
      "- crates/foo/src/lib.rs:12 (fn frobnicate)",
    ].join("\n"),
    expected: [
      { raw: "`src/entry/parse.ts:10-40` parseEntry()", path: "src/entry/parse.ts", startLine: 10, endLine: 40, symbol: "parseEntry", note: "remark is used for the body" },
      { raw: "src/cli/*.ts", path: "src/cli/*.ts", glob: true, note: "every command imports lazily", startLine: undefined },
      { path: "lib/server.js", startLine: 120, endLine: 120, symbol: "Server.listen", note: "binds before config is loaded" },
      { raw: "`Server.listen` in lib/server.js", path: "lib/server.js", symbol: "Server.listen", note: undefined },
      { raw: "crates/foo/src/lib.rs:12 (fn frobnicate)", path: "crates/foo/src/lib.rs", startLine: 12, endLine: 12, symbol: "frobnicate" },
    ],
  },
  {
    name: "CRLF line endings",
    text: "- src/a.ts:1-2 — first\r\n- src/b.ts:3, run() — second\r\n",
    expected: [
      { path: "src/a.ts", startLine: 1, endLine: 2, note: "first" },
      { path: "src/b.ts", startLine: 3, symbol: "run", note: "second" },
    ],
  },
  {
    name: "GitHub #L style, single line and range",
    text: "- src/x.ts#L47-L52 — range\n- src/y.ts#L8 — single\n- src/z.ts#L3C2-L9C1",
    expected: [
      { path: "src/x.ts", startLine: 47, endLine: 52, note: "range" },
      { path: "src/y.ts", startLine: 8, endLine: 8, note: "single" },
      { path: "src/z.ts", startLine: 3, endLine: 9 },
    ],
  },
  {
    name: "Rust paths with :: symbols",
    text: "- crates/core/src/store.rs:88, Store::open — never fsyncs\n- `Foo::new` in crates/core/src/foo.rs",
    expected: [
      { path: "crates/core/src/store.rs", startLine: 88, symbol: "Store::open", note: "never fsyncs" },
      { path: "crates/core/src/foo.rs", symbol: "Foo::new" },
    ],
  },
  {
    name: "semicolon-separated anchors in a paragraph",
    text: "a/b.py:10-12, load_config(); a/c.py:5 — same pattern; docs/ops.md",
    expected: [
      { path: "a/b.py", startLine: 10, endLine: 12, symbol: "load_config", note: undefined },
      { path: "a/c.py", startLine: 5, note: "same pattern" },
      { path: "docs/ops.md" },
    ],
  },
  {
    name: "comma-separated anchors share nothing but the chunk",
    text: "pkg/a.go:1, pkg/b.go:2 — both skip the check",
    expected: [
      { raw: "pkg/a.go:1", path: "pkg/a.go", startLine: 1, note: undefined },
      { raw: "pkg/b.go:2", path: "pkg/b.go", startLine: 2, note: "both skip the check" },
    ],
  },
  {
    name: "a semicolon part that is prose continues the note",
    text: "src/retry.ts:30 — retries forever; the backoff is never capped",
    expected: [{ path: "src/retry.ts", note: "retries forever; the backoff is never capped" }],
  },
  {
    name: "note separators: hyphen, colon, en dash, double hyphen",
    text: "- src/a.ts - hyphen note\n- src/b.ts: colon note\n- src/c.ts:4–9 – en dash\n- src/d.ts -- double",
    expected: [
      { path: "src/a.ts", note: "hyphen note" },
      { path: "src/b.ts", note: "colon note", startLine: undefined },
      { path: "src/c.ts", startLine: 4, endLine: 9, note: "en dash" },
      { path: "src/d.ts", note: "double" },
    ],
  },
  {
    name: "symbol forms: backticked, Ruby #, keyword, call with arguments",
    text: [
      "- app/models/user.rb:14 `User#save` — skips validation",
      "- app/x.py def handle_event — swallows errors",
      "- lib/q.js:3, enqueue(job, opts) — unbounded",
      "- lib/r.ts, retryCount — off by one",
    ].join("\n"),
    expected: [
      { path: "app/models/user.rb", startLine: 14, symbol: "User#save", note: "skips validation" },
      { path: "app/x.py", symbol: "handle_event", note: "swallows errors" },
      { path: "lib/q.js", symbol: "enqueue", note: "unbounded" },
      { path: "lib/r.ts", symbol: "retryCount", note: "off by one" },
    ],
  },
  {
    name: "symbol-only anchors",
    text: "- handleRequest() — reads the body twice\n- `Server.listen`\n- fn frobnicate",
    expected: [
      { path: undefined, symbol: "handleRequest", note: "reads the body twice" },
      { path: undefined, symbol: "Server.listen" },
      { path: undefined, symbol: "frobnicate" },
    ],
  },
  {
    name: "file names without a directory",
    text: "- package.json — pins an old version\n- Makefile:12 — the test target\n- `README.md`\n- .github/workflows/ci.yml:3\n- .eslintrc — overrides",
    expected: [
      { path: "package.json", note: "pins an old version" },
      { path: "Makefile", startLine: 12 },
      { path: "README.md" },
      { path: ".github/workflows/ci.yml", startLine: 3 },
      { path: ".eslintrc", note: "overrides" },
    ],
  },
  {
    name: "globs with ?, [] and {}",
    text: "- src/**/*.{ts,tsx} — every component\n- test/fixture?.json\n- lib/[ab]*.js:1",
    expected: [
      { path: "src/**/*.{ts,tsx}", glob: true, note: "every component" },
      { path: "test/fixture?.json", glob: true },
      { path: "lib/[ab]*.js", glob: true, startLine: 1 },
    ],
  },
  {
    name: "line words, leading ./, `see`, markdown links",
    text: "- ./src/a.ts, lines 4-9 — init\n- see src/b.ts line 7\n- [src/c.ts:3](https://example.com/blob/main/src/c.ts#L3) — linked",
    expected: [
      { raw: "./src/a.ts, lines 4-9", path: "src/a.ts", startLine: 4, endLine: 9, note: "init" },
      { raw: "src/b.ts line 7", path: "src/b.ts", startLine: 7, endLine: 7 },
      { path: "src/c.ts", startLine: 3, endLine: 3, note: "linked" },
    ],
  },
  {
    name: "a path alone on each line of a paragraph",
    text: "src/a.ts:10 — one\nsrc/b.ts — two\n`src/c.ts`",
    expected: [
      { path: "src/a.ts", note: "one" },
      { path: "src/b.ts", note: "two" },
      { path: "src/c.ts" },
    ],
  },
  {
    name: "absolute and escaping paths are parsed (resolution rejects them)",
    text: "- /etc/passwd — absolute\n- ../other/x.ts:3",
    expected: [
      { path: "/etc/passwd", note: "absolute" },
      { path: "../other/x.ts", startLine: 3 },
    ],
  },
  {
    name: "`and` joins two anchors like a comma",
    text: "- src/db/pool.ts:12 and src/db/tx.ts:30 — both leak connections",
    expected: [
      { path: "src/db/pool.ts", startLine: 12, note: undefined },
      { path: "src/db/tx.ts", startLine: 30, note: "both leak connections" },
    ],
  },
  {
    name: "Go receivers",
    text: "- api/users.go:88, (*Server).ServeHTTP — nil deref\n- internal/svc.go func (s *Service) Run — no ctx",
    expected: [
      { path: "api/users.go", symbol: "Server.ServeHTTP", note: "nil deref" },
      { path: "internal/svc.go", symbol: "Service.Run", note: "no ctx" },
    ],
  },
  {
    name: "a path with a line or in backticks inside prose is an anchor; the prose is its note",
    text: "The retry loop in src/net/retry.ts:40-60 ignores the deadline.\n\nThe same holds for `lib/old.js`.",
    expected: [
      { path: "src/net/retry.ts", startLine: 40, endLine: 60, note: "The retry loop in src/net/retry.ts:40-60 ignores the deadline." },
      { path: "lib/old.js", note: "The same holds for `lib/old.js`." },
    ],
  },
  {
    name: "a descending range is kept as written",
    text: "src/a.ts:52-47",
    expected: [{ path: "src/a.ts", startLine: 52, endLine: 47 }],
  },
  {
    name: "a leading Evidence: label and bold label are skipped",
    text: "**Evidence:** src/a.go:3 — x",
    expected: [{ raw: "src/a.go:3", path: "src/a.go", note: "x" }],
  },
  {
    name: "headings and fenced code are skipped",
    text: "## Evidence\n\n```ts\n// src/fake.ts:1 — in a fence\nconst x = `src/no.ts`;\n```\n- src/real.ts:2 — after the fence",
    expected: [{ path: "src/real.ts", startLine: 2, note: "after the fence" }],
  },
  {
    name: "a Verify: line ends the evidence",
    text: "src/a.go:3 — x\nVerify: grep for ctx.Err() in src/b.go",
    expected: [{ path: "src/a.go", note: "x" }],
  },
  {
    name: "paths anywhere in a sentence, with the word before them",
    text: "fd-v2 listed agents absent from the merge table in skills/flux-drive/SKILL.md despite the roster; see agents/review/*.md too.",
    expected: [
      { path: "skills/flux-drive/SKILL.md", qualifier: "in", mention: undefined },
      { path: "agents/review/*.md", glob: true },
    ],
  },
  {
    name: "a prose mention of a path without a line",
    text: "The retry loop in src/net/retry.ts ignores the deadline.",
    expected: [{ path: "src/net/retry.ts", note: "The retry loop in src/net/retry.ts ignores the deadline.", mention: undefined }],
  },
  {
    name: "more paths in the note of a leading anchor",
    text: "docs/arch.md describes YAML, but skills/fd/synthesize.md reads markdown per shared-contracts.md.",
    expected: [
      { path: "docs/arch.md", note: "describes YAML, but skills/fd/synthesize.md reads markdown per shared-contracts.md." },
      { path: "skills/fd/synthesize.md", mention: undefined },
      { path: "shared-contracts.md", mention: true, qualifier: "per" },
    ],
  },
  {
    name: "a bare file name first, followed by a separator",
    text: "lib.sh — the helper sources it twice",
    expected: [{ path: "lib.sh", note: "the helper sources it twice", mention: undefined }],
  },
  {
    name: "bare file names mid-sentence are mentions; `(line N)` is a location; the word before is kept",
    text: "sprint.md referenced `enforce_gate()` which existed in interphase lib-gates.sh (line 214) but not in Clavain's lib-gates.sh shim.",
    expected: [
      { path: "sprint.md", mention: true },
      { path: "lib-gates.sh", startLine: 214, endLine: 214, qualifier: "interphase", mention: undefined },
      { path: "lib-gates.sh", mention: true, qualifier: "Clavain" },
    ],
  },
  {
    name: "a call and a bare file name: `SYMBOL in FILE`",
    text: "sprint_create() in lib-sprint.sh originally used `|| true` on all set-state calls.",
    expected: [{ path: "lib-sprint.sh", symbol: "sprint_create" }],
  },
  {
    name: "calls are symbol-only mentions when a chunk has no path",
    text: "context.Err() is never checked after the call.",
    expected: [{ path: undefined, symbol: "context.Err", mention: true }],
  },
  {
    name: "anchors into another repository: `repo:path`",
    text: "- interphase:hooks/lib-gates.sh:214 — upstream\n- `mistakeknot/interphase:lib-gates.sh` — the same\n- see interphase:docs/x.md in the notes",
    expected: [
      { repo: "interphase", path: "hooks/lib-gates.sh", startLine: 214, note: "upstream" },
      { repo: "mistakeknot/interphase", path: "lib-gates.sh" },
      { repo: "interphase", path: "docs/x.md" },
    ],
  },
  {
    name: "a `#fragment` names a markdown heading",
    text: "- docs/guide.md#deviation-rules — the four rules\n- src/x.ts#L3",
    expected: [
      { path: "docs/guide.md", symbol: "deviation-rules", fragment: true, note: "the four rules" },
      { path: "src/x.ts", startLine: 3, symbol: undefined },
    ],
  },
];

/** Text that must produce no anchor. */
const prose: Array<[string, string]> = [
  ["a URL", "https://github.com/org/repo/blob/main/src/a.ts"],
  ["a domain path", "github.com/org/repo"],
  ["a version number", "1.2.3"],
  ["a version with prefix", "v2.10.0 — upgraded"],
  ["a date", "2024/01/15"],
  ["a sentence", "The handler never checks the context."],
  ["a sentence starting with a file-like word", "Node.js 20 is required for this."],
  ["slash words in prose", "client/server split is the real problem."],
  ["abbreviations", "e.g. when the pool is empty"],
  ["a word ending in a period", "Checked."],
  ["a numbered step of prose", "1. Run the tests twice"],
  ["all-caps slash words", "- I/O — blocking calls\n- CI/CD: slow"],
  ["a URL with a GitHub line fragment", "https://example.com/org/repo/blob/main/src/a.ts#L10-L20"],
  ["a markdown link to a URL", "[the thread](https://example.com/a.ts#L3) explains it"],
  ["a shell command in backticks", "- `npm test` fails on CI"],
  ["product names that look like file names", "Node.js and Vue.js are both required here."],
  ["a scheme-like prefix that is not a repository", "node:fs/promises is used throughout"],
  ["an empty section", "\n\n"],
];

describe("parseAnchors", () => {
  it.each(cases)("$name", ({ text, expected }) => {
    const anchors = parseAnchors(text, 1);
    expect(anchors).toHaveLength(expected.length);
    expected.forEach((want, i) => {
      const got = anchors[i]!;
      for (const [key, value] of Object.entries(want)) expect(got[key as keyof Anchor], `${i}.${key}`).toEqual(value);
    });
  });

  it.each(prose)("does not turn %s into an anchor", (_name, text) => {
    expect(parseAnchors(text, 1)).toEqual([]);
  });

  it("prose paragraphs next to anchors stay out, but a semicolon prose part joins the note", () => {
    const text = "src/a.ts:1 — leaks; see the thread\n\nThis happened in three services.";
    expect(parseAnchors(text, 1)).toEqual([
      {
        raw: "src/a.ts:1",
        path: "src/a.ts",
        startLine: 1,
        endLine: 1,
        note: "leaks; see the thread",
        line: 1,
        column: 1,
        spans: { path: { line: 1, column: 1, text: "src/a.ts" }, loc: { line: 1, column: 9, text: ":1" } },
      },
    ]);
  });

  it("positions point at the path (inside backticks) in file coordinates", () => {
    // The section text starts on file line 20, column 11 (after `Evidence: `).
    const text = "middleware/auth.go:47-52 — a\n- `src/b.ts:3` — b\n  - `Server.listen` in lib/server.js";
    const anchors = parseAnchors(text, 20, 11);
    expect(anchors.map((a) => [a.line, a.column])).toEqual([
      [20, 11],
      [21, 4],
      [22, 24],
    ]);
    const lines = ["x".repeat(10) + text.split("\n")[0], ...text.split("\n").slice(1)];
    anchors.forEach((a) => expect(lines[a.line - 20]!.slice(a.column - 1)).toMatch(new RegExp(`^${a.path!.replace(/[.*]/g, "\\$&")}`)));
  });

  it("positions are the same with CRLF and LF", () => {
    const lf = "- src/a.ts — a\n- src/b.ts — b\n\n- `c.go`";
    const crlf = lf.replace(/\n/g, "\r\n");
    expect(parseAnchors(crlf, 5)).toEqual(parseAnchors(lf, 5));
    expect(parseAnchors(lf, 5).map((a) => [a.line, a.column])).toEqual([
      [5, 3],
      [6, 3],
      [8, 4],
    ]);
  });

  it("spans say where the path and the location are written, in file coordinates", () => {
    const text = "- `src/a.ts:52-61` handle() — a\n- see src/b.ts, lines 4-9 — b\n- x/y.go#L3-L7\n- in interphase:hooks/h.sh (line 2)";
    const anchors = parseAnchors(text, 10, 11);
    expect(anchors.map((a) => a.spans)).toEqual([
      { path: { line: 10, column: 14, text: "src/a.ts" }, loc: { line: 10, column: 22, text: ":52-61" } },
      { path: { line: 11, column: 7, text: "src/b.ts" }, loc: { line: 11, column: 15, text: ", lines 4-9" } },
      { path: { line: 12, column: 3, text: "x/y.go" }, loc: { line: 12, column: 9, text: "#L3-L7" } },
      { path: { line: 13, column: 6, text: "interphase:hooks/h.sh" }, loc: { line: 13, column: 27, text: " (line 2)" } },
    ]);
  });

  it("a symbol-only anchor points at the symbol", () => {
    const [anchor] = parseAnchors("- `handleRequest()` — x", 3);
    expect(anchor).toMatchObject({ symbol: "handleRequest", line: 3, column: 4 });
    expect(anchor?.path).toBeUndefined();
  });

  it("a continuation line that starts with prose stays in the note of a list item", () => {
    const text = "- src/a.ts:1 — the retry loop\n  ignores the deadline\n- src/b.ts:2";
    const anchors = parseAnchors(text, 1);
    expect(anchors.map((a) => a.note)).toEqual(["the retry loop ignores the deadline", undefined]);
  });
});
