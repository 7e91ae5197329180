/**
 * URL building that cannot be steered by input: `apiPath` percent-encodes every interpolated
 * value as exactly one path segment and refuses the dot segments, and `withQuery` encodes
 * every query value (a `+` in a date offset becomes `%2B`). Pure: no I/O, no undici.
 * IMPORTANT: paths built here are sent verbatim (never re-parsed by `new URL`), so what the
 * Hawk signer sees is byte for byte what the server receives.
 */
import { UserInputError } from "../errors/api-error.js";

export type PathValue = string | number;

/**
 * Tagged template for API paths: apiPath`/warehouse_entries_orders/${code}`.
 * Each value becomes one segment (`/ ? # %` encoded); empty, `.` and `..` are rejected so a
 * value such as `..` or `../x` can never reach another endpoint.
 */
export function apiPath(strings: TemplateStringsArray, ...values: PathValue[]): string {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += encodeSegment(value, i) + (strings[i + 1] ?? "");
  });
  return out;
}

function encodeSegment(value: PathValue, position: number): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new UserInputError(`Path parameter ${position + 1} must be a finite number, got ${value}`, {
        position,
      });
    }
    return String(value);
  }
  if (typeof value !== "string") {
    throw new UserInputError(`Path parameter ${position + 1} must be text or a number`, { position });
  }
  // `.` and `..` would be resolved as dot segments by servers and proxies (RFC 3986 §5.2.4).
  if (value === "" || value === "." || value === "..") {
    throw new UserInputError(
      `Path parameter ${JSON.stringify(value)} is not allowed: a path value must not be empty, "." or ".."`,
      { position, value },
    );
  }
  return encodeURIComponent(value);
}

export type QueryValue = string | number | boolean | undefined;

/** Percent-encode one query key or value. `:` stays literal (RFC 3986 allows it in a query; upstream samples use it). */
export function encodeQueryComponent(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ":");
}

/** Append `?k=v&...` for the defined values, in the given order. `+` becomes `%2B`, space `%20`. */
export function withQuery(path: string, params: ReadonlyArray<readonly [string, QueryValue]>): string {
  const parts: string[] = [];
  for (const [key, value] of params) {
    if (value === undefined) continue;
    parts.push(`${encodeQueryComponent(key)}=${encodeQueryComponent(String(value))}`);
  }
  return parts.length === 0 ? path : `${path}?${parts.join("&")}`;
}

/** A base URL split into what the transport and the Hawk signer need. */
export interface BaseUrl {
  /** `https://host[:port]` */
  origin: string;
  protocol: "http:" | "https:";
  hostname: string;
  /** Explicit port, else 443 for https and 80 for http. */
  port: number;
  /** Path prefix without a trailing slash: `/api`, or "" at the root. */
  prefix: string;
}

/** Split a configured base URL (`https://host/api`) once; the prefix is kept exactly as configured. */
export function parseBaseUrl(baseUrl: string): BaseUrl {
  const url = new URL(baseUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Unsupported protocol in base URL: ${url.protocol}`);
  }
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return {
    origin: url.origin,
    protocol: url.protocol,
    hostname,
    port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
    prefix: url.pathname.replace(/\/+$/, ""),
  };
}
