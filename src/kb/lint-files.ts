/** Every rule run now on a few named entry files: the inject gate's verdicts (`search --explain`) and the watcher's diagnostics. */
import type { GateVerdict } from "../check/gate.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { entryFileFor } from "../store/files.js";
import type { KbContext } from "./context.js";

/** The inject gate's verdict for each entry file (`search --explain`): would it be injected, and if not, which rules withhold it. */
export async function gateVerdicts(ctx: Pick<KbContext, "layout" | "config" | "today">, files: ReadonlyArray<{ path: string }>): Promise<Map<string, GateVerdict>> {
  const { createLinter } = await import("../check/engine.js");
  const { gateVerdict } = await import("../check/gate.js");
  const linter = await createLinter(ctx.layout, ctx.config);
  const out = new Map<string, GateVerdict>();
  for (const { path: rel } of files) {
    const file = entryFileFor(ctx.layout, rel);
    if (!file) continue;
    const { read, diagnostics } = await linter.lintFile(file, ctx.today());
    out.set(rel, gateVerdict(diagnostics, read.entry !== undefined));
  }
  return out;
}

/** Final diagnostics (every rule, config severities, inline disables) of some entry files, e.g. the ones a watcher saw change. */
export async function lintFiles(ctx: Pick<KbContext, "layout" | "config" | "today">, files: string[]): Promise<Diagnostic[]> {
  const { createLinter } = await import("../check/engine.js");
  const linter = await createLinter(ctx.layout, ctx.config);
  const out: Diagnostic[] = [];
  for (const rel of files) {
    const file = entryFileFor(ctx.layout, rel);
    if (!file) continue;
    const { read, diagnostics } = await linter.lintFile(file, ctx.today());
    // Renamed or deleted since the refresh indexed it (an editor's save in progress): the next refresh sees where it went.
    if (!read.bytes && diagnostics.every((d) => d.rule === "file-unreadable")) continue;
    out.push(...diagnostics);
  }
  return out;
}
