/**
 * A generator of N realistic entries plus a source tree their evidence anchors point into, so that
 * `check` resolves real files, lines and symbols. Deterministic for a given seed.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { AREAS, DOMAINS, MODULES, NOTES, NOUNS, VERBS } from "./vocabulary.js";

/** Deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type SourceFile = { rel: string; functions: Array<{ name: string; start: number; end: number }>; lines: number };

export type GeneratedEntry = {
  id: string;
  /** Path relative to the root, e.g. `knowledge/auth-...-42.md`. */
  rel: string;
  agent: string;
  title: string;
  finding: string;
  /** The whole file text. */
  text: string;
};

export type CorpusOptions = {
  /** Number of entries. */
  entries: number;
  /** PRNG seed. Default 42. */
  seed?: number;
  /** Packages in the source tree (each holds AREAS × MODULES files). Default 2. */
  packages?: number;
};

export type Corpus = { root: string; entries: GeneratedEntry[]; sources: SourceFile[] };

/** The source files (paths, function names and line ranges) of the generated repository. */
export function sourceTree(packages = 2, seed = 7): SourceFile[] {
  const rand = random(seed);
  const files: SourceFile[] = [];
  for (let p = 0; p < packages; p++) {
    for (const area of AREAS) {
      for (const mod of MODULES) {
        const count = 4 + Math.floor(rand() * 8);
        const functions: SourceFile["functions"] = [];
        const used = new Set<string>();
        for (let k = 0; functions.length < count && k < 100; k++) {
          const name = `${VERBS[Math.floor(rand() * VERBS.length)]}${NOUNS[Math.floor(rand() * NOUNS.length)]}`;
          if (used.has(name)) continue;
          used.add(name);
          const start = 3 + functions.length * 6;
          functions.push({ name, start, end: start + 4 });
        }
        files.push({ rel: `packages/pkg${p}/src/${area}/${mod}.ts`, functions, lines: 2 + functions.length * 6 });
      }
    }
  }
  return files;
}

function sourceText(file: SourceFile): string {
  const lines = [`// ${file.rel}`, ""];
  for (const f of file.functions) {
    lines.push(`export async function ${f.name}(input: unknown): Promise<unknown> {`, "  const value = await Promise.resolve(input);", "  if (value === undefined) return null;", "  return value;", "}", "");
  }
  return lines.join("\n");
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60).replace(/-$/, "");
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Generate `count` entries whose anchors point into `sources`. */
export function generateEntries(count: number, sources: readonly SourceFile[], seed = 42): GeneratedEntry[] {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const out: GeneratedEntry[] = [];
  for (let i = 0; i < count; i++) {
    const domain = pick(DOMAINS);
    const subject = pick(domain.subjects);
    const problem = pick(domain.problems);
    const file = pick(sources);
    const fn = pick(file.functions);
    const area = file.rel.split("/")[3]!;
    const title = `${capital(subject)} ${problem}`;
    const id = `${slug(title)}-${i}`;
    const finding = `${capital(subject)} in the ${area} code often ${problem}; check that ${pick(domain.advice)}.`;
    const anchors = [`- ${file.rel}:${fn.start}-${fn.end}, ${fn.name}() — ${pick(NOTES)}.`];
    if (rand() < 0.5) {
      const other = pick(sources);
      const g = pick(other.functions);
      anchors.push(rand() < 0.5 ? `- \`${other.rel}:${g.start}\` ${g.name}() — ${pick(NOTES)}.` : `- ${other.rel.replace(/[^/]+$/, "*.ts")} — ${pick(NOTES)}.`);
    }
    const month = 1 + Math.floor(rand() * 12);
    const tags = [...new Set([pick(domain.tags), pick(domain.tags)])];
    const text = [
      "---",
      `title: ${title}`,
      `lastConfirmed: 2025-${pad(month)}-${pad(1 + Math.floor(rand() * 28))}`,
      `provenance: ${rand() < 0.8 ? "independent" : "primed"}`,
      `tags: [${tags.join(", ")}]`,
      `agents: [${domain.agent}]`,
      "---",
      finding,
      "",
      "Evidence:",
      ...anchors,
      "",
      `Verify: search for callers of ${fn.name}() under ${file.rel.replace(/\/[^/]+$/, "/")} and confirm ${pick(domain.advice)}.`,
      "",
    ].join("\n");
    out.push({ id, rel: `knowledge/${id}.md`, agent: domain.agent, title, finding, text });
  }
  return out;
}

/** Write the source tree and `options.entries` entries under `root` (which must exist). */
export async function writeCorpus(root: string, options: CorpusOptions): Promise<Corpus> {
  const sources = sourceTree(options.packages ?? 2);
  for (const file of sources) {
    await mkdir(path.join(root, path.dirname(file.rel)), { recursive: true });
    await writeFile(path.join(root, file.rel), sourceText(file));
  }
  await mkdir(path.join(root, "knowledge", "archive"), { recursive: true });
  await mkdir(path.join(root, "knowledge", ".ledger"), { recursive: true });
  const entries = generateEntries(options.entries, sources, options.seed ?? 42);
  for (let i = 0; i < entries.length; i += 256) {
    await Promise.all(entries.slice(i, i + 256).map((e) => writeFile(path.join(root, e.rel), e.text)));
  }
  return { root, entries, sources };
}

/** Review-style queries built from the same vocabulary (some match entries closely, some loosely). */
export function generateQueries(count: number, seed = 99): Array<{ agent: string; keywords: string[]; summary: string; query: string }> {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  return Array.from({ length: count }, () => {
    const domain = pick(DOMAINS);
    const keywords = [...new Set([pick(domain.tags), pick(domain.tags)])];
    const summary = `This change touches ${pick(domain.subjects)} in the ${pick(AREAS)} ${pick(MODULES)}; it ${pick(domain.problems)} in some cases.`;
    return { agent: domain.agent, keywords, summary, query: `${keywords.join(" ")} ${summary}` };
  });
}

function capital(text: string): string {
  return text.replace(/^the /, "The ").replace(/^./, (c) => c.toUpperCase());
}
