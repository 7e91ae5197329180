import { describe, expect, it } from "vitest";
import { ApiError, UserInputError } from "../../src/errors/api-error.js";
import { formatError } from "../../src/errors/format.js";
import { transportError } from "../../src/errors/normalize.js";
import { Secret } from "../../src/errors/secret.js";

describe("formatError", () => {
  it("lists every 422 index on one line with a hint", () => {
    const details = [
      { index: 1, error: "id_item 99 is not a tool or spare part" },
      { index: 3, error: "duplicate resource" },
    ];
    const { text, details: out } = formatError(
      new ApiError({
        status: 422,
        code: "VALIDATION",
        message: "[1] id_item 99 is not a tool or spare part; [3] duplicate resource",
        details,
      }),
    );
    expect(text).toBe(
      "Upstream rejected the request (422 VALIDATION): [1] id_item 99 is not a tool or spare part; [3] duplicate resource (hint: fix the listed inputs and send again)",
    );
    expect(out).toMatchObject({ code: "VALIDATION", details });
  });

  it.each([
    ["AUTH", 401, "MMS_CLIENT_ID/MMS_CLIENT_SECRET"],
    ["AUTH", 401, "MMS_HAWK_ID/MMS_HAWK_KEY"],
    ["FORBIDDEN", 403, "advanced-APIs add-on"],
    ["CONFLICT", 408, "already exists: do not repeat"],
    ["SECURITY", 200, "data was discarded"],
    ["TIMEOUT", undefined, "retry later"],
    ["NETWORK", undefined, "upstream unreachable"],
  ] as const)("%s has a hint mentioning %s", (code, status, fragment) => {
    const { text } = formatError(
      new ApiError({ status, code, message: "m", retryable: code === "TIMEOUT" || code === "NETWORK" }),
    );
    expect(text).toContain(fragment);
    expect(text).not.toContain("\n");
  });

  it("gives a hint once, even when the message already carries it", () => {
    const { text } = formatError(
      new ApiError({
        code: "NETWORK",
        message: "DNS lookup failed for nohost.invalid (check the configured URL)",
      }),
    );
    expect(text).toMatchInlineSnapshot(
      `"Upstream unreachable (NETWORK): DNS lookup failed for nohost.invalid (check the configured URL)"`,
    );
  });

  it.each([
    ["/api/wo_budget", undefined, "MMS_BASE_URL"],
    ["/hub/api/v1/dags", undefined, "MMS_HUB_URL"],
    ["/oauth/token", "token", "MMS_AUTH_URL"],
  ])("a DNS failure of %s names the variable to fix (%s)", (path, endpoint, variable) => {
    const error = transportError(
      {
        code: "ENOTFOUND",
        message: "getaddrinfo ENOTFOUND h",
        origin: "https://nohost.invalid",
        idempotent: true,
      },
      { method: "GET", path },
    );
    if (endpoint !== undefined) (error.details as Record<string, unknown>).endpoint = endpoint;
    const { text } = formatError(error);
    expect(text).toContain("DNS lookup failed for nohost.invalid: no such host name");
    expect(text).toContain(`check the host name in ${variable}`);
  });

  it("points a 404 at the URL variable when the path shows it is wrong, else at the identifiers", () => {
    const notFound = (path: string) =>
      formatError(
        new ApiError({
          status: 404,
          code: "NOT_FOUND",
          message: "the record does not exist",
          request: { method: "GET", path },
        }),
      ).text;
    expect(notFound("/wo_budget?limit=25")).toMatchInlineSnapshot(
      `"Not found upstream (404 NOT_FOUND): the record does not exist (hint: MMS_BASE_URL usually ends in /api: check it, then the identifiers)"`,
    );
    expect(notFound("/hub/api/v1/dags")).toMatchInlineSnapshot(
      `"Not found upstream (404 NOT_FOUND): the record does not exist (hint: check MMS_HUB_URL (default MMS_AUTH_URL): the DAG list is {MMS_HUB_URL}/hub/api/v1/dags)"`,
    );
    // interface.md §8b: a hint names a tool only where one here lists the records.
    expect(notFound("/api/warehouse_entries_orders/WH-X")).toMatchInlineSnapshot(
      `"Not found upstream (404 NOT_FOUND): the record does not exist (hint: check warehouse_code in the platform (no tool here lists warehouses))"`,
    );
    expect(notFound("/api/group_tasks/1/tasks/999/resources")).toMatch(
      /hint: check id_group_task and id_task in the platform: .*no tool here lists plans or tasks/,
    );
    expect(notFound("/api/wo_budget/9999")).toMatch(/hint: check the folio: query_budgets without id lists/);
    expect(notFound("/api/something_else/1")).toMatch(/\(hint: check the identifiers sent\)$/);
    for (const path of [
      "/api/warehouse_entries_orders/WH-X",
      "/api/group_tasks/1/tasks/9/resources",
      "/api/x",
    ])
      expect(notFound(path)).not.toMatch(/list (or query )?them first/);
  });

  it("does not blame the client credentials when the token endpoint itself is missing", () => {
    const { text } = formatError(
      new ApiError({
        status: 404,
        code: "AUTH",
        message:
          "no token endpoint at https://auth.example.com/oauth/oauth/token (HTTP 404): check MMS_AUTH_URL",
      }),
    );
    expect(text).toMatchInlineSnapshot(
      `"Upstream authentication failed (404 AUTH): no token endpoint at https://auth.example.com/oauth/oauth/token (HTTP 404): check MMS_AUTH_URL"`,
    );
  });

  it("tells how long to wait when rate limited", () => {
    const { text } = formatError(
      new ApiError({
        status: 429,
        code: "RATE_LIMITED",
        message: "slow",
        details: { retryAfterSeconds: 42 },
      }),
    );
    expect(text).toContain("wait 42 s");
  });

  it("warns that an interrupted write may have been applied", () => {
    const { text } = formatError(
      new ApiError({ code: "NETWORK", message: "reset", details: { outcome: "unknown" } }),
    );
    expect(text).toContain("may have been applied");
  });

  it("formats UserInputError the same way, every index listed", () => {
    const { text } = formatError(
      new UserInputError("duplicate resources in the request", [
        { index: 2, error: "same as resource 0" },
        { index: 4, error: "same as resource 1" },
      ]),
    );
    expect(text).toBe(
      "Invalid input: duplicate resources in the request: [2] same as resource 0; [4] same as resource 1",
    );
  });

  it("hides stacks, unknown messages and secrets", () => {
    const secret = new Secret("super-secret-token-value-123");
    const err = new Error(`boom ${secret.reveal()}`);
    const { text, details } = formatError(err);
    expect(text).toBe("Internal error while handling the call (Error); see the server log");
    expect(JSON.stringify(details)).not.toContain("super-secret");
    const api = formatError(
      new ApiError({
        code: "UPSTREAM",
        message: `echo ${secret.reveal()}`,
        details: { token: "x", note: secret.reveal() },
      }),
    );
    expect(api.text).not.toContain("super-secret");
    expect(JSON.stringify(api.details)).not.toContain("super-secret");
  });
});
