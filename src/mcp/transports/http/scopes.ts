/**
 * Step 5b of the HTTP edge: scopes, for callers whose token carries them (OAuth). A writer needs
 * mms:write, a reader mms:read, anything else (initialize, tools/list...) either one. A call the token
 * does not allow gets 403 with the insufficient_scope challenge, so the host can ask the user for more.
 * Static tokens carry no scopes: every tool the server offers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Caller, READ_SCOPE, WRITE_SCOPE } from "../../caller.js";
import { isPlainObject } from "./answers.js";
import { type Authenticator, sendRefusal } from "./auth.js";

/** The scope a request needs, or undefined when the caller's scopes allow it. */
export function missingScope(
  caller: Caller,
  body: unknown,
  writers: ReadonlySet<string>,
): string | undefined {
  const scopes = caller.scopes;
  if (scopes === undefined) return undefined;
  if (isPlainObject(body) && body.method === "tools/call" && isPlainObject(body.params)) {
    const name = body.params.name;
    const needed = typeof name === "string" && writers.has(name) ? WRITE_SCOPE : READ_SCOPE;
    return scopes.includes(needed) ? undefined : needed;
  }
  return scopes.includes(READ_SCOPE) || scopes.includes(WRITE_SCOPE) ? undefined : READ_SCOPE;
}

/** Answers 403 insufficient_scope and returns true when the caller's token does not allow the request. */
export function refuseInsufficientScope(
  _req: IncomingMessage,
  res: ServerResponse,
  p: { caller: Caller; body: unknown; writers: ReadonlySet<string>; authenticator: Authenticator },
): boolean {
  const missing = missingScope(p.caller, p.body, p.writers);
  if (missing === undefined || p.authenticator.insufficientScope === undefined) return false;
  sendRefusal(res, p.authenticator.insufficientScope([missing]));
  return true;
}
