import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCli } from "../../src/cli.js";
import { ConfigError } from "../../src/errors/api-error.js";
import { VERSION } from "../../src/version.js";

describe("parseCli", () => {
  it("defaults to stdio on the real upstream", () => {
    expect(parseCli([])).toEqual({
      command: "serve",
      http: false,
      host: "127.0.0.1",
      port: 3333,
      sandbox: false,
      readOnly: false,
      tools: undefined,
      confirmWrites: false,
    });
  });

  it("reads every flag", () => {
    expect(
      parseCli([
        "--http",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--sandbox",
        "--read-only",
        "--tools",
        "a, b",
        "--confirm-writes",
      ]),
    ).toMatchObject({
      http: true,
      host: "0.0.0.0",
      port: 0,
      sandbox: true,
      readOnly: true,
      tools: ["a", "b"],
      confirmWrites: true,
    });
    expect(parseCli(["sandbox", "--port", "4010"])).toEqual({ command: "sandbox", argv: ["--port", "4010"] });
    expect(parseCli(["--help"])).toEqual({ command: "help" });
    expect(parseCli(["-v"])).toEqual({ command: "version" });
  });

  it.each([
    [["--nope"], "arguments"],
    [["--port", "80"], "--port"],
    [["--http", "--port", "http"], "--port"],
    [["--http", "--port", "70000"], "--port"],
    [["--tools", ","], "--tools"],
    [["serve"], "arguments"],
  ])("%j is a usage error naming %s", (argv, variable) => {
    try {
      parseCli(argv);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems[0]?.variable).toBe(variable);
    }
  });

  it("knows the package version", () => {
    expect(VERSION).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
  });
});
