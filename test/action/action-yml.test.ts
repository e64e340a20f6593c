import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ACTION_INPUTS } from "../../src/action/context.js";
import { REPO } from "../helpers/cli.js";

type Step = { id?: string; name?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; "working-directory"?: string; if?: string };
type ActionYml = { name: string; description: string; inputs: Record<string, { description: string; default?: string }>; outputs: Record<string, { value: string }>; runs: { using: string; steps: Step[] } };

const text = await readFile(path.join(REPO, "action.yml"), "utf8");
const action = parse(text) as ActionYml;

describe("action.yml", () => {
  it("is a composite action whose run steps declare a shell", () => {
    expect(action.runs.using).toBe("composite");
    for (const step of action.runs.steps) if (step.run) expect(step.shell, step.name).toBe("bash");
  });

  it("passes every variable the script reads, from a declared input", () => {
    const step = action.runs.steps.find((s) => s.run?.includes("dist/action/main.js"))!;
    expect(step.id).toBe("cairn");
    for (const [variable, input] of Object.entries(ACTION_INPUTS)) {
      expect(step.env?.[variable], variable).toBe(`\${{ inputs.${input} }}`);
      expect(action.inputs[input], input).toBeDefined();
    }
    // And nothing else: an env entry the script does not read would be a silent no-op.
    expect(Object.keys(step.env ?? {}).sort()).toEqual(Object.keys(ACTION_INPUTS).sort());
  });

  it("references only declared inputs, and its outputs are the ones the script writes", () => {
    const used = [...text.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]!);
    for (const name of new Set(used)) expect(action.inputs[name], name).toBeDefined();
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toMatch(/\w/);
      expect(used, `input ${name} is never used`).toContain(name);
    }
    expect(Object.keys(action.outputs).sort()).toEqual(["comment-url", "errors", "sarif-file", "warnings"]);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.cairn.outputs.${name} }}`);
  });

  it("runs the built script the tests exercise", async () => {
    expect((await stat(path.join(REPO, "dist/action/main.js"))).isFile()).toBe(true);
    const install = action.runs.steps.find((s) => s.name === "Install cairn")!;
    expect(install["working-directory"]).toBe("${{ github.action_path }}");
    expect(install.run).toMatch(/npm ci .*--ignore-scripts/);
    expect(install.run).toMatch(/npm run build/);
  });
});
