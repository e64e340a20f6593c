import { describe, expect, it } from "vitest";
import { stem } from "../../../src/indexing/lexical/index.js";

describe("stem (Porter)", () => {
  it("follows Porter's published examples for every step", () => {
    const cases: Record<string, string> = {
      caresses: "caress", ponies: "poni", cats: "cat", feed: "feed", agreed: "agre", plastered: "plaster",
      motoring: "motor", sing: "sing", conflated: "conflat", hopping: "hop", falling: "fall", filing: "file",
      happy: "happi", sky: "sky", relational: "relat", conditional: "condit", rational: "ration",
      digitizer: "digit", vietnamization: "vietnam", operator: "oper", hopefulness: "hope",
      sensibiliti: "sensibl", triplicate: "triplic", formalize: "formal", electrical: "electr",
      goodness: "good", allowance: "allow", airliner: "airlin", adjustable: "adjust", replacement: "replac",
      adoption: "adopt", communism: "commun", effective: "effect", probate: "probat", rate: "rate",
      controll: "control", roll: "roll", generalizations: "gener",
    };
    for (const [word, expected] of Object.entries(cases)) expect(stem(word), word).toBe(expected);
  });

  it("leaves short words, digits and non-ASCII words alone", () => {
    expect(stem("is")).toBe("is");
    expect(stem("u32")).toBe("u32");
    expect(stem("größe")).toBe("größe");
  });
});
