/** Render a knowledge diff as markdown for a pull-request comment. Pure. */
import { decayText, eventsText } from "./effect-text.js";
import { CHANGE_KINDS, type BodySection, type ChangeKind, type DiffEntry, type KnowledgeDiff, type LedgerEffect } from "./types.js";

export type RenderOptions = {
  /** Bullets shown per section before "… and N more". Default 100. */
  maxPerSection?: number;
  /** Characters of the finding shown per entry. Default 120. */
  findingLength?: number;
};

const TITLES: Record<ChangeKind, string> = {
  added: "Added",
  retracted: "Retracted",
  restored: "Restored",
  archived: "Archived",
  edited: "Edited",
  confirmed: "Confirmed",
  renamed: "Renamed",
};

export function renderDiffMarkdown(diff: KnowledgeDiff, options: RenderOptions = {}): string {
  const max = options.maxPerSection ?? 100;
  const findingLength = options.findingLength ?? 120;
  const lines = [`## Knowledge changes (${lineText(diff.base, 80)}..${lineText(diff.head, 80)})`, "", ...layoutLines(diff)];
  const counts = CHANGE_KINDS.map((kind) => [kind, diff[kind].length] as const).filter(([, n]) => n > 0);
  const pushed = (diff.ledgerEffects ?? []).filter((e) => e.flag === "past-limit").length;
  const ledger = ledgerSummary(diff.ledger) + (pushed ? ` · ⚠️ ${pushed} ${pushed === 1 ? "entry" : "entries"} pushed past ${pushed === 1 ? "its" : "their"} decay limit` : "");
  if (counts.length === 0) {
    lines.push(ledger ? `No entry changes. ${ledger}` : diff.problems.length ? "No entry changes." : "No knowledge changes.");
  } else {
    const summary = counts.map(([kind, n]) => `${n} ${kind}`).join(" · ");
    lines.push(`**${summary}**${ledger ? ` · ${ledger}` : ""}`);
    const broken = CHANGE_KINDS.flatMap((kind) => diff[kind]).filter((e) => e.errors?.length && e.kinds[0] !== "retracted").length;
    if (broken) lines.push("", `⚠️ ${broken} changed ${broken === 1 ? "entry has" : "entries have"} errors at ${lineText(diff.head, 80)} — run \`cairn check\`.`);
    for (const [kind, n] of counts) {
      lines.push("", `### ${TITLES[kind]} (${n})`, "");
      for (const entry of diff[kind].slice(0, max)) lines.push(bullet(entry, findingLength));
      if (n > max) lines.push(`- … and ${n - max} more (run \`cairn diff\` locally to see them all)`);
    }
  }
  if (diff.ledgerEffects?.length) {
    const effects = diff.ledgerEffects;
    lines.push("", `### Decay counters moved by new ledger events (${effects.length})`, "");
    for (const effect of effects.slice(0, max)) lines.push(effectBullet(effect));
    if (effects.length > max) lines.push(`- … and ${effects.length - max} more (run \`cairn diff --json\` to see them all)`);
  }
  if (diff.problems.length) {
    lines.push("", `### Problems (${diff.problems.length})`, "");
    for (const p of diff.problems.slice(0, max)) lines.push(`- ${p.severity === "error" ? "❌" : "⚠️"} ${code(`${p.file}:${p.line}`)} ${code(p.rule)} ${lineText(p.message, 600)}`);
    if (diff.problems.length > max) lines.push(`- … and ${diff.problems.length - max} more (run \`cairn diff\` locally to see them all)`);
  }
  if (diff.warnings.length) {
    lines.push("", "### Warnings", "");
    for (const warning of diff.warnings) lines.push(`- ⚠️ ${lineText(warning, 600)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A moved knowledge directory or a submodule comes first: it changes where every entry is read from. */
function layoutLines(diff: KnowledgeDiff): string[] {
  const place = (where: string, via: string | undefined) => (via === undefined ? code(where) : `${code(where)} (reached as ${code(via)})`);
  const lines = (diff.moved ?? []).map((m) => {
    const what = m.dir === "knowledge" ? "The knowledge directory" : m.dir === "archive" ? "The archive" : "The ledger";
    return `> ⚠️ **${what} moved: ${place(m.from, m.fromVia)} → ${place(m.to, m.toVia)}.** Each entry is compared with the file at the same place in the other revision; review the move itself too.`;
  });
  for (const p of diff.problems.filter((p) => p.rule === "knowledge-dir-submodule")) {
    lines.push(
      p.severity === "error"
        ? `> ❌ **${code(p.file)} is a git submodule: cairn cannot see inside a submodule; its entries are not reviewed here.**`
        : `> ⚠️ **${code(p.file)} is a git submodule**, pinned to the same commit on both sides: its entries did not change here, but cairn cannot review them.`,
    );
  }
  return lines.length ? [...lines, ""] : [];
}

function ledgerSummary(ledger: Record<string, number>): string {
  const parts = Object.entries(ledger).filter(([, n]) => n > 0);
  if (parts.length === 0) return "";
  const total = parts.reduce((sum, [, n]) => sum + n, 0);
  return `ledger: +${total} event${total === 1 ? "" : "s"} (${parts.map(([type, n]) => `${n} ${escapeText(type)}`).join(", ")})`;
}

/** `⚠️ \`ctx-cancel\` · decay 1/10 → 11/10, past the limit: … — 10 new events (10 injected) from 10 runs (ci-1, …)` */
function effectBullet(effect: LedgerEffect): string {
  const { before: was, after: now } = effect;
  const parts = [decayText(effect)];
  if (effect.flag === "past-limit") parts[0] += ", past the limit: inject withholds it and the next record or decay archives it";
  else if (now.standing !== was.standing && effect.state === "active") parts[0] += STANDING[now.standing];
  if (was.heldOutRuns !== now.heldOutRuns) parts.push(`withheld in ${was.heldOutRuns} → ${now.heldOutRuns} runs`);
  if (was.independent !== now.independent) parts.push(`independent confirmations ${was.independent} → ${now.independent}`);
  if (was.primed !== now.primed) parts.push(`primed confirmations ${was.primed} → ${now.primed}`);
  const where = effect.state === "archived" ? " (archived)" : effect.state === "none" ? " (no entry has this id)" : "";
  return `- ${effect.flag ? "⚠️ " : ""}${code(effect.id)}${where} · ${parts.join("; ")} — ${lineText(eventsText(effect), 300)}`;
}

const STANDING: Record<LedgerEffect["after"]["standing"], string> = {
  window: ", back inside its window",
  "near-decay": ", near decay",
  "last-chance": ", one run from decay: holdout withholds it",
  "past-limit": ", past the limit",
};

function bullet(entry: DiffEntry, findingLength: number): string {
  const text = oneLine(entry.finding) || oneLine(entry.title ?? "");
  const finding = text ? inline(truncate(text, findingLength)) : "_(no finding)_";
  return `- ${code(entry.id)} · ${code(entry.path)} — ${finding} — ${details(entry).join("; ")}`;
}

/** What changed, most significant first, then decay and errors. */
export function details(entry: DiffEntry): string[] {
  const out: string[] = [];
  const provenance = entry.provenance ? ` (${lineText(entry.provenance, 40)})` : "";
  for (const kind of entry.kinds) {
    switch (kind) {
      case "added":
        out.push(entry.state === "archived" ? "new, directly in the archive" : "new entry");
        if (entry.lastConfirmed) out.push(`lastConfirmed ${lineText(entry.lastConfirmed, 40)}${provenance}`);
        break;
      case "retracted":
        out.push(entry.state === "archived" ? "deleted from the archive" : "deleted");
        if (entry.lastConfirmed) out.push(`was last confirmed ${lineText(entry.lastConfirmed, 40)}`);
        break;
      case "restored":
        out.push(entry.previousPath ? `restored from ${code(entry.previousPath)}` : "restored");
        break;
      case "archived": {
        const when = entry.archived ? ` ${lineText(entry.archived, 40)}` : "";
        out.push(entry.archivedReason ? `archived${when}: “${lineText(entry.archivedReason, 200)}”` : `archived${when} (no archivedReason)`);
        break;
      }
      case "edited":
        out.push(edited(entry));
        break;
      case "confirmed":
        out.push(`lastConfirmed ${lineText(entry.confirmedFrom ?? "?", 40)} → ${lineText(entry.lastConfirmed ?? "?", 40)}${provenance}`);
        break;
      case "renamed":
        out.push(entry.previousId ? `id renamed from ${code(entry.previousId)}` : `renamed from ${code(entry.previousPath ?? "?")}`);
        if (entry.previousId && entry.historyLeft) {
          out.push(`⚠️ its ledger history stays with ${code(entry.previousId)} (decay ${entry.historyLeft.unconfirmedRuns}/${entry.decay?.decayAfterRuns ?? "?"} there; it starts again at 0): add ${code(`id: ${entry.previousId}`)} to the frontmatter to keep it`);
        }
        break;
    }
  }
  if (entry.decay) {
    if (entry.lastConfirmed && !entry.kinds.includes("added") && !entry.kinds.includes("confirmed")) out.push(`last confirmed ${lineText(entry.lastConfirmed, 40)}`);
    out.push(`decay ${entry.decay.unconfirmedRuns}/${entry.decay.decayAfterRuns}${entry.decay.nearDecay ? " ⚠️ near decay" : ""}`);
  }
  if (entry.errors?.length && entry.kinds[0] !== "retracted") {
    const what = entry.unparsable === "head" || entry.unparsable === "both" ? "does not parse" : `${entry.errors.length} error${entry.errors.length === 1 ? "" : "s"}`;
    out.push(`⚠️ ${what}: ${lineText(entry.errors[0] ?? "", 160)}`);
  }
  return out;
}

function edited(entry: DiffEntry): string {
  if (entry.unparsable === "both") return "changed (does not parse at either revision)";
  if (entry.unparsable === "head") return "edited";
  if (entry.unparsable === "base") return "fixed (did not parse before)";
  if (entry.formattingOnly) return "formatting only";
  const parts: string[] = [];
  if (entry.sections?.length) parts.push(`${andList(entry.sections as BodySection[])} edited`);
  if (entry.metadata?.length) parts.push(`metadata changed: ${entry.metadata.map((key) => lineText(key, 60)).join(", ")}`);
  return parts.join("; ") || "edited";
}

function andList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** A code span that survives backticks inside the value. */
export function code(raw: string): string {
  const value = raw.replace(/[\r\n]+/g, " ");
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = value.startsWith("`") || value.endsWith("`") ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Keep the finding's own `code spans`, escape everything else. */
function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(/`[^`]+`/g)) {
    out += escapeText(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + escapeText(text.slice(last));
}

/**
 * Escape text for a GitHub comment: markdown and HTML punctuation, `&` (so no character reference such as `&#x40;`
 * becomes an `@` once rendered), and no @mentions or #123 issue links: `&#8203;` (a zero-width space, written in
 * ASCII as GitHub's own bots write it, so it survives a terminal's escaping of hidden characters) follows `@` and `#`.
 */
export function escapeText(text: string): string {
  return text
    .replace(/[\\`*[\]<>|~&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "\\$&")
    .replace(/@(?=[A-Za-z0-9])|#(?=\d)/g, "$&&#8203;");
}

/** Text for one line of a comment (a list item, a table cell): white space collapsed, at most `max` characters, escaped. */
export function lineText(text: string, max = 300): string {
  return escapeText(truncate(oneLine(text), max));
}
