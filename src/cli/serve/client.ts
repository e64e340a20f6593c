/**
 * The client half of forwarding: hand the command line to a running `cairn watch` of the same root and print what
 * it answers. Undefined (run the command here) whenever the watcher cannot answer as this process would: none
 * running, another build, another environment, or anything odd about its socket.
 */
import { lstatSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { CairnError } from "../../errors.js";
import type { Io } from "../output.js";
import { readStdinBytes } from "../input.js";
import { decodeUtf8 } from "../../text/utf8.js";
import { buildId, isActorName, MAX_SOCKET_PATH, PROTOCOL, readLines, readsStdin, send, sharedEnv, socketPath, USE_WATCH_ENV, type Request, type WatcherMessage } from "./protocol.js";

/** How long a watcher may take to accept the command (it answers at once unless it is hung). */
const HELLO_MS = 5_000;

/** The exit code of the command as the watcher ran it, or undefined: run it in this process. `actor`: who acts, looked up here (the command records events). */
export async function viaWatch(argv: string[], root: string, io: Io, actor?: Promise<string>): Promise<number | undefined> {
  const mode = process.env[USE_WATCH_ENV]?.trim().toLowerCase();
  if (mode === "0" || mode === "off" || mode === "false" || mode === "no") return undefined;
  const required = mode === "require";
  const notServed = (why: string): undefined => {
    if (required) throw new CairnError("USAGE", `${USE_WATCH_ENV}=require, but no cairn watch ran the command: ${why}`);
    return undefined;
  };
  if (process.platform === "win32") return notServed("cairn watch serves commands on Linux and macOS only");
  const build = buildId();
  if (build === undefined) return notServed("this cairn is not the bundled command line (dist/bin/cairn.js)");
  const file = socketPath(root);
  const unsafe = unsafeSocket(file);
  if (unsafe) return notServed(unsafe);
  // This process's start: anything saved before the command was typed must be seen.
  const since = process.hrtime.bigint() - BigInt(Math.ceil(performance.now() * 1e6));
  // Standard input is read here, before connecting, as the command's own process would read it. It can be read only
  // once: `io.stdin` then gives it to the command, here if the watcher declines (before, that run read an empty stdin
  // and failed: "stdin is not valid JSON: the file is empty").
  let stdin: string | undefined;
  if (readsStdin(argv)) {
    const given = await (io.stdin ?? readStdinBytes)();
    io.stdin = () => Promise.resolve(given);
    if (typeof given === "string") stdin = given;
    else {
      // Bytes that are not UTF-8 are refused or read leniently by the command itself, which the request line (text) cannot carry.
      const decoded = decodeUtf8(given);
      if ("invalid" in decoded) return notServed("its standard input is not UTF-8 text");
      stdin = decoded.text;
    }
  }
  const acting = await actor;
  const request: Request = {
    v: PROTOCOL,
    build,
    root,
    argv,
    cwd: process.cwd(),
    since: since.toString(),
    env: sharedEnv(),
    tty: io.tty,
    color: io.color === true,
    ...(stdin !== undefined ? { stdin } : {}),
    ...(isActorName(acting) ? { actor: acting } : {}),
  };
  const answer = await exchange(file, request, io);
  if ("local" in answer) return undefined;
  return "exit" in answer ? answer.exit : notServed(answer.declined);
}

/** Why the socket at `file` must not be used, or undefined: a socket of this user in a real .cairn/ directory of this user. */
function unsafeSocket(file: string): string | undefined {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return `the socket path ${file} is longer than a Unix socket path may be`;
  const uid = process.getuid?.();
  const stat = (p: string) => {
    try {
      return lstatSync(p, { throwIfNoEntry: false });
    } catch {
      return undefined; // ENOTDIR (a --root that is a file), EACCES: the command's own process says what is wrong
    }
  };
  const dir = stat(path.dirname(file));
  if (!dir) return "no .cairn/ directory (no index built yet)";
  if (!dir.isDirectory()) return ".cairn/ is not a directory (a symbolic link is never followed)";
  // Anyone may replace a socket in a world-writable directory.
  if (dir.mode & 0o002) return ".cairn/ is writable by every user";
  const socket = stat(file);
  if (!socket) return "no cairn watch is running here";
  if (!socket.isSocket()) return ".cairn/watch.sock is not a socket";
  if (uid !== undefined && (socket.uid !== uid || dir.uid !== uid)) return ".cairn/watch.sock belongs to another user";
  return undefined;
}

/** The watcher ran the command (its exit code), declined it, or sent it back to be parsed here (a usage error or help). */
type Answer = { exit: number } | { declined: string } | { local: true };

/** Send the request and relay the watcher's output until it exits; a refusal before the command started is `declined`. */
function exchange(file: string, request: Request, io: Io): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(file);
    let settled = false;
    let pid = 0;
    /** Sent go: the watcher may run the command, so this process must not, whatever happens next (but a decline). */
    let committed = false;
    const settle = (outcome: Answer | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(() => settle({ declined: `cairn watch did not answer within ${HELLO_MS / 1000} s` }), HELLO_MS);
    socket.on("connect", () => send(socket, request));
    socket.on("error", (error) => {
      if (!committed) settle({ declined: `cannot reach cairn watch (${(error as NodeJS.ErrnoException).code ?? error.message}): it is not running, or was killed` });
    });
    socket.on("close", () => {
      if (!committed) return settle({ declined: "cairn watch closed the connection before running the command" });
      // The watcher may have run the command, or part of it: running it again here could apply it twice.
      settle(new CairnError("IO", `cairn watch (pid ${pid}) stopped while it ran the command, which may or may not have taken effect: check with cairn status or cairn history ID before running it again`));
    });
    readLines(socket, 256 * 1024 * 1024, (line) => {
      if (settled) return;
      let message: WatcherMessage;
      try {
        message = JSON.parse(line) as WatcherMessage;
      } catch {
        return socket.destroy();
      }
      if ("decline" in message) settle(message.local ? { local: true } : { declined: `cairn watch declined: ${message.decline}` });
      else if ("hello" in message) {
        clearTimeout(timer);
        pid = message.hello;
        committed = true;
        send(socket, { go: true });
      } else if ("out" in message) io.out(message.out);
      else if ("err" in message) io.err(message.err);
      else if ("raw" in message) (io.rawErr ?? ((text: string) => process.stderr.write(text)))(message.raw);
      else if ("exit" in message) settle({ exit: message.exit });
    });
  });
}
