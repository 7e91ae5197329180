import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/config/version.js";
import { ConfigError } from "../../src/errors/api-error.js";
import { parseCli } from "../../src/main/cli.js";

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

  it("--rate-limit N with --sandbox makes the simulator play the platform's limit", () => {
    expect(parseCli(["--sandbox", "--rate-limit", "200"])).toMatchObject({
      sandbox: true,
      sandboxRateLimit: 200,
    });
    expect(parseCli(["--sandbox"])).not.toHaveProperty("sandboxRateLimit");
    expect(() => parseCli(["--rate-limit", "200"])).toThrow("--rate-limit: only applies with --sandbox");
    expect(() => parseCli(["--sandbox", "--rate-limit", "0"])).toThrow("--rate-limit: a whole number");
    expect(() => parseCli(["--sandbox", "--rate-limit", "2.5"])).toThrow("--rate-limit: a whole number");
  });

  it.each([
    [["--nope"], "--nope"],
    [["--port", "80"], "--port"],
    [["--http", "--port", "http"], "--port"],
    [["--http", "--port", "70000"], "--port"],
    [["--tools", ","], "--tools"],
    [["serve"], "arguments"],
  ])("%j is a usage error naming %s", (argv, variable) => {
    expect(() => parseCli(argv)).toThrow(ConfigError);
    expect(() => parseCli(argv)).toThrow(`Configuration problem: ${variable}: `);
  });

  it.each([
    [
      ["--readonly"],
      "Configuration problem: --readonly: unknown flag; did you mean --read-only? (see --help)",
    ],
    [
      ["--http", "--prot", "1"],
      "Configuration problem: --prot: unknown flag; did you mean --port? (see --help)",
    ],
    [
      ["--confirm-write"],
      "Configuration problem: --confirm-write: unknown flag; did you mean --confirm-writes? (see --help)",
    ],
    [
      ["--sandbx", "--http"],
      "Configuration problem: --sandbx: unknown flag; did you mean --sandbox? (see --help)",
    ],
    [["--colour"], "Configuration problem: --colour: unknown flag (see --help)"],
    [["-x"], "Configuration problem: -x: unknown flag (see --help)"],
  ])("an unknown flag %j suggests the closest known one, never `--`", (argv, message) => {
    expect(() => parseCli(argv)).toThrow(message);
    expect(() => parseCli(argv)).not.toThrow(/positional|'--'/);
  });

  it("reads --sandbox, --read-only and --confirm-writes from MMS_* variables (MCP Bundle settings)", () => {
    expect(
      parseCli([], { MMS_SANDBOX: "true", MMS_READ_ONLY: "1", MMS_CONFIRM_WRITES: "false" }),
    ).toMatchObject({
      sandbox: true,
      readOnly: true,
      confirmWrites: false,
    });
    expect(parseCli(["--confirm-writes"], { MMS_CONFIRM_WRITES: "false", MMS_SANDBOX: "" })).toMatchObject({
      sandbox: false,
      confirmWrites: true,
    });
    expect(() => parseCli([], { MMS_READ_ONLY: "maybe" })).toThrow(
      "Configuration problem: MMS_READ_ONLY: true or false (the variable form of --read-only)",
    );
  });

  it("knows the package version", () => {
    expect(VERSION).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
  });
});
