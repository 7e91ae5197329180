/**
 * Credentials inside a configured URL (interface.md §9): a user:password@ part, or a query parameter
 * whose name says it is a key, token, secret or password. rules.ts refuses such a URL; names.ts
 * registers what it finds as secrets first, so that no text can show them, the refusal's included.
 */

/** The variables that hold a URL this server prints (--check, errors): none may carry credentials. */
export const URL_VARIABLES = [
  "MMS_BASE_URL",
  "MMS_AUTH_URL",
  "MMS_HUB_URL",
  "MCP_PUBLIC_URL",
  "MCP_OAUTH_ISSUER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
] as const;

/** Query parameter names that carry a credential: key, token, secret, password, api_key, x-api-key, sig... */
const SECRET_PARAMETER =
  /^(?:.*[_.-])?(?:key|apikey|token|secret|password|passwd|pass|pwd|auth|authorization|sig|signature|credentials?|session|sessionid)$/i;

/** The credentials a URL carries: its user:password@ part and the values of secret-looking query parameters. */
export function urlCredentials(raw: string): { where: string[]; values: string[] } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { where: [], values: [] };
  }
  const where: string[] = [];
  const values: string[] = [];
  if (url.username !== "" || url.password !== "") {
    where.push(url.password === "" ? "a user name before @" : "user:password@");
    for (const part of [url.username, url.password]) if (part !== "") values.push(decodeURIComponent(part));
  }
  for (const [name, value] of url.searchParams) {
    if (!SECRET_PARAMETER.test(name)) continue;
    where.push(`the query parameter ${name}`);
    if (value !== "") values.push(value);
  }
  return { where, values };
}
