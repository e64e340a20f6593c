/** A long-lived MCP server whose knowledge directory is moved, removed or swapped for a link while it serves. */
import { existsSync } from "node:fs";
import { rename, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { call, callError, connect } from "./client.js";

function project(): Promise<string> {
  return testdir({
    ...SOURCE_FILES,
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    "knowledge/archive/.gitkeep": "",
    "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    "knowledge/auth-retry.md": entryText({ finding: "Auth middleware retries upstream calls without backoff." }),
  });
}

const NEW_ENTRY = { slug: "revived", finding: "Auth middleware drops cancellation errors.", evidence: ["src/auth.ts:1-2, handleRequest()"], verify: ["grep for ctx.Err in src/auth.ts"] };

describe("cairn mcp when the knowledge directory goes away mid-session", () => {
  it("moved away: reads and writes say so and create nothing; moved back: the entries as they are now", async () => {
    const root = await project();
    const client = await connect(root);
    expect((await call(client, "status", {})).json.entries).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the watcher runs: reads trust it
    const away = path.join(root, "..", `${path.basename(root)}-knowledge-away`);
    await rename(path.join(root, "knowledge"), away);
    try {
      // It listed the two entries of a directory no longer there (the watcher of the moved one saw nothing).
      expect(await callError(client, "status", {})).toMatch(/no knowledge directory: knowledge\/ does not exist/);
      expect(await callError(client, "search", { query: "auth middleware" })).toMatch(/no knowledge directory/);
      // inject never blocks a review: an empty context with the warning, and no knowledge/.ledger/ made for it.
      const injected = (await call(client, "inject", { run: "r1", agent: "security", keywords: ["auth"] })).json;
      expect(injected.entries).toEqual([]);
      expect(injected.warnings.join("\n")).toMatch(/no knowledge directory/);
      expect(await callError(client, "new_entry", NEW_ENTRY)).toMatch(/no knowledge directory/);
      expect(await callError(client, "record_findings", { run: "r1", findings: [{ agent: "security", text: "x", entry: "auth-ctx" }] })).toMatch(/no knowledge directory/);
      expect(existsSync(path.join(root, "knowledge")), "a half layout was created").toBe(false);
      await rm(path.join(away, "auth-retry.md"));
    } finally {
      await rename(away, path.join(root, "knowledge"));
    }
    expect((await call(client, "status", {})).json.entries.map((e: { id: string }) => e.id)).toEqual(["auth-ctx"]);
    expect((await call(client, "search", { query: "retries upstream backoff" })).json.results).toEqual([]);
  });

  it("removed: a non-dry-run inject appends no event and recreates no directory", async () => {
    const root = await project();
    const client = await connect(root);
    await call(client, "search", { query: "auth middleware" });
    await rm(path.join(root, "knowledge"), { recursive: true });
    const injected = (await call(client, "inject", { run: "r1", agent: "security", keywords: ["auth", "middleware"] })).json;
    expect(injected.entries).toEqual([]);
    expect(existsSync(path.join(root, "knowledge"))).toBe(false);
    expect(await callError(client, "compound", { run: "r1", findings: [{ text: "Auth middleware drops cancellation errors.", agents: ["a", "b"], evidence: ["src/auth.ts:1-2"], verify: ["grep ctx.Err"], durable: true }] })).toMatch(/no knowledge directory/);
    expect(existsSync(path.join(root, "knowledge"))).toBe(false);
  });

  it("replaced by a link leaving the repository: search refuses, naming the link, instead of answering []", async () => {
    const root = await project();
    const client = await connect(root);
    expect((await call(client, "search", { query: "auth middleware" })).json.results.length).toBeGreaterThan(0);
    // Once the server's watcher runs, reads trust it: that is when the swap went unnoticed.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const outside = path.join(tmpdir(), `cairn-outside-${process.pid}-${Date.now()}`);
    await rename(path.join(root, "knowledge"), outside);
    try {
      await symlink(outside, path.join(root, "knowledge"));
      expect(await callError(client, "search", { query: "auth middleware" })).toMatch(/knowledge is a symbolic link to .*outside the repository root/);
      expect(await callError(client, "status", {})).toMatch(/symbolic link/);
    } finally {
      await rm(path.join(root, "knowledge"));
      await rename(outside, path.join(root, "knowledge"));
    }
    expect((await call(client, "search", { query: "auth middleware" })).json.results.length).toBeGreaterThan(0);
  });
});
