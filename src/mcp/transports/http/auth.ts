/**
 * Step 3 of the HTTP edge: who is calling. Every scheme (no authentication on loopback, the static
 * MCP_HTTP_TOKEN, the tenants file's tokens, OAuth access tokens) implements one interface,
 * `Authenticator`; `firstOf` runs several side by side (a tenant's static token beside OAuth), and
 * `authenticate` is the step: it reads the credentials, asks the authenticator, and answers a refusal.
 * IMPORTANT: a token is never echoed, logged or kept: the caller carries names (tenant, sub,
 * client_id), and a refusal's text is the scheme's own.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../../caller.js";
import { rpcError, sendJson } from "./answers.js";

export type { Caller };

/**
 * A refused request: its status, its WWW-Authenticate challenge and the message of the JSON-RPC
 * error. A 503 is no judgement of the credentials (the token could not be checked now): it carries
 * Retry-After and no challenge, so a host retries instead of sending its user to sign in again.
 */
export type Refusal = Challenge | { status: 503; retryAfterSeconds: number; message: string };

/** A refusal of the credentials themselves (401) or of what they allow (403), with its challenge. */
export interface Challenge {
  status: 401 | 403;
  challenge: string;
  message: string;
}

/** What an authenticator says of a request's credentials. */
export type AuthOutcome =
  | { kind: "accepted"; caller: Caller }
  /** Not a credential of this scheme: another authenticator may know it, else `unauthorized`. */
  | { kind: "unknown" }
  | { kind: "refused"; refusal: Refusal };

/** The credentials of a request, as the step read them. */
export interface Credentials {
  /** The token of `Authorization: Bearer <token>`, or undefined without that header. */
  bearer: string | undefined;
  /** The client's address, for fair shares of costly checks (token introspection). */
  source?: string;
}

/** An answer to a path outside /mcp (OAuth discovery), written as JSON. */
export interface DiscoveryAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One way of authenticating clients. */
export interface Authenticator {
  /** For the start-up log line: "none", "bearer", "tenants", "oauth", or joined with "+". */
  readonly scheme: string;
  authenticate(credentials: Credentials): AuthOutcome | Promise<AuthOutcome>;
  /** The 401 when no authenticator accepted the request (`sentBearer`: a token was sent, and is wrong). */
  unauthorized(sentBearer: boolean): Challenge;
  /** The answer to a discovery path a client probes (RFC 9728, RFC 8414...), or undefined (plain 404). */
  discovery(path: string): DiscoveryAnswer | undefined;
  /** The 403 for a caller whose token lacks `scopes` (only schemes that issue scoped callers). */
  insufficientScope?(scopes: readonly string[]): Challenge;
}

/**
 * Several authenticators side by side, first match wins: a request one of them accepts or refuses
 * ends there; one that none knows gets the last one's 401 (the primary scheme: its challenge tells
 * clients what to do). Discovery is the last one's too.
 */
export function firstOf(...authenticators: Authenticator[]): Authenticator {
  const primary = authenticators.at(-1);
  if (primary === undefined) throw new Error("firstOf needs at least one authenticator");
  if (authenticators.length === 1) return primary;
  return {
    scheme: authenticators.map((a) => a.scheme).join("+"),
    async authenticate(credentials) {
      for (const authenticator of authenticators) {
        const outcome = await authenticator.authenticate(credentials);
        if (outcome.kind !== "unknown") return outcome;
      }
      return { kind: "unknown" };
    },
    unauthorized: (sentBearer) => primary.unauthorized(sentBearer),
    discovery: (path) => primary.discovery(path),
    ...(primary.insufficientScope ? { insufficientScope: primary.insufficientScope } : {}),
  };
}

/** RFC 6750 names it `access_token`; a token in a URL ends up in logs and histories, so it is refused. */
export function tokenInQuery(url: string | undefined): boolean {
  const query = url?.split("?")[1];
  return query !== undefined && new URLSearchParams(query).has("access_token");
}

export function credentialsOf(req: IncomingMessage): Credentials {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
  const bearer = match?.[1]?.trim();
  return { bearer: bearer === "" ? undefined : bearer, source: req.socket?.remoteAddress ?? "" };
}

export function sendRefusal(res: ServerResponse, refusal: Refusal): void {
  sendJson(
    res,
    refusal.status,
    rpcError(-32001, refusal.message),
    refusal.status === 503
      ? { "retry-after": String(refusal.retryAfterSeconds) }
      : { "www-authenticate": refusal.challenge },
  );
}

/**
 * The step: the caller, or undefined after answering 401/403. The SDK hands `req.auth` to the
 * server factory as authInfo; it carries the caller's names, never the token.
 */
export async function authenticate(
  req: IncomingMessage,
  res: ServerResponse,
  authenticator: Authenticator,
): Promise<Caller | undefined> {
  const credentials = credentialsOf(req);
  if (tokenInQuery(req.url)) {
    sendRefusal(res, authenticator.unauthorized(true));
    return undefined;
  }
  const outcome = await authenticator.authenticate(credentials);
  if (outcome.kind === "accepted") {
    const { caller } = outcome;
    (req as IncomingMessage & { auth?: unknown }).auth = {
      token: "",
      clientId: caller.clientId ?? caller.tenant ?? "",
      scopes: [...(caller.scopes ?? [])],
      extra: { caller },
    };
    return caller;
  }
  sendRefusal(
    res,
    outcome.kind === "refused"
      ? outcome.refusal
      : authenticator.unauthorized(credentials.bearer !== undefined),
  );
  return undefined;
}
