/** Split an entry body into finding, fix, evidence and verify sections (paragraph style or headed sections). */
import { scanBlocks } from "./blocks.js";

export type SectionKind = "finding" | "fix" | "evidence" | "verify";

export type BodySection = {
  kind: SectionKind;
  /** Section content (marker and heading removed), with original line breaks normalised to \n. */
  text: string;
  /** 1-based file line where the content starts. */
  line: number;
  /** 1-based column where the content starts. */
  column: number;
  /** True when introduced by a heading rather than a `Label:` paragraph. */
  headed: boolean;
};

export type BodyParts = {
  /** A leading `# Heading` used as the title when frontmatter has none. */
  title?: string;
  sections: Partial<Record<SectionKind, BodySection>>;
  /** Markers that appeared more than once, e.g. two Evidence sections. */
  repeated: Array<{ kind: SectionKind; line: number }>;
};

const HEADING_KIND: Array<[RegExp, SectionKind]> = [
  [/^(evidence|evidence anchors|anchors)$/i, "evidence"],
  [/^(verify|verification|verification steps|how to verify)$/i, "verify"],
  [/^(finding|the finding)$/i, "finding"],
  [/^(fix|the fix|how to fix|remediation|mitigation)$/i, "fix"],
];
/** `Evidence:`, `Verify:` and `Fix:` paragraphs (a `Fix:` is part of the entry, shown to agents, but not the finding). */
const LABEL_RE = /^(\s*(?:\*\*|__)?(evidence|verify|verification|fix)(?:\*\*|__)?\s*:(?:\*\*|__)?[ \t]*)(.*)$/i;

type Marker = { kind: SectionKind; line: number; contentLine: number; contentColumn: number; firstText: string; headed: boolean; depth: number };

/**
 * Parse the body. `lines` are the body's lines without line terminators; `firstLine` is the file line of lines[0].
 * The block scanner (blocks.ts) supplies headings and code blocks (so a `Verify:` inside a fence is not a marker).
 */
export function splitBody(_body: string, lines: string[], firstLine: number): BodyParts {
  const { headings, codeLines: inCode } = scanBlocks(lines);

  const markers: Marker[] = [];
  let title: string | undefined;
  const headingAt = new Map<number, (typeof headings)[number]>();
  for (const h of headings) headingAt.set(h.start, h);

  for (let i = 0; i < lines.length; i++) {
    const bodyLine = i + 1;
    if (inCode.has(bodyLine)) continue;
    const heading = headingAt.get(bodyLine);
    if (heading) {
      const text = heading.text;
      const kind = HEADING_KIND.find(([re]) => re.test(text))?.[1];
      if (kind) {
        markers.push({ kind, line: bodyLine, contentLine: heading.end + 1, contentColumn: 1, firstText: "", headed: true, depth: heading.depth });
      } else if (heading.depth === 1 && markers.length === 0 && title === undefined && !hasContentBefore(lines, i)) {
        title = text;
        markers.push({ kind: "finding", line: bodyLine, contentLine: heading.end + 1, contentColumn: 1, firstText: "", headed: true, depth: 1 });
      } else {
        // An unrelated heading ends a headed section of the same or deeper level.
        markers.push({ kind: "finding", line: bodyLine, contentLine: -1, contentColumn: 1, firstText: "", headed: true, depth: heading.depth });
      }
      i = heading.end - 1;
      continue;
    }
    const match = LABEL_RE.exec(lines[i] ?? "");
    if (match) {
      const label = match[2]!.toLowerCase();
      const kind: SectionKind = label === "evidence" ? "evidence" : label === "fix" ? "fix" : "verify";
      markers.push({ kind, line: bodyLine, contentLine: bodyLine, contentColumn: match[1]!.length + 1, firstText: match[3] ?? "", headed: false, depth: 7 });
    }
  }

  const sections: BodyParts["sections"] = {};
  const repeated: BodyParts["repeated"] = [];
  // The finding is everything before the first real marker (evidence/verify/finding heading).
  const firstMarker = markers.find((m) => m.contentLine !== -1);
  const findingEnd = firstMarker ? firstMarker.line - 1 : lines.length;
  const leading = collect(lines, 1, findingEnd, "", 1);
  if (leading.text.trim()) {
    sections.finding = { kind: "finding", text: leading.text, line: leading.line + firstLine - 1, column: leading.column, headed: false };
  }
  for (let m = 0; m < markers.length; m++) {
    const marker = markers[m]!;
    if (marker.contentLine === -1) continue;
    // Section runs to the next marker (a heading of the same or higher level ends a headed section).
    let end = lines.length;
    for (let n = m + 1; n < markers.length; n++) {
      const next = markers[n]!;
      if (!next.headed || !marker.headed || next.depth <= marker.depth || next.contentLine !== -1) {
        end = next.line - 1;
        break;
      }
    }
    const content = collect(lines, marker.contentLine, end, marker.firstText, marker.contentColumn);
    if (!content.text.trim()) continue;
    const section: BodySection = {
      kind: marker.kind,
      text: content.text,
      line: content.line + firstLine - 1,
      column: content.column,
      headed: marker.headed,
    };
    const existing = sections[marker.kind];
    if (existing) {
      if (marker.kind === "finding" && existing.text.trim()) repeated.push({ kind: marker.kind, line: section.line });
      else if (marker.kind !== "finding") repeated.push({ kind: marker.kind, line: section.line });
      if (marker.kind === "finding" && !existing.text.trim()) sections.finding = section;
      continue;
    }
    sections[marker.kind] = section;
  }
  return { ...(title !== undefined ? { title } : {}), sections, repeated };
}

function hasContentBefore(lines: string[], index: number): boolean {
  for (let i = 0; i < index; i++) if ((lines[i] ?? "").trim()) return true;
  return false;
}

/** Gather lines [from, to] (1-based body lines), replacing the first line by `firstText`, trimming blank edges. */
function collect(lines: string[], from: number, to: number, firstText: string, firstColumn: number): { text: string; line: number; column: number } {
  const out: string[] = [];
  for (let l = from; l <= to && l <= lines.length; l++) out.push(l === from && firstColumn > 1 ? firstText : (lines[l - 1] ?? ""));
  let start = 0;
  while (start < out.length && !out[start]!.trim()) start++;
  let end = out.length;
  while (end > start && !out[end - 1]!.trim()) end--;
  const line = from + start;
  const column = start === 0 ? firstColumn : 1;
  return { text: out.slice(start, end).join("\n"), line, column };
}

/** Verification steps: list items if the section is a list, else one step per paragraph. */
export function splitSteps(text: string): string[] {
  const lines = text.split("\n");
  const itemRe = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
  if (lines.some((l) => itemRe.test(l))) {
    const steps: string[] = [];
    for (const line of lines) {
      const m = itemRe.exec(line);
      if (m) steps.push(m[1]!.trim());
      else if (line.trim() && steps.length) steps[steps.length - 1] += ` ${line.trim()}`;
      else if (line.trim()) steps.push(line.trim());
    }
    return steps.filter(Boolean);
  }
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
    .filter(Boolean);
}
