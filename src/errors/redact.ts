/**
 * Redaction shared by the logger and error builders. Keys that name credentials are masked
 * whatever their value; any string containing a known secret value is scrubbed as well.
 */
import { REDACTED_TEXT, Secret } from "../secret.js";

const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|server-authorization|www-authenticate|cookie|set-cookie|client_secret|clientsecret|secret|password|access_token|accesstoken|refresh_token|token|bearer|hawk_key|hawkkey|key|mac|tsm|mcp_http_token|mms_client_secret|mms_hawk_key)$/i;

/** True when a property name denotes a credential. */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

/** Replace every occurrence of a known secret value (min. 4 chars) in a string. */
export function scrubText(text: string): string {
  let out = text;
  for (const value of Secret.knownValues()) {
    if (value.length >= 4 && out.includes(value)) out = out.split(value).join(REDACTED_TEXT);
  }
  return out;
}

/** Deep copy of a value with credentials masked. Handles cycles and Errors. */
export function redact(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return scrubText(value);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Secret) return REDACTED_TEXT;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, seen));
  if (value instanceof Error) {
    const json = (value as { toJSON?: () => unknown }).toJSON?.();
    if (json !== undefined) return redact(json, seen);
    return { name: value.name, message: scrubText(value.message), code: (value as { code?: unknown }).code };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSensitiveKey(k) ? REDACTED_TEXT : redact(v, seen);
  }
  return out;
}
