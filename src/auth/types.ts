/**
 * The auth strategy contract between `src/client/http.ts` and the schemes (OAuth Bearer,
 * Hawk). The HTTP layer calls `authorize` before every attempt, `verify` on every answer,
 * and `onChallenge` on a 401/407; it repeats a call at most once on "retry-once".
 * IMPORTANT: strategies never put a credential in an error, a log field or `state`'s printout.
 */

/** The request about to be sent, exactly as it will go on the wire. */
export interface AuthRequest {
  method: string;
  protocol: "http:" | "https:";
  hostname: string;
  /** Explicit port, else 443/80 by scheme. */
  port: number;
  /** Path and query exactly as sent (the Hawk `resource`). */
  path: string;
  /** The exact body bytes as text (JSON), when there is a body. */
  body?: string | undefined;
  /** The `Content-Type` that will be sent with the body. */
  contentType?: string | undefined;
}

/** What `authorize` adds: headers, and opaque state handed back to `verify`/`onChallenge`. */
export interface AuthGrant {
  headers: Record<string, string>;
  state?: unknown;
}

/** An upstream answer as the strategy sees it. */
export interface AuthResponse {
  status: number;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body text (Hawk verifies the response payload hash over it). */
  text: string;
  /** The parsed JSON body, when it was JSON. */
  json: unknown;
}

export type ChallengeVerdict = "retry-once" | "fail";

export interface AuthStrategy {
  /** "oauth" or "hawk", for logs. */
  readonly scheme: string;
  /** Headers for one attempt. May fetch a token; rejects with ApiError (AUTH, NETWORK, …). */
  authorize(request: AuthRequest, signal?: AbortSignal): Promise<AuthGrant>;
  /** Check an answer's authenticity (Hawk `Server-Authorization`, `tsm`); throws ApiError SECURITY. */
  verify(response: AuthResponse, grant: AuthGrant): void;
  /** Called after `verify` for a 401/407: whether re-authenticating and repeating once may help. */
  onChallenge(response: AuthResponse, grant: AuthGrant): ChallengeVerdict;
  /** Appended to the message of an auth failure that survived the one repeat. */
  readonly afterRetryHint: string;
}
