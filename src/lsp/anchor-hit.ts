/**
 * The evidence anchor under the cursor, resolved by the same resolver as `cairn check`
 * (src/anchors/), and the lines it points at, read through that resolver's realpath-checked cache.
 */
import path from "node:path";
import type { Position } from "vscode-languageserver";
import { repoFiles } from "../anchors/repo-files.js";
import type { LineRange, ResolvedAnchor } from "../anchors/types.js";
import type { Anchor, Entry } from "../entry/types.js";
import { anchorAt } from "./positions.js";
import type { OpenEntry, Workspace } from "./workspace.js";

export type AnchorHit = { anchor: Anchor; entry: Entry; resolved: ResolvedAnchor };

export async function anchorUnder(ws: Workspace, open: OpenEntry, position: Position): Promise<AnchorHit | undefined> {
  const { entry } = ws.parse(open);
  const anchor = entry && anchorAt(entry.evidence.anchors, position);
  if (!entry || !anchor) return undefined;
  return { anchor, entry, resolved: await ws.generation().resolver.locate(anchor, entry) };
}

/** The lines to show or jump to: a symbol's definition, else where the cited lines are now (the resolver sets `range` only when they moved). */
export function targetLines(resolved: ResolvedAnchor): LineRange | undefined {
  if (resolved.status !== "resolved") return undefined;
  const { startLine, endLine } = resolved.anchor;
  return resolved.definition ?? resolved.range ?? (startLine !== undefined ? { start: startLine, end: endLine ?? startLine } : undefined);
}

export type AnchoredFile = { abs: string; lines: string[] } | { abs: string; error: string };

/** A file an anchor resolved to (`file` is relative to the repository, or to the other checkout for an anchor into another repository), with its lines. */
export async function anchoredFile(ws: Workspace, resolved: ResolvedAnchor, file: string): Promise<AnchoredFile> {
  const { root } = ws.layout;
  const checkout = resolved.repo !== undefined ? ws.kb.config.repos?.[resolved.repo] : undefined;
  const base = checkout !== undefined ? path.resolve(root, checkout) : root;
  const files = checkout !== undefined ? repoFiles(base) : ws.generation().resolver.locator.files;
  const abs = path.join(base, file);
  const facts = await files.facts(file);
  return "error" in facts ? { abs, error: facts.error } : { abs, lines: facts.lines };
}
