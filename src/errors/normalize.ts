/**
 * The one factory turning upstream answers and transport failures into `ApiError` (STYLE.md
 * rule 8): the `{success:false}` envelope whatever the HTTP status (also spelled `mensaje`),
 * `application/problem+json` in the spec's and in RFC 9457 form, non-JSON pages from proxies,
 * malformed JSON, and refused / reset / DNS / timeout failures. Pure: no I/O.
 * IMPORTANT: the `request` summary is method + path only; every text passes through scrubText, with
 * the secrets of the caller's scope (its configuration's; the process's by default).
 */
import {
  ApiError,
  ERROR_CODES,
  type ErrorCode,
  type IndexedError,
  type RequestSummary,
} from "./api-error.js";
import { failureCode, isTlsCode, isTlsToPlainHttp, PLAIN_HTTP_TO_TLS } from "./failure-codes.js";
import { redact, scrubText } from "./redact.js";
import { PROCESS_SECRETS, type SecretScope } from "./secret.js";

/** A response body after content-type aware parsing (src/client/body.ts). */
export type ParsedBody =
  | { kind: "empty" }
  | { kind: "json"; value: unknown }
  /** Not JSON: an HTML page from a proxy, plain text. */
  | { kind: "text"; text: string; html: boolean }
  /** Declared or looked like JSON, but did not parse. */
  | { kind: "malformed"; text: string };

export interface ResponseInfo {
  /** HTTP status. */
  status: number;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: ParsedBody;
}

/** api-spec §7 and upstream-notes "Status codes": the status → code table. */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return ERROR_CODES.VALIDATION;
    case 401:
    case 407:
      return ERROR_CODES.AUTH;
    case 403:
      return ERROR_CODES.FORBIDDEN;
    case 404:
      return ERROR_CODES.NOT_FOUND;
    case 406:
    case 429:
      return ERROR_CODES.RATE_LIMITED;
    case 408:
      // upstream-notes: 408 means "item already exists" in this API family, not a timeout.
      return ERROR_CODES.CONFLICT;
    default:
      return ERROR_CODES.UPSTREAM;
  }
}

const RETRYABLE_STATUS = new Set([502, 503, 504]);
const isRetryableStatus = (status: number) =>
  RETRYABLE_STATUS.has(status) || status === 406 || status === 429;

const DEFAULT_TEXT: Record<number, string> = {
  400: "the request was rejected as invalid",
  401: "the credential was rejected (token missing, invalid or expired)",
  403: "the credential lacks the permission for this operation, or the company lacks the advanced-APIs add-on",
  404: "the record does not exist",
  406: "too many requests: the per-minute rate limit was exceeded",
  407: "the Hawk timestamp was rejected (clock skew)",
  408: "the item already exists",
  422: "the request failed validation",
  429: "too many requests: the rate limit was exceeded",
};

function defaultText(status: number): string {
  return (
    DEFAULT_TEXT[status] ?? (status >= 500 ? `the upstream failed with HTTP ${status}` : `HTTP ${status}`)
  );
}

const UNAUTHORIZED_ENDPOINT = "UNAUTHORIZED_ENDPOINT";

/** upstream-notes: a 401 saying UNAUTHORIZED_ENDPOINT is a missing permission; a new token will not help. */
export function mentionsUnauthorizedEndpoint(value: unknown): boolean {
  if (value === undefined) return false;
  try {
    return JSON.stringify(value).includes(UNAUTHORIZED_ENDPOINT);
  } catch {
    return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const asText = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;

/** An envelope (api-spec §1) whose `success` is false, "false" or 0. */
export function isEnvelopeFailure(value: unknown): value is Record<string, unknown> {
  if (!isObject(value) || !("success" in value)) return false;
  const s = value.success;
  return s === false || s === "false" || s === 0 || s === "0";
}

/** The envelope's result code: `message`, or `mensaje` in some documented examples. */
export function envelopeMessage(value: Record<string, unknown>): string | undefined {
  return asText(value.message) ?? asText(value.mensaje);
}

function isProblem(value: unknown, mediaType: string): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  if (mediaType === "application/problem+json") return true;
  return "error_code" in value || "status_code" in value || ("type" in value && "title" in value);
}

/** A short, single-line, secret-free excerpt of a body: the HTML <title> first, tags stripped. */
export function snippet(text: string, max = 160, scope: SecretScope = PROCESS_SECRETS): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const stripped = text.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ");
  const base = title ? `${title.trim()} | ${stripped}` : stripped;
  // Scrubbed before the line breaks go: a secret echoed as base64 wrapped at 76 is still whole then.
  const flat = scrubText(base, scope).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

interface DataItems {
  indexed: IndexedError[];
  texts: string[];
}

/** The failing items of an envelope's `data`: 422 `{index, error}`, 404 `{ERROR}`, plain text. */
function dataItems(data: unknown, scope: SecretScope): DataItems {
  const out: DataItems = { indexed: [], texts: [] };
  const visit = (item: unknown) => {
    if (isObject(item)) {
      const index = typeof item.index === "number" ? item.index : Number(item.index);
      const error = asText(item.error);
      if (Number.isInteger(index) && error !== undefined) {
        out.indexed.push({ index, error: scrubText(error, scope) });
        return;
      }
      const text = asText(item.ERROR) ?? asText(item.error) ?? asText(item.message);
      out.texts.push(scrubText(text ?? JSON.stringify(redact(item, scope)).slice(0, 300), scope));
      return;
    }
    const text = asText(item);
    if (text !== undefined && text !== "") out.texts.push(scrubText(text, scope));
  };
  if (Array.isArray(data)) data.forEach(visit);
  else if (data !== null && data !== undefined) visit(data);
  return out;
}

/** Every indexed error, in order, never truncated: "[1] id_item 99 is …; [3] duplicate resource". */
export function joinIndexed(errors: readonly IndexedError[]): string {
  return errors.map((e) => `[${e.index}] ${e.error}`).join("; ");
}

function fromEnvelope(
  res: ResponseInfo,
  env: Record<string, unknown>,
  request: RequestSummary | undefined,
  scope: SecretScope,
): ApiError {
  const message = envelopeMessage(env);
  const numeric = message !== undefined && /^\d{3}$/.test(message.trim()) ? Number(message) : undefined;
  const status = numeric ?? res.status;
  const items = dataItems(env.data, scope);
  const forbiddenEndpoint = mentionsUnauthorizedEndpoint(env);
  let code: ErrorCode = status >= 200 && status < 300 ? ERROR_CODES.UPSTREAM : codeForStatus(status);
  if (forbiddenEndpoint) code = ERROR_CODES.FORBIDDEN;

  let text: string;
  if (items.indexed.length > 0) text = joinIndexed(items.indexed);
  else if (items.texts.length > 0) text = items.texts.join("; ");
  else if (forbiddenEndpoint)
    text = "the credential is not authorised for this endpoint (UNAUTHORIZED_ENDPOINT)";
  else if (message !== undefined && numeric === undefined && message.trim() !== "")
    text = scrubText(message, scope);
  else text = defaultText(status);

  let details: unknown;
  if (items.indexed.length > 0) details = items.indexed;
  else if (status === 404 && items.texts.length > 0) details = { error: items.texts.join("; ") };
  else details = { message, data: redact(env.data ?? null, scope) };
  if (res.status !== status && !Array.isArray(details))
    details = { ...(details as object), httpStatus: res.status };

  return new ApiError({
    status,
    code,
    message: text,
    retryable: code !== ERROR_CODES.FORBIDDEN && isRetryableStatus(status),
    details,
    request,
  });
}

const PROBLEM_CODES: Record<string, ErrorCode> = {
  TOKEN_EXPIRED: ERROR_CODES.AUTH,
  MISSING_BEARER_TOKEN: ERROR_CODES.AUTH,
  OAUTH2_ETL_ACCESS_DENIED: ERROR_CODES.FORBIDDEN,
  BACKEND_RPC_ERROR: ERROR_CODES.UPSTREAM,
};

function fromProblem(
  res: ResponseInfo,
  p: Record<string, unknown>,
  request: RequestSummary | undefined,
  scope: SecretScope,
): ApiError {
  const bodyStatus = Number(p.status_code ?? p.status);
  const status = res.status >= 400 || !Number.isInteger(bodyStatus) ? res.status : bodyStatus;
  const errorCode = asText(p.error_code);
  const code = (errorCode && PROBLEM_CODES[errorCode]) || codeForStatus(status);
  const said = asText(p.detail) ?? asText(p.message) ?? asText(p.title);
  const text = `${scrubText(said ?? defaultText(status), scope)}${errorCode ? ` (${errorCode})` : ""}`;
  const details: Record<string, unknown> = {};
  for (const key of ["error_code", "type", "title", "instance"] as const) {
    const v = asText(p[key]);
    if (v !== undefined) details[key] = scrubText(v, scope);
  }
  return new ApiError({
    status,
    code,
    message: text,
    retryable: isRetryableStatus(status) || errorCode === "BACKEND_RPC_ERROR",
    details,
    request,
  });
}

function fromOtherJson(
  res: ResponseInfo,
  value: unknown,
  request: RequestSummary | undefined,
  scope: SecretScope,
): ApiError {
  const status = res.status;
  let said: string | undefined;
  const details: Record<string, unknown> = {};
  if (isObject(value)) {
    said =
      asText(value.error_description) ?? asText(value.message) ?? asText(value.detail) ?? asText(value.error);
    const err = asText(value.error);
    if (err !== undefined) details.error = scrubText(err, scope);
  }
  return new ApiError({
    status,
    code: mentionsUnauthorizedEndpoint(value) ? ERROR_CODES.FORBIDDEN : codeForStatus(status),
    message: scrubText(said ?? defaultText(status), scope),
    retryable: isRetryableStatus(status),
    details,
    request,
  });
}

/** Statuses whose meaning does not depend on the body (auth challenges, rate limits). */
const STATUS_DRIVEN = new Set([401, 403, 406, 407, 429]);

function fromUnparsable(
  res: ResponseInfo,
  request: RequestSummary | undefined,
  scope: SecretScope,
): ApiError {
  const { status, body } = res;
  const text = body.kind === "text" || body.kind === "malformed" ? body.text : "";
  const excerpt = snippet(text, 160, scope);
  // An error status with an empty body still says what happened; an HTML page does not prove a 404/422.
  const statusDriven = STATUS_DRIVEN.has(status) || (body.kind === "empty" && status >= 300);
  let what: string;
  if (body.kind === "malformed") what = "malformed JSON";
  else if (body.kind === "text" && body.html)
    what = "an HTML page instead of JSON (probably a proxy or gateway, or a wrong base URL)";
  else if (body.kind === "empty") what = statusDriven ? "empty" : "an empty body where JSON was expected";
  else what = "a non-JSON body";
  const quoted = excerpt ? `: "${excerpt}"` : "";
  const message = statusDriven
    ? `${defaultText(status)} (body: ${what}${quoted})`
    : `upstream answered HTTP ${status} with ${what}${quoted}`;
  return new ApiError({
    status,
    code: statusDriven ? codeForStatus(status) : ERROR_CODES.BAD_RESPONSE,
    message,
    retryable: isRetryableStatus(status),
    details: { contentType: res.headers["content-type"] ?? null, snippet: excerpt },
    request,
  });
}

/**
 * The error an upstream answer stands for, or undefined when it is a success: any status
 * outside 2xx, and a 2xx whose envelope says `success: false` (clients check it even on 200).
 * Texts are scrubbed with the secrets of `scope` (the client's configuration).
 */
export function responseError(
  res: ResponseInfo,
  request?: RequestSummary,
  scope: SecretScope = PROCESS_SECRETS,
): ApiError | undefined {
  const ok = res.status >= 200 && res.status < 300;
  const { body } = res;
  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.location;
    return new ApiError({
      status: res.status,
      code: ERROR_CODES.UPSTREAM,
      message: `upstream redirected (HTTP ${res.status})${location ? ` to ${scrubText(location, scope)}` : ""}; redirects are not followed: check the configured URL (http vs https, path prefix)`,
      request,
    });
  }
  if (body.kind === "json") {
    if (isEnvelopeFailure(body.value)) return fromEnvelope(res, body.value, request, scope);
    if (ok) return undefined;
    const mediaType = (res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (isProblem(body.value, mediaType)) return fromProblem(res, body.value, request, scope);
    const v = body.value;
    if (isObject(v) && ("success" in v || "mensaje" in v || "data" in v))
      return fromEnvelope(res, v, request, scope);
    return fromOtherJson(res, v, request, scope);
  }
  if (res.status === 204) return undefined;
  return fromUnparsable(res, request, scope);
}

/** What the transport knows about a failure that produced no HTTP answer. */
export interface TransportFailureInfo {
  /** `ECONNREFUSED`, `UND_ERR_SOCKET`, … or `TIMEOUT` for our own per-attempt timer. */
  code: string;
  message: string;
  /** `https://host:port` of the target. */
  origin: string;
  timeoutMs?: number | undefined;
  /** Whether the request may change state upstream when repeated (false for POST). */
  idempotent: boolean;
}

/** OpenSSL's reason from its error text ("…:SSL routines:ssl3_get_record:wrong version number:…"). */
function tlsReason(message: string, scope: SecretScope): string {
  const reason = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
  return scrubText(reason ?? message.split("\n")[0] ?? "", scope);
}

/** A transport failure (no HTTP answer) as an ApiError: NETWORK or TIMEOUT. */
export function transportError(
  info: TransportFailureInfo,
  request?: RequestSummary,
  scope: SecretScope = PROCESS_SECRETS,
): ApiError {
  const { code, origin } = info;
  const known = failureCode(code);
  const host = origin.replace(/^https?:\/\//, "");
  let message: string;
  if (code === "TIMEOUT") message = `no complete answer from ${host} within ${info.timeoutMs ?? "?"} ms`;
  else if (code === "ECONNREFUSED")
    message = `connection refused by ${host}: nothing accepts connections there`;
  else if (isTlsToPlainHttp(code))
    message = `${host} answered in plain HTTP, not TLS: the URL says https:// but the server there speaks http://`;
  else if (code === PLAIN_HTTP_TO_TLS)
    message = `${host} speaks TLS (HTTPS) and dropped the plain-HTTP request: the URL says http:// but the server there speaks https://`;
  else if (code === "ENOTFOUND") message = `DNS lookup failed for ${host}: no such host name`;
  else if (code === "EAI_AGAIN") message = `temporary DNS failure resolving ${host}`;
  else if (code === "UND_ERR_CONNECT_TIMEOUT") message = `could not connect to ${host} in time`;
  else if (known?.timeout) message = `${host} did not answer in time (${code})`;
  else if (["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"].includes(code))
    message = `the connection to ${host} was closed before the response was complete (${code})`;
  else if (isTlsCode(code))
    message = `TLS failure talking to ${host}: ${tlsReason(info.message, scope)} (${code})`;
  else message = `request to ${host} failed: ${scrubText(info.message, scope)} (${code})`;

  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
    return new ApiError({
      code: ERROR_CODES.BAD_RESPONSE,
      message: `the answer from ${host} was larger than the client accepts; narrow the query (smaller limit)`,
      retryable: false,
      details: { cause: code },
      request,
    });
  }
  const ambiguousWrite = !info.idempotent && known?.neverSent !== true;
  if (ambiguousWrite)
    message += "; the write may or may not have been applied upstream: check before repeating it";
  // Connection refused is retried by the policy (a restarting server), but once the retries are
  // spent it is the configured URL or a server that is down: the agent's retry will not help.
  const permanent = known?.transient === false || isTlsCode(code) || code === "ECONNREFUSED";
  return new ApiError({
    code: known?.timeout ? ERROR_CODES.TIMEOUT : ERROR_CODES.NETWORK,
    message,
    retryable: !permanent && !ambiguousWrite,
    details: ambiguousWrite ? { cause: code, outcome: "unknown" } : { cause: code },
    request,
  });
}

/** The caller aborted (MCP cancellation). A write in flight may or may not have been applied. */
export function cancelledError(request: RequestSummary | undefined, writeInFlight = false): ApiError {
  return new ApiError({
    code: ERROR_CODES.CANCELLED,
    message: writeInFlight
      ? "the call was cancelled while the write was in flight; it may or may not have been applied upstream"
      : "the call was cancelled",
    retryable: !writeInFlight,
    details: writeInFlight ? { outcome: "unknown" } : undefined,
    request,
  });
}

/** A copy of `error` with more details (and optionally more message); arrays go under `errors`. */
export function withDetails(
  error: ApiError,
  extra: Record<string, unknown>,
  suffix = "",
  retryable = error.retryable,
  retryAt = error.retryAt,
): ApiError {
  const base =
    error.details === undefined
      ? {}
      : Array.isArray(error.details) || !isObject(error.details)
        ? { errors: error.details }
        : error.details;
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.message + suffix,
    retryable,
    details: { ...base, ...extra },
    request: error.request,
    cause: error.cause,
    retryAt,
  });
}

/** Summarise a request for errors and logs: method and path with query, the secrets of `scope` scrubbed. */
export function requestSummary(
  method: string,
  path: string,
  scope: SecretScope = PROCESS_SECRETS,
): RequestSummary {
  return new ScrubbedSummary(method, path, scope);
}

/**
 * The path is scrubbed when read (an error is being built or logged), not on every request: the
 * secret matchers cost ~15 ms to compile on first use and a few µs per path afterwards. A class,
 * not an object literal with a getter: every call builds two of these, and a literal's accessor
 * costs a closure and a map of its own each time.
 */
class ScrubbedSummary implements RequestSummary {
  #raw: string;
  #scope: SecretScope;
  #scrubbed: string | undefined;
  constructor(
    readonly method: string,
    path: string,
    scope: SecretScope,
  ) {
    this.#raw = path;
    this.#scope = scope;
  }
  get path(): string {
    this.#scrubbed ??= scrubText(this.#raw, this.#scope);
    return this.#scrubbed;
  }
  toJSON(): RequestSummary {
    return { method: this.method, path: this.path };
  }
}
