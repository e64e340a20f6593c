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
    for (const disguise of ["se\u200bc", "sec\u00ad", "s\u202eec", "sec\u{E0020}", "\uff53\uff45\uff43", "\u017fec", "\u0455\u0435\u0441", "SEC\u0000"]) {
      expect({ disguise, same: sameAgent(disguise, "sec") }).toEqual({ disguise, same: true });
    }
    expect(agentNameProblem("sec\u0000")).toBe("must be printable text, not a control character (U+0000)");
    expect(agentNameProblem("\u200b \u00ad")).toBe("must not be empty");
    expect(agentNameProblem("Security Team")).toBeUndefined();
  });
});
