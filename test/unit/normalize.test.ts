import { describe, expect, it } from "vitest";
import { parseBody } from "../../src/client/body.js";
import { type ApiError, ERROR_CODES } from "../../src/errors/api-error.js";
import { responseError, snippet, transportError } from "../../src/errors/normalize.js";

const req = { method: "POST", path: "/api/group_tasks/1/tasks/2/resources" };
function answer(status: number, body: unknown, contentType = "application/json"): ApiError | undefined {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return responseError(
    { status, headers: { "content-type": contentType }, body: parseBody(text, contentType) },
    req,
  );
}

describe("responseError: the envelope", () => {
  it("is an error when success is false, even on HTTP 200", () => {
    const e = answer(200, {
      success: false,
      message: "422",
      data: [{ index: 1, error: "id_item 99 is not a tool or spare part" }],
      total: 0,
    });
    expect(e).toMatchObject({ status: 422, code: "VALIDATION", retryable: false, request: req });
    expect(e?.details).toEqual([{ index: 1, error: "id_item 99 is not a tool or spare part" }]);
  });

  it("keeps every 422 item in order and in the message", () => {
    const data = Array.from({ length: 12 }, (_, i) => ({ index: i * 2, error: `problem ${i}` }));
    const e = answer(422, { success: false, message: "422", data, total: 0 });
    expect(e?.details).toEqual(data);
    expect(e?.message).toBe(data.map((d) => `[${d.index}] ${d.error}`).join("; "));
  });

  it("reads `mensaje` in place of `message`", () => {
    expect(
      answer(200, { success: false, mensaje: "404", data: [{ ERROR: "Task 9 does not exist" }] }),
    ).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      message: "Task 9 does not exist",
      details: { error: "Task 9 does not exist" },
    });
  });

  it("maps 401/403 and UNAUTHORIZED_ENDPOINT", () => {
    expect(answer(401, { success: false, message: "401", data: [] })?.code).toBe("AUTH");
    expect(answer(403, { success: false, message: "403", data: [] })).toMatchObject({ code: "FORBIDDEN" });
    expect(answer(401, { success: false, message: "UNAUTHORIZED_ENDPOINT", data: null })).toMatchObject({
      status: 401,
      code: "FORBIDDEN",
    });
  });

  it("maps 408 to CONFLICT and 406/429 to retryable RATE_LIMITED", () => {
    expect(
      answer(408, { success: false, message: "408", data: [{ ERROR: "item already exists" }] }),
    ).toMatchObject({
      code: "CONFLICT",
      retryable: false,
    });
    expect(answer(406, { success: false, message: "406", data: null })).toMatchObject({
      code: "RATE_LIMITED",
      retryable: true,
    });
  });

  it("is not an error when success is true", () => {
    expect(answer(200, { success: true, message: "200", data: null, total: 0 })).toBeUndefined();
    expect(answer(200, { success: "true", message: "200", data: [] })).toBeUndefined();
  });
});

describe("responseError: problem+json", () => {
  it("reads the spec's error_code/message/status_code", () => {
    const e = answer(
      401,
      { error_code: "TOKEN_EXPIRED", message: "token expired", status_code: 401 },
      "application/problem+json",
    );
    expect(e).toMatchObject({
      status: 401,
      code: "AUTH",
      message: "token expired (TOKEN_EXPIRED)",
      details: { error_code: "TOKEN_EXPIRED" },
    });
    expect(
      answer(
        403,
        { error_code: "OAUTH2_ETL_ACCESS_DENIED", message: "no", status_code: 403 },
        "application/problem+json",
      )?.code,
    ).toBe("FORBIDDEN");
    expect(
      answer(
        502,
        { error_code: "BACKEND_RPC_ERROR", message: "down", status_code: 502 },
        "application/problem+json",
      ),
    ).toMatchObject({
      code: "UPSTREAM",
      retryable: true,
    });
  });

  it("reads RFC 9457 type/title/status/detail", () => {
    const e = answer(
      429,
      {
        type: "https://example.com/probs/rate",
        title: "Too Many Requests",
        status: 429,
        detail: "slow down",
        instance: "/x",
      },
      "application/problem+json; charset=utf-8",
    );
    expect(e).toMatchObject({
      status: 429,
      code: "RATE_LIMITED",
      message: "slow down",
      details: { type: "https://example.com/probs/rate", title: "Too Many Requests", instance: "/x" },
    });
  });
});

describe("responseError: bodies that are not the promised JSON", () => {
  const html =
    "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>";
  it("names an HTML page from a proxy, with a short snippet", () => {
    const e = answer(502, html, "text/html");
    expect(e).toMatchObject({ status: 502, code: "BAD_RESPONSE", retryable: true });
    expect(e?.message).toContain("HTML page");
    expect(e?.message).toContain("502 Bad Gateway");
    expect(answer(200, html, "text/html")).toMatchObject({ code: "BAD_RESPONSE", retryable: false });
  });

  it("reports malformed JSON", () => {
    expect(answer(200, '{"success": true, "data": [', "application/json")).toMatchObject({
      code: "BAD_RESPONSE",
      message: expect.stringContaining("malformed JSON"),
    });
  });

  it("keeps the meaning of auth and rate-limit statuses whatever the body", () => {
    expect(answer(401, html, "text/html")?.code).toBe("AUTH");
    expect(answer(429, "", "text/plain")?.code).toBe("RATE_LIMITED");
  });

  it("does not follow redirects silently", () => {
    const e = responseError(
      { status: 301, headers: { location: "https://elsewhere/api" }, body: { kind: "empty" } },
      req,
    );
    expect(e?.message).toContain("redirected");
  });

  it("snippet is one short line", () => {
    const s = snippet(`<p>${"word ".repeat(200)}</p>\n\n<b>x</b>`);
    expect(s.length).toBeLessThanOrEqual(161);
    expect(s).not.toMatch(/[<\n]/);
  });
});

describe("transportError", () => {
  const base = { origin: "http://127.0.0.1:9", message: "x" };
  // Connection refused: retried by the policy, but a configuration problem once that is spent.
  it.each([
    ["ECONNREFUSED", true, "NETWORK", false],
    ["ECONNRESET", true, "NETWORK", true],
    ["UND_ERR_SOCKET", false, "NETWORK", false],
    ["TIMEOUT", true, "TIMEOUT", true],
    ["TIMEOUT", false, "TIMEOUT", false],
    ["ECONNREFUSED", false, "NETWORK", false],
    ["ENOTFOUND", true, "NETWORK", false],
    ["ERR_SSL_WRONG_VERSION_NUMBER", false, "NETWORK", false],
    ["ERR_PLAIN_HTTP_TO_TLS", false, "NETWORK", false],
  ] as const)("%s idempotent=%s → %s retryable=%s", (code, idempotent, expected, retryable) => {
    const e = transportError({ ...base, code, idempotent, timeoutMs: 10 }, req);
    expect(e).toMatchObject({ code: expected, retryable, status: undefined, request: req });
    // Refused, or a TLS mix-up: the request was never read, so a write is certainly not applied.
    const neverApplied = code === "ECONNREFUSED" || code.startsWith("ERR_");
    if (!idempotent && !retryable && !neverApplied) {
      expect(e.message).toContain("may or may not have been applied");
      expect(e.details).toMatchObject({ outcome: "unknown" });
    }
    if (neverApplied) expect(e.message).not.toContain("may or may not have been applied");
  });

  it("says what an https/http mix-up is, in words, without OpenSSL's text", () => {
    const openssl =
      "80DCEBF4B87F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n";
    const tlsToPlain = transportError(
      {
        ...base,
        origin: "https://127.0.0.1:9",
        code: "ERR_SSL_WRONG_VERSION_NUMBER",
        message: openssl,
        idempotent: true,
      },
      req,
    );
    expect(tlsToPlain.message).toBe(
      "127.0.0.1:9 answered in plain HTTP, not TLS: the URL says https:// but the server there speaks http://",
    );
    const plainToTls = transportError({ ...base, code: "ERR_PLAIN_HTTP_TO_TLS", idempotent: true }, req);
    expect(plainToTls.message).toBe(
      "127.0.0.1:9 speaks TLS (HTTPS) and dropped the plain-HTTP request: the URL says http:// but the server there speaks https://",
    );
    // Any other TLS failure keeps OpenSSL's reason only.
    const other = transportError(
      {
        ...base,
        code: "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE",
        message: openssl.replace("wrong version number", "sslv3 alert handshake failure"),
        idempotent: true,
      },
      req,
    );
    expect(other.message).toBe(
      "TLS failure talking to 127.0.0.1:9: sslv3 alert handshake failure (ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE)",
    );
  });

  it("never lists ERROR_CODES outside the frozen table", () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
  });
});
