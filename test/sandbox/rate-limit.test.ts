/**
 * The platform's request limit played by the sandbox (`rateLimit`, `--rate-limit`): both header
 * spellings on every answer, 406 past the limit per company (not per client), a refused write
 * applies nothing, the window reopens on the (injected) clock, and off by default.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runSandboxCommand } from "../../src/sandbox/cli.js";
import type { SandboxHandle } from "../../src/sandbox/index.js";
import { bearer, type Envelope, fixedClock, HAWK_OTHER, hawk, start, token } from "./helpers.js";

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const groups = "/api/warehouses_groups_1?limit=1";

describe("sandbox rate limit", () => {
  it("announces the limit in both spellings, counts down, and answers 406 past it until the window reopens", async () => {
    const clock = fixedClock();
    sb = await start({ clock, rateLimit: { perMinute: 3, windowMs: 10_000 } });
    const tok = await token(sb);
    const first = await bearer(sb, tok, "GET", groups);
    expect(first.status).toBe(200);
    expect(first.headers.get("request-call-limit")).toBe("3");
    expect(first.headers.get("ratelimit-limit")).toBe("3");
    expect(first.headers.get("request-call-limit-remaining")).toBe("2");
    expect(first.headers.get("ratelimit-remaining")).toBe("2");
    expect(first.headers.get("ratelimit-reset")).toBe("10");
    clock.advance(4_000);
    await bearer(sb, tok, "GET", groups);
    const third = await bearer(sb, tok, "GET", groups);
    expect(third.headers.get("ratelimit-remaining")).toBe("0");
    expect(third.headers.get("request-call-limit-reset")).toBe("6");

    const refused = await bearer<Envelope>(sb, tok, "GET", groups);
    expect(refused.status).toBe(406);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toBe("406");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("ratelimit-reset")).toBe("6");

    clock.advance(6_000);
    const reopened = await bearer(sb, tok, "GET", groups);
    expect(reopened.status).toBe(200);
    expect(reopened.headers.get("ratelimit-remaining")).toBe("2");
    expect(sb.rateLimitStats()?.clients["demo-client"]).toEqual({
      accepted: 4,
      maxInWindow: 3,
      refused: 1,
    });
  });

  it("counts per company: another client of the same company shares it, another company does not", async () => {
    const clock = fixedClock();
    sb = await start({ clock, rateLimit: { perMinute: 2 } });
    const demo = await token(sb, "demo");
    const readonly = await token(sb, "readonly");
    expect((await bearer(sb, demo, "GET", groups)).status).toBe(200);
    expect((await bearer(sb, readonly, "GET", groups)).status).toBe(200);
    expect((await bearer(sb, demo, "GET", groups)).status).toBe(406);
    expect((await bearer(sb, readonly, "GET", groups)).status).toBe(406);
    const other = await hawk(sb, "GET", groups, undefined, { clock, credentials: HAWK_OTHER });
    expect(other.status).toBe(200);
    expect(other.headers.get("request-call-limit-remaining")).toBe("1");
  });

  it("a refused write applies nothing", async () => {
    const clock = fixedClock();
    sb = await start({ clock, rateLimit: { perMinute: 1 } });
    const tok = await token(sb);
    await bearer(sb, tok, "GET", groups);
    const movements = sb.state.movements.length;
    const write = await bearer(sb, tok, "POST", "/api/warehouse_entries_orders/WH-01", {
      movement_type: 1,
      items: [{ id_item: 1, qty: 1, unit_cost: 1 }],
    });
    expect(write.status).toBe(406);
    expect(sb.state.movements.length).toBe(movements);
  });

  it("the hub is limited too, with a problem document", async () => {
    const clock = fixedClock();
    sb = await start({ clock, rateLimit: { perMinute: 1 } });
    const tok = await token(sb);
    expect((await bearer(sb, tok, "GET", "/hub/api/v1/dags")).status).toBe(200);
    const refused = await bearer<{ status_code: number }>(sb, tok, "GET", "/hub/api/v1/dags");
    expect(refused.status).toBe(406);
    expect(refused.body.status_code).toBe(406);
    expect(refused.headers.get("content-type")).toContain("problem+json");
  });

  it("one spelling only, when asked; the token endpoint announces the limit without counting", async () => {
    const clock = fixedClock();
    sb = await start({ clock, rateLimit: { perMinute: 5, headers: "request-call-limit" } });
    const res = await fetch(`${sb.authUrl}/oauth/token`, { method: "POST" });
    expect(res.headers.get("request-call-limit")).toBe("5");
    expect(res.headers.get("request-call-limit-remaining")).toBeNull();
    const tok = await token(sb);
    const answer = await bearer(sb, tok, "GET", groups);
    expect(answer.headers.get("request-call-limit-remaining")).toBe("4");
    expect(answer.headers.get("ratelimit-limit")).toBeNull();
  });

  it("is off by default: no header, no 406", async () => {
    sb = await start();
    const tok = await token(sb);
    for (let i = 0; i < 5; i++) {
      const answer = await bearer(sb, tok, "GET", groups);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-limit")).toBeNull();
    }
    expect(sb.rateLimitStats()).toBeUndefined();
  });
});

describe("maintenance-mcp sandbox --rate-limit", () => {
  it("plays the limit and says so on stdout", async () => {
    let out = "";
    let limit: string | null = null;
    const code = await runSandboxCommand(["--port", "0", "--rate-limit", "200"], {
      stdout: (t) => {
        out += t;
      },
      until: async (handle) => {
        const tok = await token(handle);
        limit = (await bearer(handle, tok, "GET", groups)).headers.get("request-call-limit");
      },
    });
    expect(code).toBe(0);
    expect(limit).toBe("200");
    expect(out).toContain("Rate limit: 200 requests per minute per company");
  });

  it("refuses a value that is not a whole number of requests", async () => {
    let err = "";
    const code = await runSandboxCommand(["--port", "0", "--rate-limit", "fast"], {
      stderr: (t) => {
        err += t;
      },
    });
    expect(code).toBe(2);
    expect(err).toContain("--rate-limit must be a whole number");
  });
});
