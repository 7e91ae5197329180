/**
 * Shared setup for client tests: a Config pointing at a fake upstream, a capturing logger,
 * and the demo credentials whose values must never appear in an error or a log line.
 */
import { expect } from "vitest";
import type { Config } from "../../src/config/config.js";
import { ApiError } from "../../src/errors/api-error.js";
import { Secret } from "../../src/errors/secret.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";
import { type FakeUpstream, sendJson, startFake } from "./fake-upstream.js";

export const CLIENT_ID = "client-abc";
export const CLIENT_SECRET = "s3cr3t-client-secret-value";
export const HAWK_ID = "dh37fgj492je";
export const HAWK_KEY = "werxhqb98rpaxn39848xrunpaw3489ruxnpa98w4rxn";
export const TOKEN_PREFIX = "tok-live-";

export function makeConfig(url: string, overrides: Partial<Config> = {}): Config {
  return {
    baseUrl: `${url}/api`,
    hubUrl: url,
    auth: "oauth",
    oauth: { clientId: CLIENT_ID, clientSecret: new Secret(CLIENT_SECRET), authUrl: url },
    hawk: { id: HAWK_ID, key: new Secret(HAWK_KEY), app: undefined, dlg: undefined, payloadHash: true },
    // Not a bound under test (the timeout tests set their own): the server's own default.
    timeoutMs: 30_000,
    maxRetries: 3,
    httpToken: undefined,
    logLevel: "debug",
    ...overrides,
  };
}

export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: "debug", sink: (l) => lines.push(l) }), lines };
}

/** Fast retry settings for tests. */
export const FAST: {
  backoffBaseMs: number;
  backoffMaxMs: number;
  totalBudgetMs: number;
  random: () => number;
} = {
  backoffBaseMs: 5,
  backoffMaxMs: 20,
  // Not a bound under test (the tests of the budget set their own): wide, so that a loaded machine
  // never runs a call out of it.
  totalBudgetMs: 120_000,
  // Deterministic jitter: waits are 90% of the backoff ceiling, so timing assertions cannot flake.
  random: () => 0.9,
};

/** A fake with a token endpoint issuing tok-live-1, tok-live-2, … */
export async function fakeWithTokens(
  expiresIn = 7200,
): Promise<FakeUpstream & { tokensIssued: () => number }> {
  const fake = await startFake();
  let n = 0;
  fake.on("POST", "/oauth/token", (_req, res) => {
    n += 1;
    sendJson(res, 200, { access_token: `${TOKEN_PREFIX}${n}`, token_type: "Bearer", expires_in: expiresIn });
  });
  return Object.assign(fake, { tokensIssued: () => n });
}

/** The ApiError a promise rejects with (fails the test if it resolves or throws something else). */
export async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error("expected a rejection");
}
