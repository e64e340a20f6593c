/**
 * What a change commits — an entry's title, keys or text, a ledger event's actor — is printed by `search`,
 * `status`, `history`, `show`, `check`, `verify` and `diff`. A terminal must show it, never obey it: escape
 * sequences (recolour, retitle the window, clear the screen), carriage returns that overwrite a line, and bidi
 * controls are spelled out. Real processes.
 */
import { execFileSync } from "node:child_process";
import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clip, terminalText } from "../../src/cli/output.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

/** Characters a terminal acts on (besides the line breaks of multi-line output). */
const OBEYED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("text from entries and ledgers on a terminal", () => {
  it("spells out what a terminal would act on, and leaves everything else alone", () => {
    expect(terminalText("plain · ünïcode — text")).toBe("plain · ünïcode — text");
    expect(terminalText("a\u001b[31mb\u0007c\rd\u202ee\u009bf")).toBe("a\\x1b[31mb\\x07c\\x0dd\\u202ee\\x9bf");
    // Every character a prompt drops as hiding text (src/text/invisible.ts): two titles that differ only by one of
    // them do not look the same.
    expect(terminalText("pay\u2060ment\u00adfix\ufeff\u206a\ufff9")).toBe("pay\\u2060ment\\xadfix\\ufeff\\u206a\\ufff9");
    // What an emoji is made of is drawn as the emoji; the same characters anywhere else are spelled out.
    expect(terminalText("ok \u26a0\ufe0f \u{1F468}\u200d\u{1F4BB} \u{1F3F3}\ufe0f\u200d\u{1F308}")).toBe("ok \u26a0\ufe0f \u{1F468}\u200d\u{1F4BB} \u{1F3F3}\ufe0f\u200d\u{1F308}");
    expect(terminalText("pay\ufe0fment a\u200db \u{1F468}\u200dx")).toBe("pay\\ufe0fment a\\u200db \u{1F468}\\u200dx");
    expect(terminalText("line 1\r\nline 2\n\tindented\rover", { lines: true })).toBe("line 1\r\nline 2\n\tindented\\x0dover");
  });

  it("cuts a table cell with an ellipsis, never inside a surrogate pair", () => {
    expect(clip("short", 10)).toBe("short");
    expect(clip("abcdefghijkl", 10)).toBe("abcdefghi…");
    // "😀" is two UTF-16 units: a cut after its first would leave half a character.
    expect(clip("abcdefgh😀xyz", 10)).toBe("abcdefgh…");
    expect(clip("abcdefg😀xyz", 10)).toBe("abcdefg😀…");
  });

  it("search, status, history, show, check, verify and diff print a hostile title, key, text and actor without obeying them", async () => {
    const hostile = 'title: "Token \\e[31mred\\e]0;pwned\\a \\u202eevil"\nlastConfirmed: 2026-02-12\nprovenance: independent\n"\\e]0;key\\a": 1';
    const root = await testdir({
      "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
      ...SOURCE_FILES,
      // The finding holds a raw escape (a screen clear) of its own: markdown text, not YAML.
      "knowledge/hostile.md": entryText({ fm: hostile, finding: "Token comparison leaks timing \u001b[2J to the zeppelin client." }),
      // An archived entry's reason is free text that `show` prints on its status line.
      "knowledge/archive/gone.md": entryText({ fm: 'lastConfirmed: 2026-02-12\nprovenance: independent\narchivedReason: "stale \\e]0;pwned\\a"' }),
    });
    const env = { CAIRN_ACTOR: "ci-bot", CAIRN_USE_WATCH: "0" };
    expect((await cairn(["--root", root, "confirm", "hostile"], { env })).code).toBe(0);
    // A ledger event as a hostile change could commit it: its actor rewrites the line it is printed on.
    const ledger = path.join(root, "knowledge/.ledger");
    const file = path.join(ledger, (await import("node:fs")).readdirSync(ledger).find((f) => f.endsWith(".jsonl"))!);
    const last = JSON.parse((await readFile(file, "utf8")).trim().split("\n").at(-1)!) as Record<string, unknown>;
    await appendFile(file, `${JSON.stringify({ ...last, eventId: "01M8FA9AHT7WX06D7ZSMJAC9HX", actor: "\u001b[2J\rroot\u0007" })}\n`);

    const outputs = await Promise.all([
      cairn(["--root", root, "search", "zeppelin timing"], { env }),
      cairn(["--root", root, "status", "--all"], { env }),
      cairn(["--root", root, "history", "hostile"], { env }),
      cairn(["--root", root, "show", "hostile"], { env }),
    ]);
    for (const { code, stdout, stderr } of outputs) {
      expect(code).toBe(0);
      expect(stdout).not.toMatch(OBEYED);
      expect(stderr).not.toMatch(OBEYED);
    }
    const gone = await cairn(["--root", root, "show", "gone"], { env });
    expect(gone.code).toBe(0);
    expect(gone.stderr).toContain("stale \\x1b]0;pwned\\x07");
    expect(gone.stderr).not.toMatch(OBEYED);
    // `check` quotes the unknown key in its message: spelled out too.
    const check = await cairn(["--root", root, "check", "knowledge/hostile.md"], { env, cwd: root });
    expect(check.stdout + check.stderr).not.toMatch(OBEYED);
    expect(check.stdout + check.stderr).toContain("\\x1b]0;key\\x07");
    // `verify` prints the entry's steps; `diff` the titles of the entries a change touched.
    const verify = await cairn(["--root", root, "verify", "hostile"], { env });
    expect(verify.stdout + verify.stderr).not.toMatch(OBEYED);
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "base"], { cwd: root });
    const diff = await cairn(["--root", root, "diff", "HEAD"], { env });
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("timing \\x1b\\[2J to the zeppelin"); // `[` is escaped for markdown
    expect(diff.stdout + diff.stderr).not.toMatch(OBEYED);
    const [search, , history, show] = outputs.map((o) => o.stdout);
    expect(search).toContain("Token \\x1b[31mred\\x1b]0;pwned\\x07 \\u202eevil (hostile)");
    expect(history).toContain("\\x1b[2J\\x0droot\\x07");
    // `show` prints the file with its raw escape spelled out; the YAML escapes are text in it already.
    const text = await readFile(path.join(root, "knowledge/hostile.md"), "utf8");
    expect(show).toBe(text.replace("\u001b[2J", "\\x1b[2J"));
  });

  it("status spells out a hostile file name in its 'not a readable entry' warning, as check does", async () => {
    const name = "\u001b[2J\u001b[31mFAKE\rok\u202ezz.md";
    const root = await testdir({ "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), ...SOURCE_FILES, "knowledge/ok.md": entryText(), [`knowledge/${name}`]: "x" });
    const env = { CAIRN_USE_WATCH: "0" };
    const spelled = "knowledge/\\x1b[2J\\x1b[31mFAKE\\x0dok\\u202ezz.md";
    const status = await cairn(["--root", root, "status"], { env });
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`warning: ${spelled} is not a readable entry`);
    expect(status.stdout + status.stderr).not.toMatch(OBEYED);
    const check = await cairn(["--root", root, "check"], { env });
    expect(check.stdout).toContain(spelled);
    expect(check.stdout + check.stderr).not.toMatch(OBEYED);
  });

  it("a huge frontmatter value in one entry does not pad every row of status: a padded cell is cut, --json keeps it whole", async () => {
    // 51 entries with one 200 KB `status:`, `provenance:` and `lastConfirmed:` printed 31.8 MB before (every row padded).
    const big = "x".repeat(200_000);
    const files: Record<string, string> = { "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }), ...SOURCE_FILES };
    for (let i = 0; i < 50; i++) files[`knowledge/e${i}.md`] = entryText({ finding: `Finding ${i} about cache keys.` });
    files["knowledge/evil.md"] = entryText({ fm: `lastConfirmed: ${big}\nprovenance: ${big}\nstatus: ${big}` });
    const root = await testdir(files);
    const env = { CAIRN_USE_WATCH: "0" };
    const status = await cairn(["--root", root, "status"], { env });
    expect(status.stdout.length).toBeLessThan(60_000);
    const evil = status.stdout.split("\n").find((l) => l.startsWith("evil "))!;
    expect(evil).toContain(`${"x".repeat(119)}…`);
    expect(evil).not.toContain("x".repeat(121));
    const json = await cairn(["--root", root, "status", "--json"], { env });
    expect(json.stdout).toContain(big);
  });
});
