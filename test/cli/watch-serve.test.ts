/**
 * A running `cairn watch` runs the other commands of its repository (status, show, search, inject, confirm, record, …)
 * for their processes, with its index warm. Its answer must be the one the command would give in its own process:
 * same output and exit code, every file re-checked first (an edit made just before is seen), the client's working
 * directory, stdin and actor. Whatever would make it differ (another build, environment or configuration), or
 * anything odd about the socket, runs the command in its own process instead. Real processes throughout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { lstat, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sharedEnv } from "../../src/cli/serve/protocol.js";
import { cairn, CLI } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

type Watcher = { child: ChildProcess; out: string[]; err: string[]; stop: () => Promise<void> };
const running: Watcher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

/** Start `cairn watch` in `root` and wait until it serves commands (or, `serving: false`, until it is ready). */
async function startWatch(root: string, options: { env?: NodeJS.ProcessEnv; serving?: boolean; debounceMs?: number } = {}): Promise<Watcher> {
  const child = spawn(process.execPath, [CLI, "--root", root, "watch", "--debounce", String(options.debounceMs ?? 50)], { cwd: root, env: { ...process.env, NO_COLOR: "1", ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  const err: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const watcher: Watcher = {
    child,
    out,
    err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000); // a watcher that hangs fails its own test, not the suite
      await exited;
      clearTimeout(timer);
    },
  };
  running.push(watcher);
  const wanted = options.serving === false ? /watching / : /other cairn commands of this repository run here/;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cairn watch did not get ready:\n${out.join("")}\n${err.join("")}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out.push(chunk.toString());
      if (wanted.test(out.join(""))) clearTimeout(timer), resolve();
    });
    child.stderr!.on("data", (chunk: Buffer) => void err.push(chunk.toString()));
    child.once("exit", (code) => reject(new Error(`cairn watch exited with ${code}:\n${err.join("")}`)));
  });
  return watcher;
}

const served = (w: Watcher, command: string) => w.out.join("").split("\n").filter((l) => l.includes(`ran cairn ${command} for another process`)).length;

/** The watcher logs a command after answering it: wait for the lines. */
async function expectServed(w: Watcher, commands: string[], count: number): Promise<void> {
  const total = () => commands.reduce((sum, c) => sum + served(w, c), 0);
  await waitFor(() => total() >= count, 5_000).catch(() => undefined);
  expect(total()).toBe(count);
}
const viaWatch = { CAIRN_USE_WATCH: "require" };
const ownProcess = { CAIRN_USE_WATCH: "0" };

async function project(extra: Record<string, string> = {}): Promise<string> {
  return testdir({
    "cairn.config.json": JSON.stringify({ embedder: { provider: "none" } }),
    ...SOURCE_FILES,
    "knowledge/ctx.md": entryText({ fm: "title: Context cancellation\nlastConfirmed: 2026-02-12\nprovenance: independent" }),
    "knowledge/retry.md": entryText({ finding: "Retries never back off; add exponential backoff with jitter and a cap." }),
    ...extra,
  });
}

/** The ledger's events, in order. */
async function events(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = path.join(root, "knowledge/.ledger");
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".jsonl")).sort();
  const lines = (await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")))).join("").split("\n").filter(Boolean);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("cairn watch runs other commands of its repository", () => {
  it("read-only commands answer exactly as in their own process, and the watcher says it ran them", async () => {
    const root = await project();
    const w = await startWatch(root);
    for (const args of [["status"], ["status", "--json", "--all"], ["show", "ctx"], ["show", "no-such-entry"], ["search", "backoff jitter"], ["search", "backoff", "--json"], ["history", "ctx"]]) {
      const own = await cairn(["--root", root, ...args], { env: ownProcess });
      const there = await cairn(["--root", root, ...args], { env: viaWatch });
      expect({ args, ...there }).toEqual({ args, ...own });
    }
    await expectServed(w, ["status"], 2);
    await expectServed(w, ["show"], 2);
    await expectServed(w, ["search"], 2);
    // Help and usage errors are printed by the command's own process, even under CAIRN_USE_WATCH=require.
    const usage = await cairn(["--root", root, "status", "--bogus"], { env: viaWatch });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("unknown option '--bogus'");
    const help = await cairn(["--root", root, "status", "--help"], { env: viaWatch });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: cairn status");
    await expectServed(w, ["status"], 2);
  });

  it("`cairn index` while a watcher keeps the index says so at once (exit 0); `--rebuild` asks to stop it (exit 3), never a 60 s wait", async () => {
    const root = await project();
    await startWatch(root);
    const started = Date.now();
    const index = await cairn(["--root", root, "index"]);
    expect(index.code).toBe(0);
    expect(index.stdout).toMatch(/^the index is kept current by `cairn [^`]*watch[^`]*` \(pid \d+, since [^)]*\): nothing to do/);
    const rebuild = await cairn(["--root", root, "index", "--rebuild"]);
    expect(rebuild.code).toBe(3);
    expect(rebuild.stderr).toMatch(/holds the index and keeps it current; stop it to rebuild the index, then run cairn index --rebuild/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("sees a file edited, added or removed just before the command (every file is re-checked first)", async () => {
    const root = await project();
    // A debounce longer than the test: the watcher's own refresh after an edit would come too late to help.
    const w = await startWatch(root, { debounceMs: 60_000 });
    await writeFile(path.join(root, "knowledge/retry.md"), entryText({ finding: "Retries never back off; the zeppelin client hammers the upstream." }));
    await writeFile(path.join(root, "knowledge/fresh.md"), entryText({ finding: "Pagination cursors leak the primary key ordering." }));
    await rm(path.join(root, "knowledge/ctx.md"));
    const search = await cairn(["--root", root, "search", "zeppelin", "--json"], { env: viaWatch });
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { results: Array<{ id: string }> }).results.map((r) => r.id)).toEqual(["retry"]);
    const status = await cairn(["--root", root, "status", "--json"], { env: viaWatch });
    expect((JSON.parse(status.stdout) as { entries: Array<{ id: string }> }).entries.map((e) => e.id).sort()).toEqual(["fresh", "retry"]);
    await expectServed(w, ["search", "status"], 2);
    // Edit, then at once a command: it sees its edit (the watcher's own refresh counts only if it started after the
    // command's process did). The edit comes over 2 s after the last re-check, so no file is still "racily clean"
    // (re-read whatever its stat says) and only a re-check can find the edit. (Three rounds cost 6.6 s of waiting
    // in a suite at its time bound; a second round tests nothing the first does not.)
    for (let round = 0; round < 1; round++) {
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const word = `quokka${round}`;
      await writeFile(path.join(root, "knowledge/fresh.md"), entryText({ finding: `Pagination cursors leak the ${word} ordering.` }));
      const found = await cairn(["--root", root, "search", word, "--json"], { env: viaWatch });
      expect({ round, ids: (JSON.parse(found.stdout) as { results: Array<{ id: string }> }).results.map((r) => r.id) }).toEqual({ round, ids: ["fresh"] });
    }
  });

  it("writes what its own process would: confirm, inject and record, with the client's actor, stdin and working directory", async () => {
    const root = await project({ "reviews/findings.json": JSON.stringify({ findings: [{ agent: "perf", text: "Retries never back off; add exponential backoff with jitter." }] }) });
    const env = { CAIRN_ACTOR: "alice" };
    const w = await startWatch(root, { env });
    const confirm = await cairn(["--root", root, "confirm", "retry"], { env: { ...env, ...viaWatch } });
    expect(confirm).toMatchObject({ code: 0, stderr: "" });
    expect(confirm.stdout).toContain("confirmed retry");
    const inject = await cairn(["--root", root, "inject", "--run", "r1", "--agent", "security", "--keywords", "context,cancellation", "--format", "json"], { env: { ...env, ...viaWatch } });
    expect(inject.code).toBe(0);
    expect((JSON.parse(inject.stdout) as { entries: Array<{ id: string }> }).entries.map((e) => e.id)).toContain("ctx");
    // A relative --findings path is the client's, from its working directory; '-' is the client's stdin.
    const fromFile = await cairn(["--root", root, "record", "--run", "r1", "--findings", "findings.json", "--json"], { cwd: path.join(root, "reviews"), env: { ...env, ...viaWatch } });
    expect(fromFile.code).toBe(0);
    const fromStdin = await cairn(["--root", root, "record", "--run", "r2", "--findings", "-", "--json"], { env: { ...env, ...viaWatch }, input: JSON.stringify({ findings: [{ agent: "sec", text: "Context cancellation errors are swallowed after upstream calls." }] }) });
    expect(fromStdin.code).toBe(0);
    await expectServed(w, ["confirm", "inject", "record"], 4);
    const written = await events(root);
    expect(written.filter((e) => e.type === "injected").length).toBeGreaterThan(0);
    expect(new Set(written.map((e) => e.actor))).toEqual(new Set(["alice"]));
    // What the watcher wrote is what a new process reads.
    const status = JSON.parse((await cairn(["--root", root, "status", "--json"], { env: { ...env, ...ownProcess } })).stdout) as { entries: Array<{ id: string; lastConfirmed?: string }> };
    expect(status.entries.find((e) => e.id === "retry")?.lastConfirmed).toBe(new Date().toISOString().slice(0, 10));
  });

  it("records the actor the client's git configuration names at each command (looked up by the client, not once per watcher)", async () => {
    const root = await project();
    await git(root, "init", "-q");
    await git(root, "config", "user.name", "Carol");
    // retract deletes only what git has.
    await git(root, "config", "user.email", "carol@example.com");
    await git(root, "add", "-A");
    await git(root, "-c", "commit.gpgsign=false", "commit", "-qm", "entries");
    // No CAIRN_ACTOR: the name comes from `git config user.name` in the root, as in a command's own process.
    const env = { CAIRN_ACTOR: "", GIT_CONFIG_NOSYSTEM: "1", HOME: root, XDG_CONFIG_HOME: root };
    const w = await startWatch(root, { env });
    expect((await cairn(["--root", root, "confirm", "retry"], { env: { ...env, ...viaWatch } })).code).toBe(0);
    await git(root, "config", "user.name", "Dave");
    expect((await cairn(["--root", root, "retract", "ctx"], { env: { ...env, ...viaWatch } })).code).toBe(0);
    await expectServed(w, ["confirm", "retract"], 2);
    const acted = (await events(root)).filter((e) => e.type === "manual-confirmed" || e.type === "retracted").map((e) => [e.type, e.actor]);
    expect(acted).toEqual([["manual-confirmed", "Carol"], ["retracted", "Dave"]]);
  });

  it("declines a client whose environment differs (another actor): the command runs in its own process, as that actor", async () => {
    const root = await project();
    const w = await startWatch(root, { env: { CAIRN_ACTOR: "alice" } });
    const bob = await cairn(["--root", root, "confirm", "retry"], { env: { CAIRN_ACTOR: "bob" } });
    expect(bob.code).toBe(0);
    expect((await events(root)).filter((e) => e.type === "manual-confirmed").map((e) => e.actor)).toEqual(["bob"]);
    expect(served(w, "confirm")).toBe(0);
    expect(w.err.join("")).toContain("another environment");
    const required = await cairn(["--root", root, "status"], { env: { CAIRN_ACTOR: "bob", ...viaWatch } });
    expect(required.code).toBe(2);
    expect(required.stderr).toContain("CAIRN_USE_WATCH=require, but no cairn watch ran the command: cairn watch declined: another environment");
    // Standard input is read once, before asking: a declined command still gets it (before, it read an empty stdin).
    const findings = JSON.stringify({ findings: [{ agent: "a", text: "Retries never back off; add exponential backoff with jitter and a cap." }] });
    const record = await cairn(["--root", root, "record", "--run", "r1", "--findings", "-", "--dry-run", "--json"], { env: { CAIRN_ACTOR: "bob" }, input: findings });
    expect(record.code, record.stderr).toBe(0);
    expect((JSON.parse(record.stdout) as { confirmations: Array<{ entry: string }> }).confirmations.map((c) => c.entry)).toEqual(["retry"]);
    // Bytes that are not UTF-8 are refused by the command itself, with where they are, never sent to the watcher as text.
    const latin1 = Buffer.concat([Buffer.from(findings.slice(0, 40)), Buffer.from([0xe9]), Buffer.from(findings.slice(40))]);
    const refused = await cairn(["--root", root, "record", "--run", "r1", "--findings", "-", "--dry-run"], { env: { CAIRN_ACTOR: "alice" }, input: latin1 });
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining("cannot read findings: stdin:1:41: byte 0xe9 is not UTF-8")]);
    expect(served(w, "record")).toBe(0);
  });

  it("declines once cairn.config.json changed: the answer follows the new configuration", async () => {
    const root = await project();
    const w = await startWatch(root);
    await writeFile(path.join(root, "cairn.config.json"), JSON.stringify({ embedder: { provider: "none" }, decayAfterRuns: 3 }));
    const status = await cairn(["--root", root, "status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("/3");
    expect(served(w, "status")).toBe(0);
    expect(w.err.join("")).toContain("cairn.config.json changed since cairn watch started");
  });

  it("a killed watcher's socket: commands run in their own process, and the next watcher takes the socket over", async () => {
    const root = await project();
    const first = await startWatch(root);
    first.child.kill("SIGKILL");
    await first.stop();
    expect((await lstat(path.join(root, ".cairn/watch.sock"))).isSocket()).toBe(true);
    const own = await cairn(["--root", root, "status"]);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain("retry");
    const required = await cairn(["--root", root, "status"], { env: viaWatch });
    expect(required.code).toBe(2);
    expect(required.stderr).toMatch(/cannot reach cairn watch \(ECONNREFUSED\)/);
    const second = await startWatch(root);
    expect((await cairn(["--root", root, "status"], { env: viaWatch })).code).toBe(0);
    await expectServed(second, ["status"], 1);
    // Stopping removes the socket.
    await second.stop();
    await expect(lstat(path.join(root, ".cairn/watch.sock"))).rejects.toThrow(/ENOENT/);
  });

  it("a watcher that dies while it runs a command: the client says so and never runs it again itself; one that dies before, and it does", async () => {
    // A stand-in for a watcher killed with SIGKILL at the two moments that matter: after it took the command (hello,
    // then the client's go) and before. The client is the real command line.
    const root = await project();
    await mkdir(path.join(root, ".cairn"), { recursive: true, mode: 0o755 });
    const before = { entry: await readFile(path.join(root, "knowledge/ctx.md"), "utf8"), events: (await events(root)).length };
    const dying = async (after: "go" | "request") => {
      const server = net.createServer((socket) => {
        let data = "";
        socket.on("data", (chunk) => {
          data += chunk.toString();
          const lines = data.split("\n").filter(Boolean);
          if (after === "request" && lines.length >= 1) return void socket.destroy();
          if (lines.length === 1 && data.endsWith("\n")) socket.write(`${JSON.stringify({ hello: 4242 })}\n`);
          if (lines.length >= 2) socket.destroy(); // the go arrived: the command would be running now
        });
      });
      await new Promise<void>((resolve) => server.listen(path.join(root, ".cairn/watch.sock"), resolve));
      return () => new Promise<void>((resolve) => server.close(() => resolve()));
    };

    const close = await dying("go");
    const killed = await cairn(["--root", root, "confirm", "ctx"]);
    await close();
    expect(killed.code).toBe(3); // an I/O failure: the command's outcome is unknown
    expect(killed.stderr).toMatch(/cairn watch \(pid 4242\) stopped while it ran the command, which may or may not have taken effect: check with cairn status or cairn history ID before running it again/);
    expect(killed.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // Not applied a second time by the client: nothing changed here.
    expect(await readFile(path.join(root, "knowledge/ctx.md"), "utf8")).toBe(before.entry);
    expect((await events(root)).length).toBe(before.events);

    const closeEarly = await dying("request");
    const own = await cairn(["--root", root, "confirm", "ctx"]);
    await closeEarly();
    expect(own.code).toBe(0);
    expect((await events(root)).filter((e) => e.type === "manual-confirmed" && e.entry === "ctx")).toHaveLength(1);
  });

  it("only this user may connect, and a .cairn/watch.sock that is not a socket is never removed or used", async () => {
    const root = await project();
    const w = await startWatch(root);
    expect((await lstat(path.join(root, ".cairn/watch.sock"))).mode & 0o777).toBe(0o600);
    await w.stop();
    await writeFile(path.join(root, ".cairn/watch.sock"), "not a socket");
    const again = await startWatch(root, { serving: false });
    await waitFor(() => again.err.join("").includes("not serving other commands"));
    expect(await readFile(path.join(root, ".cairn/watch.sock"), "utf8")).toBe("not a socket");
    const status = await cairn(["--root", root, "status"]);
    expect(status.code).toBe(0);
    expect((await cairn(["--root", root, "status"], { env: viaWatch })).stderr).toContain(".cairn/watch.sock is not a socket");
  });

  it("a .cairn that is a symbolic link (a hostile change can commit one) is never followed to a socket", async () => {
    const root = await project();
    expect((await cairn(["--root", root, "index"])).code).toBe(0);
    await rm(path.join(root, ".cairn"), { recursive: true });
    // Someone else's socket place: a watcher of another project, reached through the link.
    const other = await project();
    const theirs = await startWatch(other);
    await symlink(path.join(other, ".cairn"), path.join(root, ".cairn"));
    const required = await cairn(["--root", root, "status"], { env: viaWatch });
    expect(required.stderr).toContain(".cairn/ is not a directory (a symbolic link is never followed)");
    expect(served(theirs, "status")).toBe(0);
  });

  it("a request that is not the same build, not a forwarded command, or not JSON is declined or dropped without running anything; one that is runs as the actor it names", async () => {
    const root = await project();
    const w = await startWatch(root);
    const socket = path.join(root, ".cairn/watch.sock");
    const build = (await readFile(path.join(path.dirname(CLI), "build-id"), "utf8")).trim();
    const base = { v: 1, build, root, cwd: root, since: "0", env: {}, tty: false, color: false };
    expect(await ask(socket, { ...base, build: "0.0.0+evil", argv: ["status"] })).toEqual([{ decline: expect.stringContaining("another build of cairn") }]);
    expect(await ask(socket, { ...base, root: "/", argv: ["status"] })).toEqual([{ decline: expect.stringContaining("another root") }]);
    const sameEnv = sharedEnv(process.env);
    for (const argv of [["watch"], ["mcp", "--http", "0"], ["new", "x", "--finding", "y"], ["init"], ["lsp"]]) {
      const answer = await askRaw(socket, `${JSON.stringify({ ...base, env: sameEnv, argv })}\n${JSON.stringify({ go: true })}\n`);
      expect(answer).toEqual([{ hello: w.child.pid }, { decline: "this command is not one cairn watch runs for others" }]);
    }
    expect(await askRaw(socket, "{not json\n")).toEqual([]);
    // The actor a client looked up is a name: anything else is not a request of this protocol.
    for (const actor of ["", "  ", " Zed", "Zed\n", "Zed\u001b[31m", "z".repeat(257), 7, null, { name: "x" }]) {
      expect(await ask(socket, { ...base, env: sameEnv, argv: ["confirm", "retry"], actor })).toEqual([{ decline: "a malformed request" }]);
    }
    // A client that gave up before sending go (it runs the command itself): the watcher never runs it.
    expect(await askRaw(socket, `${JSON.stringify({ ...base, env: sameEnv, argv: ["confirm", "retry"] })}\n`, 300)).toEqual([{ hello: w.child.pid }]);
    // The client sends its stdin with the request (read before connecting): a request without it reads nothing.
    const noInput = await askRaw(socket, `${JSON.stringify({ ...base, env: sameEnv, argv: ["record", "--run", "r9", "--findings", "-"] })}\n${JSON.stringify({ go: true })}\n`);
    expect(noInput.at(-1)).toEqual({ exit: 2 });
    expect(JSON.stringify(noInput)).toContain("sent no standard input");
    // A --root after the command name (commander takes it there) must be this root.
    const elsewhere = await askRaw(socket, `${JSON.stringify({ ...base, env: sameEnv, argv: ["confirm", "retry", "--root", "/elsewhere"] })}\n${JSON.stringify({ go: true })}\n`);
    expect(elsewhere.at(-1)).toEqual({ decline: "another root (--root /elsewhere)" });
    expect((await events(root)).filter((e) => e.type === "manual-confirmed" || e.run === "r9")).toEqual([]);
    // The actor the client sends is the one recorded (the client looked it up; the watcher does not again).
    const named = await askRaw(socket, `${JSON.stringify({ ...base, env: sameEnv, argv: ["confirm", "retry"], actor: "Zed Client" })}\n${JSON.stringify({ go: true })}\n`);
    expect(named.at(-1)).toEqual({ exit: 0 });
    expect((await events(root)).filter((e) => e.type === "manual-confirmed").map((e) => e.actor)).toEqual(["Zed Client"]);
    expect(served(w, "status")).toBe(0);
    // The watcher still serves.
    expect((await cairn(["--root", root, "status"], { env: viaWatch })).code).toBe(0);
  });
});

function ask(socket: string, request: unknown): Promise<unknown[]> {
  return askRaw(socket, `${JSON.stringify(request)}\n`);
}

/** Send `text`, collect the answer lines until the watcher closes or `ms` pass. */
function askRaw(socket: string, text: string, ms = 5_000): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const client = net.createConnection(socket, () => client.write(text));
    let data = "";
    client.on("data", (chunk) => (data += chunk.toString()));
    client.on("error", reject);
    client.on("close", () => resolve(data.split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown)));
    setTimeout(() => client.destroy(), ms).unref();
  });
}

function git(cwd: string, ...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")} exited with ${code}`))));
  });
}

async function waitFor(condition: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("cairn watch stops", () => {
  it("on SIGTERM with a client connected that never sent a command, and removes its socket", async () => {
    const root = await project();
    const w = await startWatch(root);
    const idle = net.createConnection(path.join(root, ".cairn/watch.sock"));
    idle.on("error", () => undefined); // reset when the watcher drops it
    await new Promise<void>((resolve) => idle.once("connect", () => resolve()));
    const exited = new Promise<number | null>((resolve) => w.child.once("exit", (code) => resolve(code)));
    w.child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 15_000))]);
    idle.destroy();
    expect(code).toBe(0);
    await expect(lstat(path.join(root, ".cairn/watch.sock"))).rejects.toThrow(/ENOENT/);
  });

  it("exits on SIGTERM when its last refresh finds an entry anchored on a new source directory (it never starts watching again after close)", async () => {
    const root = await project();
    const child = spawn(process.execPath, [CLI, "--root", root, "watch", "--debounce", "5000", "--no-serve"], { cwd: root, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => void (out += chunk.toString()));
    await waitFor(() => out.includes("watching "));
    // Written within the debounce: only the final refresh of close() sees the new anchor.
    await mkdir(path.join(root, "lib/cache"), { recursive: true });
    await writeFile(path.join(root, "lib/cache/reload.ts"), "export function reload() {\n  return 1;\n}\n");
    await writeFile(path.join(root, "knowledge/reload.md"), entryText({ finding: "Reload never clears the cache.", evidence: "lib/cache/reload.ts:1-2, reload() — the cache is kept." }));
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 15_000))]);
    if (code === "hung") child.kill("SIGKILL");
    expect(code).toBe(0);
  });
});
