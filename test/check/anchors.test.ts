import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countLines, createAnchorResolver } from "../../src/check/anchors.js";
import { parseAnchors } from "../../src/entry/anchors.js";
import type { Anchor } from "../../src/entry/types.js";
import { isCairnError } from "../../src/errors.js";

const SERVER = [
  "export class Server {",
  "  listen(port: number) {",
  "    return handleRequest(port);",
  "  }",
  "}",
  "",
  "function handleRequest(port: number) {",
  "  return port;",
  "}",
  "// end",
].join("\n"); // 10 lines, no trailing newline

const FILES: Record<string, string> = {
  "src/server.ts": SERVER,
  "src/cli/one.ts": "export const one = 1;\n",
  "src/cli/two.ts": "export function frobnicate() {}\nexport const listener = 2;\n",
  "src/only-listener.ts": "const listener = 1;\n",
  "crates/foo/src/lib.rs": "pub struct Foo;\nimpl Foo {\n    pub fn new() -> Foo { Foo }\n}\n",
  "README.md": "# Demo\n",
  "empty.txt": "",
  "node_modules/pkg/hidden.js": "module.exports = 1;\n",
  "dist/bundle.js": "console.log(1);\n",
  "generated/out.gen.ts": "export const g = 1;\n",
  "app/[id]/page.tsx": "export default function Page() {}\n",
};

let root: string;
let outside: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cairn-anchors-"));
  outside = await mkdtemp(path.join(os.tmpdir(), "cairn-anchors-outside-"));
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  await writeFile(path.join(outside, "secret.ts"), "export const secret = 1;\n");
  await symlink(path.join(outside, "secret.ts"), path.join(root, "src/link-out.ts"));
  await symlink(path.join(root, "src/server.ts"), path.join(root, "src/link-in.ts"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** The first anchor parsed from `text`, placed on line 7, column 11 of the entry file. */
function anchor(text: string): Anchor {
  const [first] = parseAnchors(text, 7, 11);
  if (!first) throw new Error(`no anchor in ${text}`);
  return first;
}

async function check(text: string, options?: { ignore?: string[] }) {
  return createAnchorResolver(root, options).resolve(anchor(text), "knowledge/entry.md");
}

describe("createAnchorResolver", () => {
  it.each([
    "src/server.ts",
    "src/server.ts:10",
    "src/server.ts:1-10",
    "src/server.ts:2, Server.listen",
    "src/server.ts handleRequest()",
    "`Server.listen` in src/server.ts",
    "crates/foo/src/lib.rs:3, Foo::new",
    "src/cli/*.ts",
    "src/**/*.{ts,rs}",
    "src/cli/*.ts, frobnicate()",
    "src/cli/*.ts:2",
    "src/cli/",
    "src/cli, frobnicate()",
    "./README.md",
    "app/[id]/page.tsx:1, Page() — a literal path with glob characters",
    "app/*/page.tsx",
    "src/link-in.ts:3 — a symlink that stays inside",
    "handleRequest() — symbol-only anchors are not resolved",
  ])("resolves %s", async (text) => {
    expect(await check(text)).toEqual([]);
  });

  it("reports a missing path with the anchor's position and what was expected", async () => {
    const diagnostics = await check("src/nope.ts:3 — gone");
    expect(diagnostics).toEqual([
      {
        file: "knowledge/entry.md",
        line: 7,
        column: 11,
        rule: "anchor-unresolved",
        severity: "error",
        message: expect.stringContaining("src/nope.ts matches no file under the repository root; expected a repo-relative path such as src/x.ts"),
        short: "src/nope.ts:3 — src/nope.ts does not exist",
      },
    ]);
  });

  it("reports a glob that matches nothing, and does not look into node_modules or dist", async () => {
    for (const text of ["src/**/*.py", "**/hidden.js", "dist/*.js"]) {
      const [d, ...rest] = await check(text);
      expect(rest).toEqual([]);
      expect(d).toMatchObject({ rule: "anchor-unresolved", severity: "error", line: 7, column: 11 });
      expect(d?.message).toContain("matches no file under the repository root");
    }
  });

  it("honours extra ignore patterns for globs", async () => {
    expect(await check("generated/*.ts")).toEqual([]);
    const [d] = await check("generated/*.ts", { ignore: ["generated/**"] });
    expect(d?.rule).toBe("anchor-unresolved");
  });

  it("reports a line or range past the end of the file with the file's length", async () => {
    const [line] = await check("src/server.ts:11");
    expect(line?.message).toContain("line 11 is past the end of src/server.ts, which has 10 lines");
    const [range] = await check("src/server.ts:5-40");
    expect(range?.message).toContain("line 40 is past the end of src/server.ts, which has 10 lines");
    const [empty] = await check("empty.txt:1");
    expect(empty?.message).toContain("which has 0 lines");
  });

  it("reports a range that starts after it ends, and line 0", async () => {
    const [backwards] = await check("src/server.ts:9-4");
    expect(backwards).toMatchObject({ rule: "anchor-unresolved", line: 7, column: 11 });
    expect(backwards?.message).toContain("starts after it ends; expected START <= END, e.g. src/server.ts:4-9");
    const [zero] = await check("src/server.ts:0");
    expect(zero?.message).toContain("expected line numbers starting at 1");
  });

  it("for a glob, a line range passes when any matched file is long enough", async () => {
    expect(await check("src/**/*.ts:10")).toEqual([]);
    const [d] = await check("src/cli/*.ts:3");
    expect(d?.message).toContain("past the end of every file matched by src/cli/*.ts (the longest has 2 lines)");
  });

  it("finds symbols by whole word only and reports an absent one", async () => {
    const [absent] = await check("src/server.ts:2, Server.close");
    expect(absent?.rule).toBe("anchor-unresolved");
    expect(absent?.message).toContain("the symbol `Server.close` does not occur in src/server.ts");
    // TypeScript has definition patterns: the message is about the definition, not a word.
    expect(absent?.message).toContain("expected the symbol named in the anchor to be defined in the file");
    const [partial] = await check("src/only-listener.ts, Server.listen");
    expect(partial?.message).toContain("does not occur in src/only-listener.ts");
  });

  it("searches a glob's symbol in every matched file", async () => {
    const [d] = await check("src/cli/*.ts, handleRequest()");
    expect(d?.message).toContain("does not occur in any of the 2 files matched by src/cli/*.ts");
  });

  it("accepts hand-built anchors: glob characters mark a glob even without the `glob` flag", async () => {
    const resolver = createAnchorResolver(root);
    expect(await resolver.resolve({ raw: "src/cli/*.ts", path: "src/cli/*.ts", line: 1, column: 1 }, "k.md")).toEqual([]);
    const [d] = await resolver.resolve({ raw: "x", path: "src/cli/*.py", symbol: "one", line: 2, column: 3 }, "k.md");
    expect(d).toMatchObject({ rule: "anchor-unresolved", line: 2, column: 3 });
  });

  it("reports a line range on a directory", async () => {
    const [d] = await check("src/cli/:3");
    expect(d?.message).toContain("src/cli is a directory");
  });

  it("reports paths that leave the repository as anchor-outside-repo", async () => {
    const cases: Array<[string, string]> = [
      ["../outside.ts:3", "leaves the repository through `..`"],
      ["src/../../etc/x.ts", "leaves the repository through `..`"],
      ["/etc/passwd", "is an absolute path"],
      ["src/link-out.ts", "symbolic link that leads outside the repository"],
    ];
    for (const [text, reason] of cases) {
      const diagnostics = await check(text);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({ rule: "anchor-outside-repo", severity: "error", line: 7, column: 11 });
      expect(diagnostics[0]?.message).toContain(reason);
    }
  });

  it("globs do not match symbolic links, so nothing outside the root is read", async () => {
    const [d] = await check("src/link-*.ts, secret()");
    expect(d?.message).toContain("the glob src/link-*.ts matches no file");
    expect(await check("src/*.ts, secret()")).toEqual([expect.objectContaining({ message: expect.stringContaining("does not occur in any of the 2 files") })]);
  });

  it("reports every problem of one anchor: a backwards range is reported beside a missing symbol", async () => {
    const diagnostics = await check("src/server.ts:9-4, missingThing()");
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining("starts after it ends"),
      expect.stringContaining("`missingThing` does not occur"),
    ]);
  });

  it("reads each file once per resolver (cached across calls)", async () => {
    const scratch = path.join(root, "scratch.ts");
    await writeFile(scratch, "one\ntwo\nthree\nconst cachedWord = 1;\n");
    const resolver = createAnchorResolver(root);
    expect(await resolver.resolve(anchor("scratch.ts:4, cachedWord"), "k.md")).toEqual([]);
    await unlink(scratch);
    // The file is gone, but the resolver answers from its caches.
    expect(await resolver.resolve(anchor("scratch.ts:4, cachedWord"), "k.md")).toEqual([]);
    // A new resolver sees the file system as it is now.
    const [d] = await createAnchorResolver(root).resolve(anchor("scratch.ts:2"), "k.md");
    expect(d?.message).toContain("matches no file");
  });

  it("answers many concurrent calls consistently", async () => {
    const resolver = createAnchorResolver(root);
    const texts = ["src/server.ts:3, listen", "src/nope.ts", "src/cli/*.ts:1", "src/server.ts:99"];
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => resolver.resolve(anchor(texts[i % 4]!), "k.md")));
    expect(results.map((r) => r.length)).toEqual(Array.from({ length: 200 }, (_, i) => (i % 4 === 1 || i % 4 === 3 ? 1 : 0)));
  });

  it("rejects with an IO CairnError when the root does not exist", async () => {
    const resolver = createAnchorResolver(path.join(root, "no-such-root"));
    const error = await resolver.resolve(anchor("src/a.ts"), "k.md").catch((e: unknown) => e);
    expect(isCairnError(error) && error.code).toBe("IO");
  });
});

describe("countLines", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\r\nb\r\n", 2],
    ["\n\n", 2],
  ])("%j has %i lines", (text, lines) => {
    expect(countLines(text)).toBe(lines);
  });
});
