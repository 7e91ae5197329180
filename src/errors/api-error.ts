/**
 * The one error type of the project, and its two siblings for local problems.
 * `ApiError` is what every upstream or transport failure becomes (built by `normalize.ts`);
 * `UserInputError` is a local pre-call check; `ConfigError` is bad environment or flags.
 * IMPORTANT: none of them may carry a credential: `request` holds method and path only.
 */

/** Stable, documented error codes (modelled on undici's UND_ERR_*). */
export const ERROR_CODES = Object.freeze({
  /** 422 or a local check: the input breaks a rule of the API. */
  VALIDATION: "VALIDATION",
  /** 404: the referenced record does not exist. */
  NOT_FOUND: "NOT_FOUND",
  /** 403 or 401 UNAUTHORIZED_ENDPOINT: the credential lacks a permission or the company an add-on. */
  FORBIDDEN: "FORBIDDEN",
  /** 401 after one refresh, or rejected client credentials at the token endpoint. */
  AUTH: "AUTH",
  /** 408 from this API: the item already exists. Never retried. */
  CONFLICT: "CONFLICT",
  /** 429 / 406: rate limit exceeded and the wait did not fit the time budget. */
  RATE_LIMITED: "RATE_LIMITED",
  /** 5xx or an unexpected status. */
  UPSTREAM: "UPSTREAM",
  /** A body that is not the JSON the API promises (an HTML proxy page, malformed JSON). */
  BAD_RESPONSE: "BAD_RESPONSE",
  /** The request timed out (MMS_TIMEOUT_MS) or the total retry budget ran out. */
  TIMEOUT: "TIMEOUT",
  /** Connection refused, reset, DNS failure. */
  NETWORK: "NETWORK",
  /** A response failed Hawk verification (forged Server-Authorization or tsm). */
  SECURITY: "SECURITY",
  /** The caller aborted (MCP cancellation). */
  CANCELLED: "CANCELLED",
  /** A keyed write refused locally by the idempotency store (in progress, full, unreachable); nothing was sent. */
  IDEMPOTENCY: "IDEMPOTENCY",
});
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** The request an error came from, redacted: method and path (with query), never headers or bodies. */
export interface RequestSummary {
  method: string;
  path: string;
}

export interface ApiErrorInit {
  status?: number | undefined;
  code: ErrorCode;
  message: string;
  retryable?: boolean;
  details?: unknown;
  request?: RequestSummary | undefined;
  cause?: unknown;
  /** RATE_LIMITED: when (epoch ms) the company's budget or the upstream's limit allows a request again. */
  retryAt?: number | undefined;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  /** HTTP status when the upstream answered; undefined for transport failures. */
  readonly status: number | undefined;
  readonly code: ErrorCode;
  /** Whether repeating the same call later may succeed. */
  readonly retryable: boolean;
  /** Structured detail: the 422 `{index, error}` list, the 404 `ERROR` text, a body snippet. */
  readonly details: unknown;
  readonly request: RequestSummary | undefined;
  /**
   * Set on RATE_LIMITED: when (epoch ms, the client's clock) a request may be sent again, from the
   * upstream's reset headers or the company's request budget (src/client/rate-budget.ts). Whatever
   * was read before it stays valid: a caller keeps it and resumes at or after this time.
   */
  readonly retryAt: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable ?? false;
    this.details = init.details;
    this.request = init.request;
    this.retryAt = init.retryAt;
  }

  toJSON() {
    return {
      name: this.name,
      status: this.status,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
      request: this.request,
      ...(this.retryAt === undefined ? {} : { retryAt: new Date(this.retryAt).toISOString() }),
    };
  }
}

/** One failing element of a request, in the API's own 422 shape. */
export interface IndexedError {
  index: number;
  error: string;
}

/** A local check failed before anything was sent upstream. */
export class UserInputError extends Error {
  override readonly name = "UserInputError";
  readonly code = ERROR_CODES.VALIDATION;
  readonly details: unknown;

  constructor(message: string, details?: IndexedError[] | Record<string, unknown>) {
    super(message);
    this.details = details;
  }

  toJSON() {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** One bad or missing setting: the variable (or flag) and what is expected of it. */
export interface ConfigProblem {
  variable: string;
  expected: string;
}

/** Environment or flags are unusable. Only `src/main/` prints it, then exits 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    super(
      problems.length === 1
        ? `Configuration problem: ${problems[0]!.variable}: ${problems[0]!.expected}`
        : `Configuration problems:\n${problems.map((p) => `  - ${p.variable}: ${p.expected}`).join("\n")}`,
    );
    this.problems = problems;
  }
}

/** A write the user did not approve (--confirm-writes), or that could not be put to the user. */
export class NotConfirmedError extends Error {
  override readonly name = "NotConfirmedError";
  readonly code = "NOT_CONFIRMED";

  toJSON() {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/**
 * Control flow, not a failure: thrown through tool code before anything is sent upstream (the MCP
 * layer's confirmation round extends it), so whoever sees one knows nothing was written.
 */
export class BeforeSendSignal extends Error {}
