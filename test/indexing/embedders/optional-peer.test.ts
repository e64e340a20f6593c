import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EmbedderUnavailableError } from "../../../src/indexing/embedders/errors.js";
import { importTransformers, TRANSFORMERS_PACKAGE, TRANSFORMERS_RANGE } from "../../../src/indexing/embedders/transformers.js";
import { REPO } from "../../helpers/cli.js";

type Manifest = {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const pkg = JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as Manifest;
const lock = JSON.parse(await readFile(path.join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> };

describe("transformers.js is an optional peer dependency (issue 11 item 8)", () => {
  it("is not installed with cairn's dependencies; the tests still get it as a dev dependency", () => {
    expect(pkg.dependencies).not.toHaveProperty(TRANSFORMERS_PACKAGE);
    expect(pkg.peerDependencies?.[TRANSFORMERS_PACKAGE]).toBe(TRANSFORMERS_RANGE);
    expect(pkg.peerDependenciesMeta?.[TRANSFORMERS_PACKAGE]?.optional).toBe(true);
    expect(pkg.devDependencies[TRANSFORMERS_PACKAGE]).toBe(TRANSFORMERS_RANGE);
    // Nothing of its tree (onnxruntime above all) is left in a production install.
    for (const name of [TRANSFORMERS_PACKAGE, "onnxruntime-node", "onnxruntime-common", "sharp"]) {
      expect(lock.packages[`node_modules/${name}`]?.dev, name).toBe(true);
    }
  });

  it("when the package is missing, the error says how to add it (and how to do without)", async () => {
    const error = await importTransformers("@huggingface/transformers-missing-for-this-test").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EmbedderUnavailableError);
    const e = error as EmbedderUnavailableError;
    expect(e.code).toBe("CONFIG");
    expect(e.message).toContain('needs @huggingface/transformers-missing-for-this-test, an optional peer dependency that cairn does not install by itself');
    expect(e.message).toContain(`npm install @huggingface/transformers-missing-for-this-test@"${TRANSFORMERS_RANGE}"`);
    expect(e.message).toContain('embedder.provider to "use-lite"');
  });

  it("when it is there, it loads", async () => {
    const transformers = await importTransformers();
    expect(typeof transformers.pipeline).toBe("function");
  });
});
