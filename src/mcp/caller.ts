/**
 * Who sent a request, as the HTTP edge established it and the server factory, the audit log and the
 * spans see it: names only, never a token. Over stdio there is one caller, the local user.
 */
export interface Caller {
  /** The tenant of MCP_TENANTS_FILE, or undefined for the one upstream. */
  tenant: string | undefined;
  /** OAuth: the token's scopes (which tools it may call); undefined for a static token (every tool). */
  scopes?: readonly string[];
  /** OAuth: the token's `sub` (audit log, spans). */
  subject?: string;
  /** OAuth: the token's `client_id` (audit log, spans). */
  clientId?: string;
  /**
   * OAuth, a token with neither `sub` nor a client id: an HMAC of the token under a per-process key
   * (never the token), the owner of its tasks and confirmations, so two such tokens share nothing.
   */
  tokenRef?: string;
}

/** The scope the readers need, and the one the writers need (interface.md §7c). */
export const READ_SCOPE = "mms:read";
export const WRITE_SCOPE = "mms:write";

/** Whether `caller` may call a tool that writes (`write`) or only reads. A static token may call every tool. */
export function mayCall(caller: Caller | undefined, write: boolean): boolean {
  const scopes = caller?.scopes;
  if (scopes === undefined) return true;
  return scopes.includes(write ? WRITE_SCOPE : READ_SCOPE);
}
