import { readdir, readFile } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openKnowledgeBase } from "../../src/knowledge-base.js";
import { serveHttp } from "../../src/mcp/http.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";
import { call, connectHttp, startHttpServer } from "./client.js";

function project(): Promise<string> {
  return testdir({
    ...SOURCE_FILES,
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    "knowledge/archive/.gitkeep": "",
    "knowledge/.ledger/.gitkeep": "",
    "knowledge/auth-ctx.md": entryText({ finding: "Auth middleware swallows context cancellation errors after upstream calls." }),
    "knowledge/sql-concat.md": entryText({ finding: "SQL queries built by string concatenation allow injection." }),
  });
}

/** A raw HTTP request (the Host header can be set, unlike with fetch). */
function raw(url: string, options: { method?: string; host?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: { ...(options.host ? { host: options.host } : {}), ...options.headers } }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

async function ledgerEvents(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(root, "knowledge/.ledger");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".jsonl"));
  const texts = await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")));
  return texts.flatMap((t) => t.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));
}

describe("cairn mcp --http (Streamable HTTP)", () => {
  it("serves /health, refuses foreign Host headers and unknown paths, and binds to 127.0.0.1 by default", async () => {
    const server = await startHttpServer(await project());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const health = await raw(`${server.base}/health`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: "ok", name: "cairn", sessions: 0 });
    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host header.
    const rebound = await raw(`${server.base}/health`, { host: "evil.example:80" });
    expect(rebound.status).toBe(403);
    expect((await raw(`${server.base}/health`, { host: "localhost" })).status).toBe(200);
    expect((await raw(`${server.base}/nope`)).status).toBe(404);
    const noSession = await raw(server.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
    expect(noSession.status).toBe(400);
    expect(noSession.body).toMatch(/initialize/);
  });

  it("on any loopback address (127.0.0.2, ::1 spelt out) refuses foreign Host headers, and foreign Origin headers everywhere", async () => {
    const root = await project();
    for (const host of ["127.0.0.2", "0:0:0:0:0:0:0:1"]) {
      const server = await startHttpServer(root, ["--host", host]);
      expect(server.stderr()).not.toMatch(/without authentication/);
      const health = `${server.base}/health`;
      expect((await raw(health, { host: "evil.example" })).status, host).toBe(403);
      expect((await raw(health, { host: "evil.example:80" })).status, host).toBe(403);
      expect((await raw(health)).status, host).toBe(200);
      expect((await raw(health, { host: "localhost:1" })).status, host).toBe(200);
    }
    const server = await startHttpServer(root);
    const health = `${server.base}/health`;
    // A page on evil.example posting to 127.0.0.1 sends a loopback Host but its own Origin.
    for (const origin of ["http://evil.example", "null", "http://127.0.0.1.evil.example:80"]) {
      const refused = await raw(health, { headers: { origin } });
      expect(refused.status, origin).toBe(403);
      expect(refused.body).toMatch(/is not a loopback origin/);
    }
    for (const origin of ["http://localhost:5173", "http://127.0.0.1", "http://[::1]:8080"]) expect((await raw(health, { headers: { origin } })).status, origin).toBe(200);
    expect((await raw(health, { host: "[0:0:0:0:0:0:0:1]:80" })).status).toBe(200);
    expect((await raw(health, { host: "127.0.0.1@evil.example" })).status).toBe(403);
  });

  it("keeps at most maxSessions sessions: a new one closes the least recently used idle one, whose client must initialize again", async () => {
    const kb = await openKnowledgeBase({ root: await project(), embedder: null });
    const stop = new AbortController();
    let url = "";
    const logs: string[] = [];
    const serving = serveHttp(kb, { port: 0, signal: stop.signal, maxSessions: 2, log: (m) => logs.push(m), onListening: (u) => (url = u) });
    try {
      while (!url) await new Promise((resolve) => setTimeout(resolve, 20));
      const health = async () => JSON.parse((await raw(url.replace(/\/mcp$/, "/health"))).body) as { sessions: number; maxSessions: number };
      const first = await connectHttp(url, "first");
      const second = await connectHttp(url, "second");
      await call(first, "status", {}); // first is now the more recently used
      const third = await connectHttp(url, "third");
      expect(await health()).toMatchObject({ sessions: 2, maxSessions: 2 });
      await expect(second.callTool({ name: "status", arguments: {} })).rejects.toThrow(/unknown or closed session/);
      expect((await call(first, "status", {})).json.entries).toHaveLength(2);
      expect((await call(third, "status", {})).json.entries).toHaveLength(2);
      expect(logs.join("\n")).toMatch(/2 sessions open \(maxSessions\): closed the least recently used idle one/);
      // 200 initializations leave two sessions, not 200.
      const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "flood", version: "1" } } });
      for (let i = 0; i < 200; i += 20) {
        await Promise.all(Array.from({ length: 20 }, () => raw(url, { method: "POST", body: init, headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } })));
      }
      expect((await health()).sessions).toBeLessThanOrEqual(2);
    } finally {
      stop.abort();
      expect(await serving).toBe(0);
    }
  });

  it("the SDK client lists the same tools and instructions, and two sessions share one knowledge base", async () => {
    const root = await project();
    const server = await startHttpServer(root);
    const first = await connectHttp(server.url, "orchestrator-a");
    const second = await connectHttp(server.url, "orchestrator-b");
    const { tools } = await first.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search", "inject", "record_findings", "compound", "status", "check", "get_entry", "history", "confirm", "new_entry", "diff", "verify"]);
    expect(first.getInstructions()).toMatch(/1\. inject/);

    const injected = (await call(first, "inject", { run: "pr-1", agent: "security", keywords: ["auth", "middleware", "cancellation"] })).json;
    expect(injected.entries.map((e: { id: string }) => e.id)).toContain("auth-ctx");
    // The other session sees the same ledger: auth-ctx now counts one run of injection.
    const entry = (await call(second, "get_entry", { id: "auth-ctx" })).json;
    expect(entry.entry.status.lastInjected).not.toBeNull();
    expect(JSON.parse((await raw(`${server.base}/health`)).body).sessions).toBe(2);

    // Each session's changes name its own client, even when they interleave on the shared knowledge base.
    await Promise.all([
      call(second, "inject", { run: "pr-1", agent: "perf", keywords: ["sql", "concatenation"] }),
      call(first, "confirm", { id: "sql-concat" }),
      call(second, "confirm", { id: "auth-ctx" }),
    ]);
    const events = await ledgerEvents(root);
    const actorOf = (type: string, key: (e: Record<string, unknown>) => boolean) => events.filter((e) => e.type === type && key(e)).map((e) => e.actor);
    expect(actorOf("injected", (e) => e.agent === "security")).toEqual(["mcp:orchestrator-a"]);
    expect(new Set(actorOf("injected", (e) => e.agent === "perf"))).toEqual(new Set(["mcp:orchestrator-b"]));
    expect(actorOf("manual-confirmed", (e) => e.entry === "sql-concat")).toEqual(["mcp:orchestrator-a"]);
    expect(actorOf("manual-confirmed", (e) => e.entry === "auth-ctx")).toEqual(["mcp:orchestrator-b"]);
  });

  it("stops on SIGTERM with exit code 0 after finishing; --host without --http is a usage error", async () => {
    const server = await startHttpServer(await project());
    const client = await connectHttp(server.url);
    expect((await call(client, "status", {})).json.entries).toHaveLength(2);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toMatch(/stopping: finishing requests in flight/);

    const usage = await cairn(["mcp", "--host", "0.0.0.0"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--host only applies with --http PORT/);
    expect((await cairn(["mcp", "--http", "99999"])).code).toBe(2);
  });

  it("closes sessions no request has used for sessionIdleMs (clients rarely end theirs)", async () => {
    const kb = await openKnowledgeBase({ root: await project(), embedder: null });
    const stop = new AbortController();
    let url = "";
    const serving = serveHttp(kb, { port: 0, signal: stop.signal, sessionIdleMs: 1500, log: () => {}, onListening: (u) => (url = u) });
    try {
      while (!url) await new Promise((resolve) => setTimeout(resolve, 20));
      const client = await connectHttp(url);
      expect((await call(client, "status", {})).json.entries).toHaveLength(2);
      const health = async () => JSON.parse((await raw(url.replace(/\/mcp$/, "/health"))).body).sessions as number;
      expect(await health()).toBe(1);
      const deadline = Date.now() + 15_000;
      while ((await health()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await health()).toBe(0);
      await expect(client.callTool({ name: "status", arguments: {} })).rejects.toThrow(/unknown or closed session/);
    } finally {
      stop.abort();
      expect(await serving).toBe(0);
    }
  });
});
