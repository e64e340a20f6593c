/** The real MCP SDK client against the built CLI (stdio) or a running `cairn mcp --http` process. */
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { CLI } from "../helpers/cli.js";
import { releaseAfterEachTest } from "../helpers/cleanup.js";

const open: Client[] = [];
const servers: ChildProcess[] = [];
/** Close every client and kill every server started in this test (also run after each test). */
export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    if (server.exitCode !== null || server.signalCode !== null) continue;
    const gone = new Promise((resolve) => server.once("close", resolve));
    server.kill("SIGKILL");
    await gone;
  }
}

releaseAfterEachTest("processes", closeAll);

/** A client (named `name`) connected over stdio to `cairn --root ROOT mcp`. */
export async function connect(root: string, name = "cairn-test"): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "--root", root, "mcp"], cwd: root, stderr: "pipe" });
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(transport);
  open.push(client);
  return client;
}

export type HttpServer = { child: ChildProcess; url: string; base: string; stderr: () => string; exited: Promise<number | null> };

/** Start `cairn --root ROOT mcp --http 0 [args]` and wait for the address it logs. Killed after the test. */
export async function startHttpServer(root: string, args: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [CLI, "--root", root, "mcp", "--http", "0", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  servers.push(child);
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    exited.then((code) => reject(new Error(`cairn mcp --http exited with ${code} before listening:\n${stderr}`)));
  });
  return { child, url, base: url.replace(/\/mcp$/, ""), stderr: () => stderr, exited };
}

/** A client connected over Streamable HTTP to `url`. */
export async function connectHttp(url: string, name = "cairn-test"): Promise<Client> {
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  open.push(client);
  return client;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

/** Call a tool that must succeed; return its JSON payload (checking the text and structuredContent agree). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ json: any }> {
  const raw = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = raw.content[0]?.text ?? "";
  if (raw.isError) throw new Error(`tool ${name} failed: ${text}`);
  const json = JSON.parse(text);
  expect(raw.structuredContent).toEqual(json);
  return { json };
}

/** Call a tool that must fail; return the error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const raw = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(raw.isError, JSON.stringify(raw)).toBe(true);
  return raw.content[0]?.text ?? "";
}
