/**
 * The published declarations (issue 11 item 6): everything a consumer's `tsc` reads through
 * `import … from "cairn"` is cairn's own plain types — no zod, no other dependency, no @types/node —
 * and every field carries a line of JSDoc. Reads the build that `npm test` makes before vitest runs.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/cli.js";

const DIST = path.join(REPO, "dist");
const ENTRY = path.join(DIST, "index.d.ts");

type Closure = { files: string[]; packages: Map<string, string[]> };

/** Every declaration file reachable from `entry` through imports, exports and `/// <reference>`s; bare specifiers are collected, not followed. */
function declarationClosure(entry: string): Closure {
  const files = new Set<string>();
  const packages = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const specifiers = [...info.importedFiles, ...info.referencedFiles, ...info.typeReferenceDirectives, ...info.libReferenceDirectives.map((l) => ({ fileName: `lib:${l.fileName}` }))];
    for (const { fileName } of specifiers) {
      if (fileName.startsWith(".")) queue.push(path.resolve(path.dirname(file), fileName.replace(/\.js$/, ".d.ts")));
      else packages.set(fileName, [...(packages.get(fileName) ?? []), path.relative(DIST, file)]);
    }
  }
  return { files: [...files].sort(), packages };
}

/** Properties and methods without a JSDoc comment, as `file:line name`. */
function undocumented(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const member = ts.isPropertySignature(node) || ts.isMethodSignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node);
      if (member && !ts.isPrivateIdentifier(node.name) && ts.getJSDocCommentsAndTags(node).length === 0) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        out.push(`${path.relative(DIST, file)}:${line + 1} ${node.name.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe("the public declarations (dist/index.d.ts and what it imports)", () => {
  const closure = declarationClosure(ENTRY);

  it("reach no package: no zod, no other dependency, no @types", () => {
    expect(existsSync(ENTRY)).toBe(true);
    expect(Object.fromEntries(closure.packages)).toEqual({});
    // Not vacuous: the walk followed the imports into the knowledge base and the plain types it speaks.
    expect(closure.files.map((f) => path.relative(DIST, f))).toEqual(expect.arrayContaining(["index.d.ts", "knowledge-base.d.ts", "types/inject.d.ts", "types/review.d.ts"]));
  });

  it("document every field with a line of JSDoc", () => {
    expect(undocumented(closure.files)).toEqual([]);
  });

  describe("type-check in a consumer without @types/node or cairn's dependencies (skipLibCheck off)", () => {
    let dir: string | undefined;
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("compiles a script using the typed API, reading only cairn's declarations and the ES library", async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "cairn-consumer-"));
      const script = path.join(dir, "review.mts");
      await writeFile(
        script,
        [
          'import { openKnowledgeBase, type CompoundFinding, type Finding, type InjectInput, type InjectResult } from "cairn";',
          "const kb = await openKnowledgeBase({ root: '.' });",
          "const input: InjectInput = { run: 'pr-1', agent: 'security', keywords: ['auth'] };",
          "const context: InjectResult = await kb.inject(input);",
          "const findings: Finding[] = context.entries.map((e) => ({ agent: 'security', text: e.finding, entry: e.id }));",
          "const recorded = await kb.recordFindings('pr-1', findings);",
          "const candidates: CompoundFinding[] = recorded.unmatched.map((u) => ({ text: u.text, agents: [u.agent, 'style'], durable: true }));",
          "const compounded = await kb.compound('pr-1', candidates, { dryRun: true });",
          "const status = await kb.status({ all: true });",
          "const verify = await kb.verify({ dryRun: true });",
          "export const summary: string = [compounded.created.length, status.entries.length, 'kind' in verify ? verify.suggestions.join() : verify.passed].join(' ');",
          "// @ts-expect-error: a typo in an input key is a compile error (the plain types are exact)",
          "export const typo: InjectInput = { run: 'r', agent: 'a', keyword: ['x'] };",
        ].join("\n"),
      );
      const program = ts.createProgram([script], {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ["lib.es2022.d.ts"],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        paths: { cairn: [ENTRY] },
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(problems).toEqual([]);
      const read = program.getSourceFiles().map((f) => f.fileName);
      expect(read.filter((f) => f.startsWith(DIST)).length).toBe(closure.files.length);
      expect(read.filter((f) => f.includes("/node_modules/") && !f.includes("/node_modules/typescript/lib/"))).toEqual([]);
    });
  });
});
