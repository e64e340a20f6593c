import { describe, expect, it } from "vitest";
import { agentKey, sameAgent } from "../../src/entry/agent-name.js";

describe("agent names", () => {
  it("compare case- and whitespace-insensitively", () => {
    expect(agentKey("  Security\t Review ")).toBe("securityreview");
    expect(sameAgent("Security Team", "SecurityTeam")).toBe(true);
    expect(sameAgent("Security", "security")).toBe(true);
    expect(sameAgent(" security ", "SECURITY")).toBe(true);
    expect(sameAgent("security", "performance")).toBe(false);
  });
});
