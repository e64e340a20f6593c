import { describe, expect, it } from "vitest";
import { jsonSyntaxError, parseJson } from "../../src/text/json.js";
import { cairn } from "../helpers/cli.js";
import { entryText, SOURCE_FILES, testdir } from "../helpers/fixture.js";

describe("JSON a person wrote: where it breaks and what was expected", () => {
  it.each([
    ['{\n  "findings": [\n    {"agent": "a", "text": "x"}\n    {"agent": "b", "text": "y"}\n  ]\n}', "line 4, column 5: expected a comma between the items"],
    ['{"knowledgeDir": "knowledge",\n "maxPerAgent": 5,\n}', "line 3, column 1: expected no comma before the closing bracket: trailing commas are not allowed in JSON"],
    ['{\n  // our settings\n  "maxPerAgent": 5\n}', "line 2, column 3: expected no comment: comments are not allowed in JSON"],
    ['{"a": \'x\'}', "line 1, column 7: expected a JSON value (a string in double quotes, a number, true, false, null, an object or a list)"],
    ['{"a": 1', "line 1, column 8: expected a closing }"],
    ["", "the file is empty; expected a JSON value"],
  ])("%j", (text, message) => {
    expect(jsonSyntaxError(text)).toBe(message);
    expect(() => parseJson(text)).toThrow(message);
  });

  it("hostile input is an error that says what is wrong, never a crash: a million nested lists, a 5 MB string", () => {
    expect(() => parseJson("[".repeat(1_000_000))).toThrow("it is nested too deeply to read");
    expect(() => parseJson(`{"a":${"x".repeat(5_000_000)}`)).toThrow("line 1, column 6: expected a JSON value");
  });

  it("valid JSON parses as JSON.parse does, with no second pass", () => {
    expect(jsonSyntaxError('{"a": [1, 2]}')).toBeUndefined();
    expect(parseJson('{"a": [1, 2]}')).toEqual({ a: [1, 2] });
  });

  it("the CLI names the file, the line and the column: a findings file and cairn.config.json", async () => {
    const root = await testdir({ ...SOURCE_FILES, "knowledge/ctx.md": entryText(), "cairn.config.json": '{\n  "embedder": {"provider": "none"},\n}\n', "findings.json": '{"findings": [\n  {"agent": "a", "text": "x"}\n  {"agent": "b", "text": "y"}\n]}' });
    const config = await cairn(["--root", root, "status"]);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("cairn.config.json is not valid JSON: line 3, column 1: expected no comma before the closing bracket: trailing commas are not allowed in JSON");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${root}/cairn.config.json`, '{"embedder": {"provider": "none"}}');
    const record = await cairn(["--root", root, "record", "--run", "r1", "--findings", "findings.json"], { cwd: root });
    expect(record.code).toBe(2);
    expect(record.stderr).toContain("findings.json is not valid JSON: line 3, column 3: expected a comma between the items");
    expect(record.stderr).not.toMatch(/\n\s+at /);
  });
});
