/**
 * Response builders. Handlers return a `Reply` (status, body text, content type) instead of
 * writing to the socket, so the server can add `Server-Authorization` (Hawk) over the exact
 * bytes sent, and faults can replace the answer.
 */

export interface Reply {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

/** Plain JSON answer (token endpoint, hub success). */
export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(value), contentType: "application/json; charset=utf-8", headers };
}

/** api-spec §1: `{success, message, data, total}`; the HTTP status mirrors `message`. */
export function envelope(status: number, success: boolean, data: unknown, total: number): Reply {
  return json(status, { success, message: String(status), data, total });
}

export function ok(data: unknown, total: number, status = 200): Reply {
  return envelope(status, true, data, total);
}

/** Failure envelope with `data` = list of error items (`{ERROR}` or `{index, error}`). */
export function fail(status: number, data: unknown[]): Reply {
  return envelope(status, false, data, 0);
}

/** api-spec §4.1: 404 (and other single errors) carry `[{ERROR: "..."}]`. */
export function errorItem(status: number, ...messages: string[]): Reply {
  return fail(
    status,
    messages.map((m) => ({ ERROR: m })),
  );
}

export interface IndexedError {
  index: number;
  error: string;
}

/** api-spec §4.1: 422 lists every failing element as `{index, error}`. */
export function indexed(errors: IndexedError[]): Reply {
  return fail(422, errors);
}

/** api-spec §7.2: hub errors are RFC 9457 problem documents with error_code/message/status_code. */
export function problem(status: number, errorCode: string, message: string): Reply {
  return {
    status,
    body: JSON.stringify({ error_code: errorCode, message, status_code: status }),
    contentType: "application/problem+json",
  };
}

/** OAuth 2.0 error document of the token endpoint (RFC 6749 §5.2). */
export function oauthError(status: number, error: string, description: string): Reply {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (status === 401) headers["WWW-Authenticate"] = 'Basic realm="oauth"';
  return json(status, { error, error_description: description }, headers);
}
