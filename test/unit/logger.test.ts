import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODES } from "../../src/errors/api-error.js";
import { Secret } from "../../src/errors/secret.js";
import { createLogger } from "../../src/telemetry/logger.js";

function collect(level: "error" | "warn" | "info" | "debug") {
  const lines: string[] = [];
  return { log: createLogger({ level, sink: (l) => lines.push(l) }), lines };
}

describe("logger", () => {
  it("writes one JSON object per line with time, level, message and bindings", () => {
    const { log, lines } = collect("info");
    log.child({ tool: "query_budgets" }).info("called", { returned: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith("\n")).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: "info",
      msg: "called",
      tool: "query_budgets",
      returned: 3,
    });
  });

  it("filters by level", () => {
    const { log, lines } = collect("warn");
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(["warn", "error"]);
    expect(log.isLevelEnabled("debug")).toBe(false);
  });

  it("redacts secrets by construction: Secret values, credential keys, and known values inside text", () => {
    const { log, lines } = collect("debug");
    const secret = new Secret("s3cr3t-token-value-xyz");
    log.debug("request", {
      headers: { authorization: "Bearer abc.def", "content-type": "application/json" },
      client_secret: "plain-secret",
      token: secret,
      note: `retrying with ${secret.reveal()}`,
      error: new ApiError({ code: ERROR_CODES.AUTH, status: 401, message: `bad token ${secret.reveal()}` }),
    });
    const text = lines.join("");
    expect(text).not.toContain("s3cr3t-token-value-xyz");
    expect(text).not.toContain("abc.def");
    expect(text).not.toContain("plain-secret");
    const record = JSON.parse(lines[0]!);
    expect(record.headers).toEqual({ authorization: "[redacted]", "content-type": "application/json" });
    expect(record.note).toBe("retrying with [redacted]");
  });

  it("survives circular fields", () => {
    const { log, lines } = collect("info");
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    log.info("cycle", { a });
    expect(JSON.parse(lines[0]!).a.self).toBe("[circular]");
  });
});
