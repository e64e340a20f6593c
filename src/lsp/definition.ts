/**
 * Go to definition on an evidence anchor: the anchored file at the lines it points at now (a
 * symbol's definition, or the cited lines where they moved); every file of a glob or directory.
 */
import path from "node:path";
import type { Location, Position, Range } from "vscode-languageserver";
import { anchoredFile, anchorUnder, targetLines } from "./anchor-hit.js";
import { pathToUri } from "./documents.js";
import { linesRange } from "./positions.js";
import type { OpenEntry, Workspace } from "./workspace.js";

/** Locations returned at most for a glob or a directory. */
const MAX_LOCATIONS = 50;
const TOP: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export async function definition(ws: Workspace, open: OpenEntry, position: Position): Promise<Location[] | null> {
  const hit = await anchorUnder(ws, open, position);
  if (!hit) return null;
  const { resolved } = hit;
  if (resolved.file !== undefined) {
    const read = await anchoredFile(ws, resolved, resolved.file);
    if ("error" in read) return null;
    const lines = targetLines(resolved);
    return [{ uri: pathToUri(read.abs), range: lines ? linesRange(lines.start, lines.end, read.lines) : TOP }];
  }
  // A glob, a directory or an ambiguous name: its files come from the repository's listing (never through a link).
  if (resolved.status !== "resolved" || resolved.repo !== undefined || !resolved.files.length) return null;
  return resolved.files.slice(0, MAX_LOCATIONS).map((file) => ({ uri: pathToUri(path.join(ws.layout.root, file)), range: TOP }));
}
