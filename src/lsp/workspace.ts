/**
 * The language server's view of one knowledge base: the editor's open buffers laid over the
 * entries on disk, run through the same rule engine as `cairn check`. The rule engine and the
 * anchor resolver cache the repository's files (listing, lines, definitions); they belong to one
 * *generation* of those files, dropped when something changes on disk.
 */
import { createLinter, type Linter } from "../check/engine.js";
import { anchorResolverFor, type AnchorResolver } from "../check/anchors.js";
import { ruleMeta } from "../check/rules/registry.js";
import { lintWith, mergeFiles } from "../check/run.js";
import type { Diagnostic } from "../entry/diagnostic.js";
import { parseEntry } from "../entry/parse.js";
import type { KnowledgeBase } from "../knowledge-base.js";
import type { EntryFile, ReadResult } from "../store/files.js";
import type { Layout } from "../store/layout.js";
import { loadKnowledge, type LoadedKnowledge } from "../store/load.js";
import { classify, type Place } from "./documents.js";
import { DiskEntries } from "./disk.js";

/** An open editor buffer that is an entry file. */
export type OpenEntry = { uri: string; version: number; text: string; file: EntryFile };

type Generation = { linter: Promise<Linter>; resolver: AnchorResolver };

export class Workspace {
  #kb: KnowledgeBase;
  #disk: DiskEntries;
  #generation: Generation | undefined;
  /** The last parse of each open buffer (hover, completion and the lint pass all ask for it). */
  readonly #parsed = new Map<string, { key: string; result: ReadResult }>();
  #warm = false;
  #warming: Promise<void> | undefined;

  constructor(kb: KnowledgeBase) {
    this.#kb = kb;
    this.#disk = new DiskEntries(kb.layout);
  }

  get layout(): Layout {
    return this.#kb.layout;
  }

  get kb(): KnowledgeBase {
    return this.#kb;
  }

  /** A problem with the knowledge directory (missing, a link leaving the repository), as of the last look at the disk. */
  get problem(): string | undefined {
    return this.#disk.problem;
  }

  /** Use another knowledge base (cairn.config.json changed, or the client named another root). */
  reopen(kb: KnowledgeBase): void {
    this.#kb = kb;
    this.#disk = new DiskEntries(kb.layout);
    this.#generation = undefined;
    this.#parsed.clear();
    this.#warm = false;
    this.#warming = undefined;
  }

  /** True once every entry on disk has been read (the first read of a large knowledge base takes seconds: 10,000 entries, several). */
  get warm(): boolean {
    return this.#warm;
  }

  /** Read every entry on disk once, in the background; resolves when done (at once when warm). */
  warmUp(): Promise<void> {
    if (this.#warm) return Promise.resolve();
    const warming = (this.#warming ??= this.knowledge([]).then(() => {
      if (this.#warming === warming) this.#warm = true;
    }));
    warming.catch(() => {
      if (this.#warming === warming) this.#warming = undefined;
    });
    return warming;
  }

  place(uri: string): Place {
    return classify(this.layout, uri);
  }

  /** Source files (or the ledger's fingerprints) may have changed: resolve anchors afresh. */
  sourcesChanged(): void {
    this.#generation = undefined;
  }

  /** Entry files changed on disk; `abs` names one when known. */
  entriesChanged(abs?: string): void {
    this.#disk.invalidate(abs);
  }

  forget(uri: string): void {
    this.#parsed.delete(uri);
  }

  /** The rule engine and anchor resolver of the current generation of the repository's files. */
  generation(): Generation {
    if (this.#generation) return this.#generation;
    const { layout, config } = this.#kb;
    const generation: Generation = { linter: createLinter(layout, config), resolver: anchorResolverFor(layout, { repos: config.repos }) };
    generation.linter.catch(() => {
      if (this.#generation === generation) this.#generation = undefined;
    });
    this.#generation = generation;
    return generation;
  }

  /** The buffer parsed as an entry (as `check` would read the file), memoised by version. */
  parse(buffer: OpenEntry): ReadResult {
    const today = this.#kb.today();
    const key = `${buffer.version}\0${today}\0${buffer.file.rel}`;
    const memo = this.#parsed.get(buffer.uri);
    if (memo?.key === key) return memo.result;
    const result = readBuffer(buffer.file, buffer.text, today);
    this.#parsed.set(buffer.uri, { key, result });
    return result;
  }

  /** Final diagnostics of each open buffer (by repo-relative path): every rule, config severities, inline disables, the rest of the knowledge base from disk. */
  async lint(buffers: readonly OpenEntry[]): Promise<Map<string, Diagnostic[]>> {
    const linter = await this.generation().linter;
    const { diagnostics } = await lintWith(this.layout, linter, await this.#files(buffers), {
      today: this.#kb.today(),
      report: new Set(buffers.map((b) => b.file.rel)),
      read: this.#reader(buffers),
    });
    return byFile(buffers, diagnostics);
  }

  /**
   * What the buffers show on their own, without reading the entries on disk: every rule but the
   * ones across entries (ids, references, near-duplicates), which would be wrong without the rest.
   * For the passes while the knowledge base is still being read (see `warmUp`).
   */
  async lintAlone(buffers: readonly OpenEntry[]): Promise<Map<string, Diagnostic[]>> {
    const linter = await this.generation().linter;
    const files = buffers.map((b) => b.file);
    const { diagnostics } = await lintWith(this.layout, linter, files, { today: this.#kb.today(), read: this.#reader(buffers) });
    return byFile(buffers, diagnostics.filter((d) => !ACROSS.has(ruleMeta(d.rule)?.category ?? "")));
  }

  /** Every entry (disk, with open buffers in place of their files), parsed but not linted: for id completion. */
  async knowledge(buffers: readonly OpenEntry[]): Promise<LoadedKnowledge> {
    return loadKnowledge(this.layout, { files: await this.#files(buffers), today: this.#kb.today(), read: this.#reader(buffers) });
  }

  async #files(buffers: readonly OpenEntry[]): Promise<EntryFile[]> {
    return mergeFiles(await this.#disk.files(), buffers.map((b) => b.file));
  }

  #reader(buffers: readonly OpenEntry[]): (file: EntryFile) => ReadResult | Promise<ReadResult> {
    const open = new Map(buffers.map((b) => [b.file.rel, b]));
    const today = this.#kb.today();
    return (file) => {
      const buffer = open.get(file.rel);
      return buffer ? this.parse(buffer) : this.#disk.read(file, today);
    };
  }
}

/** Rule categories that look across entries. */
const ACROSS = new Set(["ids", "references", "duplicates"]);

function byFile(buffers: readonly OpenEntry[], diagnostics: readonly Diagnostic[]): Map<string, Diagnostic[]> {
  const out = new Map<string, Diagnostic[]>(buffers.map((b) => [b.file.rel, []]));
  for (const d of diagnostics) out.get(d.file)?.push(d);
  return out;
}

/**
 * A buffer read as `readEntryFile` reads a file: the parser refuses more than MAX_ENTRY_BYTES
 * (`file-too-large`), and then the rules do not get the text either.
 */
export function readBuffer(file: EntryFile, text: string, today: string): ReadResult {
  const bytes = Buffer.from(text, "utf8");
  const result = parseEntry(bytes, { file: file.rel, state: file.state, today });
  return result.diagnostics.some((d) => d.rule === "file-too-large") ? result : { ...result, bytes };
}
