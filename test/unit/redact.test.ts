/**
 * Findings 4 and 5 of issue 9: secrets echoed in an encoded form, and a refreshed token dropped
 * from redaction while calls made with it were in flight.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { formatError } from "../../src/errors/format.js";
import { requestSummary } from "../../src/errors/normalize.js";
import { redact, scrubText } from "../../src/errors/redact.js";
import { MAX_RETIRED, RETIRE_GRACE_MS, Secret } from "../../src/errors/secret.js";
import { createLogger } from "../../src/telemetry/logger.js";

const TOKEN = "AT/x+y=Zq9:tok en~\u00e9-7Hk2";
const CLIENT_SECRET = "cs_live/Wq+3 s3cr3t";
new Secret(TOKEN);
new Secret(CLIENT_SECRET);

/** Every encoding the review used, and a few more an upstream may produce. */
function encodings(value: string): Record<string, string> {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
  const json = JSON.stringify(value).slice(1, -1);
  return {
    plain: value,
    encodeURIComponent: encodeURIComponent(value),
    "encodeURIComponent, lowercase hex": encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) =>
      m.toLowerCase(),
    ),
    "form (+ for space)": new URLSearchParams({ v: value }).toString().slice(2),
    "double percent-encoding": encodeURIComponent(encodeURIComponent(value)),
    encodeURI: encodeURI(value),
    base64: b64(value),
    "base64 inside Basic id:secret": b64(`client-id:${value}`),
    "base64 after 'Bearer '": b64(`Bearer ${value}`),
    "base64 after 'x'": b64(`x${value}y`),
    base64url: b64url(value),
    "base64url shifted": b64url(`ab${value}`),
    "JSON-escaped slashes": json.replace(/\//g, "\\/"),
    "JSON \\u escapes for every character": Array.from(
      value,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    ).join(""),
    "JSON \\u escapes, uppercase hex": [...value]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)
      .join(""),
    "JSON inside JSON": JSON.stringify(JSON.stringify(value)).slice(1, -1),
    "URL-encoded base64": encodeURIComponent(b64(value)),
    // interface.md §9: hex, HTML entities, base64 broken across lines, upper-cased forms.
    "hex, lowercase": Buffer.from(value, "utf8").toString("hex"),
    "hex, uppercase": Buffer.from(value, "utf8").toString("hex").toUpperCase(),
    "hex as \\x escapes": [...Buffer.from(value, "utf8")].map((b) => `\\x${b.toString(16)}`).join(""),
    "HTML decimal entities for every character": Array.from(value, (c) => `&#${c.codePointAt(0)};`).join(""),
    "HTML hex entities, uppercase": Array.from(
      value,
      (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`,
    ).join(""),
    "HTML named entities for punctuation": Array.from(value, (c) =>
      c === "/"
        ? "&sol;"
        : c === "+"
          ? "&plus;"
          : c === "="
            ? "&equals;"
            : c === ":"
              ? "&colon;"
              : c === "&"
                ? "&amp;"
                : c,
    ).join(""),
    "base64 wrapped every 4 characters (CRLF)": b64(`x${value}`).replace(/(.{4})/g, "$1\r\n"),
    "base64 wrapped every 3 characters (LF), JSON-escaped": b64(value).replace(/(.{3})/g, "$1\\n"),
    "upper-cased": value.toUpperCase(),
    "lower-cased": value.toLowerCase(),
  };
}

describe("finding 4: every encoded form of a secret is masked", () => {
  for (const [name, secret] of [
    ["access token", TOKEN],
    ["client secret", CLIENT_SECRET],
  ] as const) {
    for (const [form, encoded] of Object.entries(encodings(secret))) {
      it(`${name}, ${form}`, () => {
        const text = `bad request with Bearer%20${encoded} (echo)`;
        const out = scrubText(text);
        expect(out).toContain("[redacted]");
        expect(out).not.toContain(encoded);
        expect(out.startsWith("bad request with Bearer%20")).toBe(true);
        expect(out.endsWith(" (echo)")).toBe(true);
      });
    }
  }

  it("in an error result's line and details, and in a log record", () => {
    const echoed = Object.values(encodings(TOKEN)).join(" | ");
    const error = new ApiError({
      status: 400,
      code: "VALIDATION",
      message: `bad request with ${echoed}`,
      details: { echo: echoed },
    });
    const { text, details } = formatError(error);
    const lines: string[] = [];
    createLogger({ level: "debug", sink: (l) => lines.push(l) }).debug("upstream said", {
      body: echoed,
      error,
    });
    for (const out of [text, JSON.stringify(details), lines.join("")]) {
      for (const encoded of Object.values(encodings(TOKEN))) expect(out).not.toContain(encoded);
    }
    // JSON.stringify of a log line escapes again: the line must not hold the escaped form either.
    expect(lines.join("")).not.toContain(JSON.stringify(TOKEN).slice(1, -1));
  });

  it("leaves ordinary text alone", () => {
    const text = "entry 10001 created for WH-MAIN, 4 x SP-1003 @ 12.50 (IVA 19%), ok=true, AAAA/BBBB";
    expect(scrubText(text)).toBe(text);
    expect(redact({ note: text })).toEqual({ note: text });
  });
});

describe("finding 5: a retired token stays masked for its lifetime", () => {
  const realNow = Secret.now;
  afterEach(() => {
    Secret.now = realNow;
  });

  it("a token forgotten on refresh is still masked until it expires, and at least the grace period", () => {
    let now = 1_000_000;
    Secret.now = () => now;
    const old = "RACE-TOKEN-1-abcdef";
    new Secret(old);
    Secret.forget(old, now + 7_200_000); // refreshed while a call made with it is in flight
    const echo = `bad request with Bearer ${old}`;
    expect(scrubText(echo)).toBe("bad request with Bearer [redacted]");
    now += 7_199_999;
    expect(scrubText(echo)).toBe("bad request with Bearer [redacted]");
    now += 1;
    expect(scrubText(echo)).toBe(echo); // expired: no longer a credential, no longer scanned for

    const early = "RACE-TOKEN-2-abcdef";
    new Secret(early);
    Secret.forget(early, now + 1_000); // expiry unknown or already near: the grace period holds
    now += RETIRE_GRACE_MS - 1;
    expect(scrubText(early)).toBe("[redacted]");
    now += 1;
    expect(scrubText(early)).toBe(early);
  });

  it("keeps at most MAX_RETIRED retired values, dropping the one that expires first", () => {
    let now = 5_000_000;
    Secret.now = () => now;
    const values = Array.from({ length: MAX_RETIRED + 1 }, (_, i) => `retired-token-${i}-xyzw`);
    values.forEach((v, i) => {
      new Secret(v);
      Secret.forget(v, now + RETIRE_GRACE_MS + 1_000 + i);
    });
    expect(scrubText(values[0]!)).toBe(values[0]);
    expect(scrubText(values[1]!)).toBe("[redacted]");
    expect(scrubText(values[MAX_RETIRED]!)).toBe("[redacted]");
    now += RETIRE_GRACE_MS + 10_000;
    expect(Secret.knownValues().filter((v) => v.startsWith("retired-token-"))).toEqual([]);
  });

  it("scrubs a 1 MB text with every known secret in bounded time", () => {
    const text = `${"lorem ipsum dolor sit amet ".repeat(40_000)}${TOKEN}`;
    // No wall-clock bound here (the machine's load decides it): a pattern that backtracked would
    // outlive the test's timeout; the speed itself is measured in `npm run bench`.
    const out = scrubText(text);
    expect(out.endsWith("[redacted]")).toBe(true);
    expect(out.length).toBe(text.length - TOKEN.length + "[redacted]".length);
  });
});

describe("request summaries", () => {
  it("scrub the path when read and when serialized, never holding the secret in their JSON", () => {
    const summary = requestSummary("GET", `/api/items?access_token=${encodeURIComponent(TOKEN)}&limit=5`);
    expect(summary.method).toBe("GET");
    expect(summary.path).not.toContain(encodeURIComponent(TOKEN));
    expect(summary.path).toContain("limit=5");
    const json = JSON.stringify(
      new ApiError({ code: "NETWORK", message: "down", retryable: true, request: summary }),
    );
    expect(JSON.parse(json).request).toEqual({ method: "GET", path: summary.path });
    expect(json).not.toContain(encodeURIComponent(TOKEN));
  });
});
