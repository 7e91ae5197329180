/**
 * The resource server's public face (RFC 9728, MCP authorization): the protected-resource metadata
 * document, where it is served, and the WWW-Authenticate challenges that point at it.
 * IMPORTANT: `resource` is MCP_PUBLIC_URL byte for byte (hosts compare it with the URL the user typed).
 */
import { READ_SCOPE, WRITE_SCOPE } from "../../../caller.js";

export const SCOPES_SUPPORTED = [READ_SCOPE, WRITE_SCOPE] as const;

export interface ResourceIdentity {
  issuer: string;
  publicUrl: string;
}

/** The metadata document's absolute URL, path form (RFC 9728 §3.1: the resource's path appended). */
export function metadataUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The paths this server answers with the document: the root form, `/mcp`'s, and the public URL's own. */
export function metadataPaths(publicUrl: string): Set<string> {
  const root = "/.well-known/oauth-protected-resource";
  return new Set([root, `${root}/mcp`, new URL(metadataUrl(publicUrl)).pathname]);
}

export function protectedResourceMetadata(identity: ResourceIdentity) {
  return {
    resource: identity.publicUrl,
    authorization_servers: [identity.issuer],
    scopes_supported: [...SCOPES_SUPPORTED],
    bearer_methods_supported: ["header"],
    resource_name: "maintenance-mcp",
  };
}

/** A quoted-string parameter of a challenge (RFC 9110 §11.2): no quote or backslash inside. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, "'")}"`;

/**
 * `Bearer resource_metadata="…", scope="…"` plus, for a refused token, `error` and its description.
 */
export function bearerChallenge(
  identity: ResourceIdentity,
  scope: string,
  error?: { code: "invalid_token" | "insufficient_scope"; description: string },
): string {
  const params = [
    ...(error ? [`error=${quoted(error.code)}`] : []),
    `scope=${quoted(scope)}`,
    `resource_metadata=${quoted(metadataUrl(identity.publicUrl))}`,
    ...(error ? [`error_description=${quoted(error.description)}`] : []),
  ];
  // Without an error, resource_metadata first: what a host needs to start signing in.
  if (!error) params.reverse();
  return `Bearer ${params.join(", ")}`;
}
