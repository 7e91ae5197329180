/**
 * The one table of transport failure codes (a request that got no HTTP answer), read by the
 * normaliser (normalize.ts: message, TIMEOUT vs NETWORK, "outcome unknown") and by the retry
 * policy (client/retry.ts: what is repeated). Codes are Node's (`ECONNRESET`), undici's
 * (`UND_ERR_*`) or our own per-attempt timer's (`TIMEOUT`).
 * IMPORTANT: one fact, one place: a code's "never sent" decides both whether a POST may be
 * repeated and whether its error says the write may have been applied. Never copy these sets.
 */

export interface FailureCode {
  /** No byte of the request left this process: a POST that failed so was certainly not applied. */
  neverSent: boolean;
  /** A later attempt may succeed (false: fix the configuration instead). */
  transient: boolean;
  /** Reported as TIMEOUT rather than NETWORK. */
  timeout: boolean;
}

/** Our code for a plain-HTTP request to a port that speaks TLS (the server dropped it unread). */
export const PLAIN_HTTP_TO_TLS = "ERR_PLAIN_HTTP_TO_TLS";

const code = (neverSent: boolean, transient: boolean, timeout = false): FailureCode =>
  Object.freeze({ neverSent, transient, timeout });

/** Every code the client knows. Anything else: NETWORK, may have been sent, not repeated automatically. */
export const FAILURE_CODES: Readonly<Record<string, FailureCode>> = Object.freeze({
  // Before any byte is sent: connection refused, DNS, routing, connect timeout.
  ECONNREFUSED: code(true, true),
  EAI_AGAIN: code(true, true),
  // DNS says the host does not exist: never sent, and retrying will not help (a wrong URL).
  ENOTFOUND: code(true, false),
  ENETUNREACH: code(true, true),
  EHOSTUNREACH: code(true, true),
  UND_ERR_CONNECT_TIMEOUT: code(true, true, true),
  // After the request may have reached the server: the outcome of a write is unknown.
  ECONNRESET: code(false, true),
  EPIPE: code(false, true),
  ECONNABORTED: code(false, true),
  UND_ERR_SOCKET: code(false, true),
  UND_ERR_CLOSED: code(false, true),
  ETIMEDOUT: code(false, true, true),
  UND_ERR_HEADERS_TIMEOUT: code(false, true, true),
  UND_ERR_BODY_TIMEOUT: code(false, true, true),
  TIMEOUT: code(false, true, true),
  // An https:// URL on a port that speaks plain HTTP: the handshake failed, nothing was sent.
  ERR_SSL_WRONG_VERSION_NUMBER: code(true, false),
  ERR_SSL_PACKET_LENGTH_TOO_LONG: code(true, false),
  // An http:// URL on a port that speaks TLS (found by src/client/tls-probe.ts): the server dropped
  // the request unread, so it was not applied.
  [PLAIN_HTTP_TO_TLS]: code(true, false),
});

/** The TLS failures of an https:// URL whose port speaks plain HTTP. */
export const isTlsToPlainHttp = (name: string): boolean =>
  name === "ERR_SSL_WRONG_VERSION_NUMBER" || name === "ERR_SSL_PACKET_LENGTH_TOO_LONG";

/** What the client knows about a transport failure code; undefined for codes it does not know. */
export function failureCode(name: string): FailureCode | undefined {
  return Object.hasOwn(FAILURE_CODES, name) ? FAILURE_CODES[name] : undefined;
}

/** TLS handshake and certificate failures: permanent until the configuration changes. */
export const isTlsCode = (name: string): boolean =>
  /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(name);
