/**
 * OAuth 2.0 client credentials (api-spec §4.6, §5.1): one cached Bearer token per client,
 * refreshed before expiry, fetched single-flight (any number of concurrent callers share one
 * token request and its outcome), dropped on a 401 made with it. Knows nothing of undici: the
 * token request goes through the `exchange` function the HTTP layer injects.
 * IMPORTANT: the client secret and tokens live in `Secret`s; errors name the variables, never values.
 */
import { ApiError, ERROR_CODES } from "../errors/api-error.js";
import { mentionsUnauthorizedEndpoint, responseError } from "../errors/normalize.js";
import type { Secret } from "../errors/secret.js";
import { spanEvent } from "../telemetry/hooks.js";
import type { Logger } from "../telemetry/logger.js";
import type { AuthGrant, AuthRequest, AuthResponse, AuthStrategy, ChallengeVerdict } from "./types.js";

/** The credentials part of `OAuthConfig` (src/config/config.ts). */
export interface OAuthCredentials {
  clientId: string;
  clientSecret: Secret;
  authUrl: string;
}

/** One POST to the token endpoint. Rejects with an ApiError (NETWORK/TIMEOUT) when no answer came. */
export type TokenExchange = (request: {
  url: string;
  headers: Record<string, string>;
  body: string;
}) => Promise<{ status: number; headers: Readonly<Record<string, string | undefined>>; text: string }>;

export interface OAuthOptions {
  exchange: TokenExchange;
  logger: Logger;
  /** Wall clock in ms (tests inject one). */
  now?: () => number;
}

/** api-spec §8: tokens live 7200 s; used when the answer has no usable `expires_in`. */
export const DEFAULT_EXPIRES_IN_S = 7200;

/**
 * Refresh margin: 60 s or 10% of the lifetime, whichever is larger, but never more than half
 * the lifetime (a 30 s token is still used for 15 s instead of never).
 */
export function refreshMarginMs(expiresInS: number): number {
  return Math.min(Math.max(60, expiresInS * 0.1), expiresInS / 2) * 1000;
}

interface Token {
  value: Secret;
  /** Wall-clock ms after which the token is refreshed before use. */
  refreshAt: number;
  /** Wall-clock ms when the token expires: it stays redacted at least until then (finding 5, issue 9). */
  expiresAt: number;
}

const CREDENTIAL_HINT = "check MMS_CLIENT_ID and MMS_CLIENT_SECRET";

export class OAuthStrategy implements AuthStrategy {
  readonly scheme = "oauth";
  readonly afterRetryHint = "; still rejected after fetching a new access token";
  readonly #clientId: string;
  readonly #basic: Secret;
  /** Tokens are derived from it: registered in the same scope (the tenant's), so its answers scrub them. */
  readonly #clientSecret: Secret;
  readonly #tokenUrl: string;
  readonly #exchange: TokenExchange;
  readonly #logger: Logger;
  readonly #now: () => number;
  #current: Token | undefined;
  #inflight: Promise<Token> | undefined;

  constructor(credentials: OAuthCredentials, options: OAuthOptions) {
    this.#clientId = credentials.clientId;
    // api-spec §4.6 / upstream-notes: base64("id:secret") of the plain values, not form-encoded first.
    // Wrapped in a Secret too, so the derived header value is scrubbed wherever it might surface.
    this.#basic = credentials.clientSecret.derive(
      Buffer.from(`${credentials.clientId}:${credentials.clientSecret.reveal()}`, "utf8").toString("base64"),
    );
    this.#clientSecret = credentials.clientSecret;
    this.#tokenUrl = `${credentials.authUrl}/oauth/token`;
    this.#exchange = options.exchange;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  async authorize(_request: AuthRequest): Promise<AuthGrant> {
    const token = await this.token();
    return { headers: { authorization: `Bearer ${token.value.reveal()}` }, state: token };
  }

  verify(): void {}

  onChallenge(response: AuthResponse, grant: AuthGrant): ChallengeVerdict {
    if (response.status !== 401) return "fail";
    // upstream-notes: UNAUTHORIZED_ENDPOINT is a missing permission; a new token will not help.
    if (mentionsUnauthorizedEndpoint(response.json)) return "fail";
    // Drop the token only if it is still the current one: a concurrent call may have refreshed it.
    if (this.#current !== undefined && this.#current === grant.state) this.#drop();
    return "retry-once";
  }

  /** The current token, fetching one (single-flight) when there is none or it is due for refresh. */
  token(): Promise<Token> {
    const current = this.#current;
    if (current !== undefined && this.#now() < current.refreshAt) return Promise.resolve(current);
    if (this.#inflight === undefined) {
      spanEvent("token_refresh", { scheme: "oauth" });
      const flight = this.#fetch();
      this.#inflight = flight;
      // Cleared once settled, so a failed fetch is not cached: the next call tries again.
      flight.then(
        () => this.#clear(flight),
        () => this.#clear(flight),
      );
    }
    return this.#inflight;
  }

  /** Forget the cached token (tests, and a 401 made with it). */
  invalidate(): void {
    if (this.#current !== undefined) this.#drop();
  }

  #clear(flight: Promise<Token>): void {
    if (this.#inflight === flight) this.#inflight = undefined;
  }

  #drop(): void {
    const old = this.#current;
    this.#current = undefined;
    old?.value.retire(old.expiresAt);
  }

  async #fetch(): Promise<Token> {
    const requestedAt = this.#now();
    this.#logger.debug("requesting access token", { clientId: this.#clientId });
    let answer: Awaited<ReturnType<TokenExchange>>;
    try {
      answer = await this.#exchange({
        url: this.#tokenUrl,
        headers: {
          authorization: `Basic ${this.#basic.reveal()}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: "grant_type=client_credentials",
      });
    } catch (error) {
      throw tokenEndpointError(error);
    }
    let json: unknown;
    try {
      json = answer.text.trim() === "" ? undefined : (JSON.parse(answer.text) as unknown);
    } catch {
      json = undefined;
    }
    if (answer.status < 200 || answer.status >= 300) throw this.#rejected(answer, json);
    const body = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
    const value = this.#clientSecret.derive(validToken(body, answer.status));
    const rawExpires = Number(body.expires_in);
    const expiresIn = Number.isFinite(rawExpires) && rawExpires > 0 ? rawExpires : DEFAULT_EXPIRES_IN_S;
    const token: Token = {
      value,
      refreshAt: requestedAt + expiresIn * 1000 - refreshMarginMs(expiresIn),
      expiresAt: requestedAt + expiresIn * 1000,
    };
    if (this.#current !== undefined) this.#drop();
    this.#current = token;
    this.#logger.debug("access token obtained", { expiresInS: expiresIn });
    return token;
  }

  #rejected(answer: Awaited<ReturnType<TokenExchange>>, json: unknown): ApiError {
    const request = { method: "POST", path: "/oauth/token" };
    const error = (json as { error?: unknown } | undefined)?.error;
    const upstreamCode = typeof error === "string" ? error : undefined;
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      return new ApiError({
        status: answer.status,
        code: ERROR_CODES.AUTH,
        message: `the token endpoint rejected the client credentials${upstreamCode ? ` (${upstreamCode})` : ""}: ${CREDENTIAL_HINT}`,
        retryable: false,
        details: { endpoint: "token", ...(upstreamCode ? { error: upstreamCode } : {}) },
        request,
      });
    }
    if (answer.status === 404 || answer.status === 405) {
      return new ApiError({
        status: answer.status,
        code: ERROR_CODES.AUTH,
        message: `no token endpoint at ${this.#tokenUrl} (HTTP ${answer.status}): check MMS_AUTH_URL`,
        retryable: false,
        details: { endpoint: "token" },
        request,
      });
    }
    const parsed =
      json === undefined
        ? { kind: "text" as const, text: answer.text, html: /<html|<!doctype/i.test(answer.text) }
        : { kind: "json" as const, value: json };
    const base = responseError(
      { status: answer.status, headers: answer.headers, body: parsed },
      request,
      this.#clientSecret.scope,
    );
    return new ApiError({
      status: answer.status,
      code: base?.code ?? ERROR_CODES.UPSTREAM,
      message: `the token endpoint failed: ${base?.message ?? `HTTP ${answer.status}`}`,
      retryable: answer.status >= 500 || (base?.retryable ?? false),
      details: { endpoint: "token" },
      request,
    });
  }
}

/** Control characters or whitespace: a header built from such a token is broken or injected. */
function unsafeToken(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * The access token of a 2xx token answer, checked before it is cached (issue 9: a token with
 * CR/LF used to be cached for 7,200 s and fail every call). `token_type` must be Bearer in any
 * case (RFC 6749 §5.1: case-insensitive); an absent one is taken as Bearer (api-spec §4.6:
 * "always Bearer"). Errors never quote the token.
 */
function validToken(body: Record<string, unknown>, status: number): string {
  const request = { method: "POST", path: "/oauth/token" };
  const token = body.access_token;
  const tokenType = body.token_type;
  if (typeof token !== "string" || token === "") {
    throw new ApiError({
      status,
      code: ERROR_CODES.BAD_RESPONSE,
      message: "the token endpoint answered without an access_token",
      retryable: true,
      request,
    });
  }
  if (tokenType !== undefined && (typeof tokenType !== "string" || tokenType.toLowerCase() !== "bearer")) {
    const shown = typeof tokenType === "string" ? JSON.stringify(tokenType.slice(0, 40)) : typeof tokenType;
    throw new ApiError({
      status,
      code: ERROR_CODES.AUTH,
      message: `the token endpoint issued a token of type ${shown}; only Bearer tokens are supported: check MMS_AUTH_URL`,
      retryable: false,
      details: {
        endpoint: "token",
        tokenType: typeof tokenType === "string" ? tokenType.slice(0, 40) : null,
      },
      request,
    });
  }
  if (unsafeToken(token)) {
    throw new ApiError({
      status,
      code: ERROR_CODES.BAD_RESPONSE,
      message:
        "the token endpoint issued an access_token containing whitespace or control characters; it was not used: check MMS_AUTH_URL",
      retryable: false,
      details: { endpoint: "token" },
      request,
    });
  }
  return token;
}

function tokenEndpointError(error: unknown): ApiError {
  if (error instanceof ApiError) {
    if (error.code === ERROR_CODES.CANCELLED) return error;
    return new ApiError({
      code: error.code,
      message: `the token endpoint could not be reached: ${error.message}`,
      retryable: error.retryable,
      details: { endpoint: "token", ...(error.details as object | undefined) },
      request: { method: "POST", path: "/oauth/token" },
      cause: error,
    });
  }
  return new ApiError({
    code: ERROR_CODES.NETWORK,
    message: "the token endpoint could not be reached",
    retryable: true,
    details: { endpoint: "token" },
    request: { method: "POST", path: "/oauth/token" },
  });
}
