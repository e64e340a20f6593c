import { describe, expect, it } from "vitest";
import { agentKey, agentNameProblem, sameAgent } from "../../src/entry/agent-name.js";

describe("agent names", () => {
  it("compare case- and whitespace-insensitively", () => {
    expect(agentKey("  Security\t Review ")).toBe("securityreview");
    expect(sameAgent("Security Team", "SecurityTeam")).toBe(true);
    expect(sameAgent("Security", "security")).toBe(true);
    expect(sameAgent(" security ", "SECURITY")).toBe(true);
    expect(sameAgent("security", "performance")).toBe(false);
  });

  it("are read as they show: invisible characters, compatibility forms and look-alike letters do not make another agent", () => {
    for (const disguise of ["se\u200bc", "sec\u00ad", "s\u202eec", "sec\u{E0020}", "\uff53\uff45\uff43", "\u017fec", "\u0455\u0435\u0441", "SEC\u0000",
      // Default-ignorable characters nobody listed (Hangul fillers, the combining grapheme joiner, Mongolian selectors,
      // musical format characters), the braille blank, and look-alikes read from capitals as well.
      "sec\u3164", "se\uffa0c", "se\u034fc", "se\u180bc", "sec\u17b4", "sec\u{1D173}", "sec\u2800", "\u0405\u0415\u0421"]) {
      expect({ disguise, same: sameAgent(disguise, "sec") }).toEqual({ disguise, same: true });
    }
    expect(sameAgent("secur\u0131ty", "security")).toBe(true); // dotless i
    expect(sameAgent("SECURIT\u03a5", "security")).toBe(true); // Greek capital upsilon is a Y, not a u
    expect(sameAgent("security", "securely")).toBe(false);
    // A name in another script keeps its case-insensitivity and its marks: they make the word.
    for (const [a, b] of [["\u039c\u03a5", "\u03bc\u03c5"], ["\u0397\u03bb\u03af\u03b1\u03c2", "\u03b7\u03bb\u03af\u03b1\u03c2"], ["\u039d\u03af\u03ba\u03bf\u03c2", "\u03bd\u03af\u03ba\u03bf\u03c2"]]) {
      expect({ a, b, same: sameAgent(a!, b!) }).toEqual({ a, b, same: true });
    }
    for (const [a, b] of [["\u30ab\u30fc\u30c9", "\u30ac\u30fc\u30c9"], ["\u0930\u093e\u092e", "\u0930\u092e"], ["\u0e17\u0e35\u0e48", "\u0e17"], ["caf\u00e9", "cafe"]]) {
      expect({ a, b, same: sameAgent(a!, b!) }).toEqual({ a, b, same: false });
    }
    expect(agentNameProblem("sec\u0000")).toBe("must be printable text, not a control character (U+0000)");
    expect(agentNameProblem("\u200b \u00ad")).toBe("must not be empty");
    expect(agentNameProblem("Security Team")).toBeUndefined();
  });
});
