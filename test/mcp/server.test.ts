import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, REPO } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { call, callError, connect } from "./client.js";

const today = new Date().toISOString().slice(0, 10);
const OLD = "lastConfirmed: 2026-01-05\nprovenance: independent";
const VERSION = (JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as { version: string }).version;

/** Seven entries about auth middleware (more than the per-agent cap of 5) and one about SQL. */
function project(): Promise<string> {
  const auth = Object.fromEntries(
    ["tokens", "sessions", "cookies", "headers", "retries", "timeouts", "logging"].map((topic) => [
      `knowledge/auth-${topic}.md`,
      entryText({ fm: OLD, finding: `Auth middleware mishandles ${topic}: the auth middleware must check ${topic} before calling the upstream handler.` }),
    ]),
  );
  return testdir({
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    ...SOURCE_FILES,
    "src/db.ts": "export function find(id: string) {\n  return query('SELECT * FROM users WHERE id = ' + id);\n}\n",
    "src/reset.ts": "export function checkResetToken(given: string, stored: string) {\n  return given === stored;\n}\n",
    "knowledge/archive/.gitkeep": "",
    ...auth,
    "knowledge/sql-concat.md": entryText({
      fm: OLD,
      finding: "SQL queries built by string concatenation allow injection — use parameterised queries.",
      evidence: "src/db.ts:2, find() — id concatenated into the SELECT.",
      verify: "grep for `' +` inside query( calls in src/.",
    }),
  });
}

async function ledgerEvents(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(root, "knowledge/.ledger");
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".jsonl"));
  const lines = (await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")))).flatMap((t) => t.split("\n").filter(Boolean));
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("cairn mcp", () => {
  it("identifies as cairn, lists its tools with input schemas, and answers status and check in the CLI's JSON shapes", async () => {
    const root = await project();
    const client = await connect(root);
    expect(client.getServerVersion()).toMatchObject({ name: "cairn", version: VERSION });

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search", "inject", "record_findings", "compound", "status", "check", "get_entry", "history", "confirm", "new_entry", "diff", "verify"]);
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\w/);
      expect(tool.inputSchema.type).toBe("object");
    }
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as { properties: Record<string, any>; required?: string[] };
    expect(schema("search").required).toEqual(["query"]);
    expect(schema("inject").required).toEqual(expect.arrayContaining(["run", "agent"]));
    expect(schema("record_findings").required).toEqual(expect.arrayContaining(["run", "findings"]));
    expect(schema("record_findings").properties.findings.items.required).toEqual(expect.arrayContaining(["agent", "text"]));
    expect(schema("compound").properties.findings.items.properties).toHaveProperty("durable");
    expect(tools.find((t) => t.name === "search")!.annotations?.readOnlyHint).toBe(true);

    const status = (await call(client, "status", {})).json;
    expect(Object.keys(status).sort()).toEqual(["conflicts", "entries", "warnings"]);
    expect(status.entries).toHaveLength(8);
    expect(status.entries[0]).toMatchObject({ state: "active", lastConfirmed: "2026-01-05", provenance: "independent", confirmations: { independent: 0, primed: 0 } });

    const check = (await call(client, "check", {})).json;
    expect(check).toEqual({ diagnostics: [], errors: 0, warnings: 0, ok: true });
    const one = (await call(client, "check", { paths: ["knowledge/sql-concat.md"] })).json;
    expect(one).toEqual({ diagnostics: [], errors: 0, warnings: 0, ok: true });
  });

  it("search finds the matching entry; explain is only included when asked", async () => {
    const root = await project();
    const client = await connect(root);
    const plain = (await call(client, "search", { query: "sql string concatenation injection" })).json;
    expect(plain.mode).toBe("lexical");
    expect(plain.results[0]).toMatchObject({ id: "sql-concat", path: "knowledge/sql-concat.md", state: "active" });
    expect(plain.results[0]).not.toHaveProperty("explain");
    const explained = (await call(client, "search", { query: "sql injection", limit: 1, explain: true })).json;
    expect(explained.results).toHaveLength(1);
    expect(explained.results[0].explain.lexical.rank).toBe(1);
  });

  it("inject returns at most 5 entries with a markdown block, records the injection, and a second call respects the cap", async () => {
    const root = await project();
    const client = await connect(root);
    const args = { run: "pr-7", agent: "security", keywords: ["auth", "middleware"], summary: "auth middleware upstream handler" };
    const first = (await call(client, "inject", { ...args, limit: 3 })).json;
    expect(Object.keys(first).sort()).toEqual(["agent", "entries", "estimatedTokens", "heldOut", "markdown", "maxTokens", "remaining", "run", "tokenizer", "tokens", "warnings"]);
    expect(first.entries).toHaveLength(3);
    expect(first.remaining).toBe(2);
    expect(first.markdown).toContain(first.entries[0].id);
    expect(first.estimatedTokens).toBeGreaterThan(0);
    const events = (await ledgerEvents(root)).filter((e) => e.type === "injected");
    expect(events).toEqual([expect.objectContaining({ run: "pr-7", agent: "security", entries: first.entries.map((e: { id: string }) => e.id) })]);

    const ids = (result: { entries: Array<{ id: string }> }) => result.entries.map((e) => e.id);
    const second = (await call(client, "inject", args)).json;
    expect(second.entries).toHaveLength(2);
    expect(second.remaining).toBe(0);
    expect(new Set([...ids(first), ...ids(second)]).size).toBe(5);
    // The same request again is a retry (its answer lost on the way): the same entries, recorded once.
    const retry = (await call(client, "inject", args)).json;
    expect([ids(retry), retry.remaining]).toEqual([ids(second), 0]);
    const third = (await call(client, "inject", { ...args, summary: "auth middleware, another part" })).json;
    expect(third).toMatchObject({ entries: [], remaining: 0, markdown: "" });
    expect(third.warnings.join("\n")).toMatch(/already received 5 entries/);
    expect((await ledgerEvents(root)).filter((e) => e.type === "injected")).toHaveLength(2);
    // The cap is per agent: another agent in the same run still gets its own five.
    expect((await call(client, "inject", { ...args, agent: "performance" })).json.entries).toHaveLength(5);
  });

  it("record_findings: a cited entry is confirmed independently (lastConfirmed → today) or primed when injected to that agent", async () => {
    const root = await project();
    const client = await connect(root);
    const injected = (await call(client, "inject", { run: "r1", agent: "security", keywords: ["auth", "middleware", "tokens"], limit: 1 })).json;
    const primedId: string = injected.entries[0].id;
    const result = (
      await call(client, "record_findings", {
        run: "r1",
        findings: [
          { agent: "security", text: "Middleware forgets a check.", entry: primedId },
          { agent: "perf", text: "SQL concatenation again.", entry: "sql-concat" },
          { agent: "perf", text: "Cites nothing known.", entry: "no-such-entry" },
        ],
      })
    ).json;
    expect(Object.keys(result).sort()).toEqual(["alreadyRecorded", "archived", "confirmations", "dryRun", "restored", "run", "unmatched", "warnings"]);
    // perf got nothing in r1: its findings still count, with a warning.
    expect(result.warnings).toEqual([expect.stringMatching(/^agent "perf" has no recorded injection in run "r1"/)]);
    expect(result.confirmations).toEqual([
      expect.objectContaining({ entry: primedId, agent: "security", provenance: "primed", explicit: true }),
      expect.objectContaining({ entry: "sql-concat", agent: "perf", provenance: "independent", explicit: true }),
    ]);
    expect(result.unmatched).toEqual([expect.objectContaining({ agent: "perf", reason: expect.stringContaining("no-such-entry") })]);
    expect(await readFile(path.join(root, "knowledge/sql-concat.md"), "utf8")).toContain(`lastConfirmed: ${today}`);
    expect(await readFile(path.join(root, `knowledge/${primedId}.md`), "utf8")).toContain("lastConfirmed: 2026-01-05");
    // The audit trail names the MCP client as the actor of every change.
    const written = await ledgerEvents(root);
    expect(written.length).toBeGreaterThan(0);
    expect(new Set(written.map((e) => e.actor))).toEqual(new Set(["mcp:cairn-test"]));
  });

  it("compound creates an entry from a durable finding two agents flagged with evidence and verify steps", async () => {
    const root = await project();
    const client = await connect(root);
    const finding = {
      text: "Password reset tokens are compared with === instead of a constant-time comparison, leaking timing.",
      agents: ["security", "correctness"],
      evidence: ["src/reset.ts:1-3, checkResetToken() — token compared with ==="],
      verify: ["grep for === comparisons against reset tokens in src/"],
      durable: true,
      title: "Constant-time token comparison",
    };
    const dry = (await call(client, "compound", { run: "r9", findings: [finding], dryRun: true })).json;
    expect(dry).toMatchObject({ run: "r9", dryRun: true, restored: [], skipped: [] });
    expect(dry.created).toHaveLength(1);
    const done = (await call(client, "compound", { run: "r9", findings: [finding, { ...finding, text: "Only one agent saw this.", agents: ["security"] }] })).json;
    expect(done.created).toEqual(dry.created);
    expect(done.skipped).toEqual([expect.objectContaining({ text: "Only one agent saw this." })]);
    const file = await readFile(path.join(root, `knowledge/${done.created[0]}.md`), "utf8");
    expect(file).toContain("constant-time comparison");
    expect((await call(client, "check", {})).json.errors).toBe(0);
  });

  it("bad input and library errors become isError results, and the server keeps serving", async () => {
    const root = await project();
    const client = await connect(root);
    expect(await callError(client, "inject", { agent: "security", keywords: ["auth"] })).toMatch(/run/);
    expect(await callError(client, "check", { paths: ["knowledge/nope.md"] })).toMatch(/no such file or directory: knowledge\/nope\.md/);
    expect(await callError(client, "record_findings", { run: "r1", findings: [{ text: "no agent" }] })).toMatch(/agent/);
    expect((await call(client, "status", {})).json.entries).toHaveLength(8);
  });

  it("refuses run ids with hidden or control characters or padding, saying which, and treats PR-7 and pr-7 as one run", async () => {
    const root = await project();
    const client = await connect(root);
    const args = { agent: "security", keywords: ["auth", "middleware", "tokens"], limit: 1 };
    // The server drops what hides text from its output, so the client could not even see why two ids differed.
    expect(await callError(client, "inject", { ...args, run: "pr-7\u200b" })).toMatch(/run must not hold a character that shows nothing or reorders text \(U\+200B at position 5/);
    expect(await callError(client, "inject", { ...args, run: "PR-7 " })).toMatch(/run must not start or end with white space/);
    expect(await callError(client, "record_findings", { run: "pr\u001b-7", findings: [] })).toMatch(/run must be printable text, not a control character \(U\+001B/);
    expect(await ledgerEvents(root)).toEqual([]);
    const shown: string = (await call(client, "inject", { ...args, run: "PR-7" })).json.entries[0].id;
    const result = (await call(client, "record_findings", { run: "pr-7", findings: [{ agent: "security", text: "Middleware forgets a check.", entry: shown }] })).json;
    expect(result.confirmations).toEqual([expect.objectContaining({ entry: shown, provenance: "primed" })]);
    expect(result.warnings).toEqual([]);
    expect(await readFile(path.join(root, `knowledge/${shown}.md`), "utf8")).toContain("lastConfirmed: 2026-01-05");
  });

  it("records a client's name as the actor only as one printable line of at most 256 characters", async () => {
    const root = await project();
    // A name is the client's own claim: this one once went, 300 KB with its escapes and line breaks, into every event.
    const client = await connect(root, `evil\n\u001b[2J\u200bbot ${"x".repeat(300_000)}`);
    await call(client, "inject", { run: "r1", agent: "security", keywords: ["auth", "middleware"] });
    const actors = [...new Set((await ledgerEvents(root)).map((e) => e.actor as string))];
    expect(actors).toHaveLength(1);
    expect(actors[0]).toMatch(/^mcp:evil \[2Jbot x+…$/);
    expect(actors[0]!.length).toBe(256);
  });

  it("writes only protocol messages to stdout and exits 0 when the client closes stdin", async () => {
    const root = await project();
    const child = spawn(process.execPath, [CLI, "--root", root, "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "status", arguments: {} } });
    // Close stdin while the status call may still be running: the reply must still arrive.
    child.stdin.end();
    expect(await exited).toBe(0);
    const messages = stdout.trim().split("\n").map((line) => JSON.parse(line) as { id?: number; result?: any });
    expect(messages.map((m) => m.id)).toEqual([1, 2]);
    expect(JSON.parse(messages[1]!.result.content[0].text).entries).toHaveLength(8);
  });
});
