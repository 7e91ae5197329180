import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MIN_NODE, nodeVersionProblem } from "../../src/main/node-version.js";

describe("nodeVersionProblem", () => {
  it.each(["20.19.0", "v20.19.0", "20.20.2", "22.0.0", "24.1.0-nightly2025"])("accepts %s", (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it.each(["18.20.4", "v20.18.3", "20.0.0", "16.0.0"])(
    "refuses %s in one line naming the version needed",
    (version) => {
      const problem = nodeVersionProblem(version);
      expect(problem).toBe(
        `maintenance-mcp needs Node.js 20.19.0 or newer; this is Node.js ${version.replace(/^v/, "")}. Install a current LTS from https://nodejs.org and try again.`,
      );
      expect(problem).not.toContain("\n");
    },
  );

  it("needs the version scripts/check-node.cjs (the first step of npm run build and npm ci) checks", () => {
    expect(readFileSync("scripts/check-node.cjs", "utf8")).toContain(`var MINIMUM = "${MIN_NODE}";`);
  });

  it("needs the version package.json's engines field states", () => {
    const engines = JSON.parse(readFileSync("package.json", "utf8")).engines.node as string;
    expect(engines).toBe(`>=${MIN_NODE.replace(/\.0$/, "")}`);
  });
});
