/**
 * Content-type aware parsing of a response body that has already been read as text.
 * JSON media types (`application/json`, `application/problem+json`, any `+json`) must parse;
 * a body without a useful content type is tried as JSON when it looks like JSON; anything
 * else is kept as text (an HTML page from a proxy) for the error message.
 */
import type { ParsedBody } from "../errors/normalize.js";

/** The media type without parameters, lower case; "" when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

const isJsonType = (t: string) => t === "application/json" || t.endsWith("+json") || t === "text/json";

export function parseBody(text: string, contentType: string | undefined): ParsedBody {
  // A regex, not text.trim(): trim copies the whole body, which can be megabytes.
  if (!/\S/.test(text)) return { kind: "empty" };
  const type = mediaTypeOf(contentType);
  const html = type === "text/html" || type === "application/xhtml+xml" || /^\s*<(!doctype|html)/i.test(text);
  const looksJson = /^\s*[[{]/.test(text);
  if (isJsonType(type) || (!html && looksJson && (type === "" || type === "text/plain"))) {
    try {
      return { kind: "json", value: JSON.parse(text) as unknown };
    } catch {
      return { kind: "malformed", text };
    }
  }
  return { kind: "text", text, html };
}
