import path from "node:path";
import type { KnowledgeBase } from "../../knowledge-base.js";
import { EXIT, formatDiagnostics, type Io } from "../output.js";

/** Watch until SIGINT/SIGTERM, printing one line per index update. */
export async function watch(kb: KnowledgeBase, io: Io, opts: { debounce?: number; serve?: boolean }): Promise<number> {
  const stamp = () => new Date().toTimeString().slice(0, 8);
  let entries = 0;
  // Before anything is announced: a SIGTERM sent as soon as "watching" is read must stop the watcher cleanly (its
  // socket removed, its index saved), not kill it with the signal's default action.
  const stop = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  const handle = await kb.watch({
    ...(opts.debounce !== undefined ? { debounceMs: opts.debounce } : {}),
    onEvent: (event) => {
      switch (event.type) {
        case "ready":
          entries = event.entries;
          io.out(`${stamp()} watching ${kb.config.knowledgeDir}/ — ${event.entries} entries indexed (Ctrl-C to stop)`);
          break;
        case "updated": {
          const r = event.report;
          const parts = [["added", r.added], ["updated", r.updated], ["moved", r.moved], ["removed", r.removed], ["anchored code changed", r.codeChanged]]
            .filter(([, ids]) => (ids as string[]).length)
            .map(([label, ids]) => `${label} ${(ids as string[]).join(", ")}`);
          io.out(`${stamp()} ${parts.join("; ")} (${event.ms} ms${r.embedded ? `, ${r.embedded} embedded` : ""})`);
          for (const w of r.warnings) io.err(`${stamp()} warning: ${w}`);
          break;
        }
        case "invalid":
          io.err(formatDiagnostics(event.diagnostics, "human", { errors: event.diagnostics.length, warnings: 0 }).split("\n").slice(0, -1).join("\n") + "\n(files with errors are withheld from inject until fixed; a file that does not parse keeps its last good version in the index)");
          break;
        case "error":
          io.err(`${stamp()} error: ${event.message}`);
          break;
      }
    },
  });
  const stoppedEarly = await Promise.race([handle.ready.then(() => false), stop.then(() => true)]);
  const warn = (line: string) => io.err(`${stamp()} ${line}`);
  const serve = async () => (await import("../serve/server.js")).serveCommands(kb, { log: (line) => io.out(`${stamp()} ${line}`), warn, freshAsOf: (since) => handle.freshAsOf(since), entries: () => entries });
  // Serving is an extra: a socket that cannot be bound (EADDRINUSE, EACCES) leaves the watcher watching.
  const server = stoppedEarly || opts.serve === false ? undefined : await serve().catch((error: Error) => void warn(`not serving other commands: ${error.message}`));
  if (server) io.out(`${stamp()} other cairn commands of this repository run here (socket ${path.relative(kb.layout.root, server.path)}; CAIRN_USE_WATCH=0 runs one in its own process)`);
  await stop;
  try {
    await server?.close();
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}
