/**
 * The only module that imports undici. `Transport` owns the connection pools (one undici Agent:
 * a keep-alive pool per origin), the per-attempt timeout and body reading; `HttpClient` owns the
 * retry loop (policy in retry.ts), the auth hooks (src/auth) and JSON parsing, and turns every
 * failure into an ApiError through src/errors/normalize.ts.
 * IMPORTANT: a caller abort ends the in-flight request and any wait at once (CANCELLED); a call
 * never outlives its total budget; no header, token or body reaches a log line or an error.
 */
import { Agent, type Dispatcher } from "undici";
import type { TokenExchange } from "../auth/oauth.js";
import type { AuthGrant, AuthRequest, AuthResponse, AuthStrategy } from "../auth/types.js";
import { ApiError, ERROR_CODES, type RequestSummary } from "../errors/api-error.js";
import {
  cancelledError,
  type ParsedBody,
  requestSummary,
  responseError,
  transportError,
  withDetails,
} from "../errors/normalize.js";
import type { Logger } from "../logger.js";
import type { BaseUrl } from "./api-path.js";
import { parseBody } from "./body.js";
import { decideRetry, type Failure, NEVER_SENT_CODES, type RetryOptions } from "./retry.js";

/** Largest response body accepted (a budget page of 100 with items is well under 1 MiB). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface RawRequest {
  origin: string;
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
}

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string | undefined>;
  text: string;
}

/** A request that produced no HTTP answer. `code` is the Node/undici code, `TIMEOUT` or `CANCELLED`. */
export class TransportFailure extends Error {
  override readonly name = "TransportFailure";
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function errorCode(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    // Happy-eyeballs connects fail with an AggregateError whose members carry the code.
    const first = (e as { errors?: unknown[] }).errors?.[0];
    e = first ?? (e as { cause?: unknown }).cause;
  }
  return "UNKNOWN";
}

function flattenHeaders(headers: Dispatcher.ResponseData["headers"]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export interface TransportOptions {
  /** Connect timeout ceiling; each request also has its own overall timeout. */
  connectTimeoutMs?: number;
  /** Concurrent connections per origin. */
  connections?: number;
  maxBodyBytes?: number;
}

/** Connection pools and single HTTP exchanges: no retries, no auth, no parsing. */
export class Transport {
  readonly #agent: Agent;

  constructor(options: TransportOptions = {}) {
    this.#agent = new Agent({
      connections: options.connections ?? 16,
      keepAliveTimeout: 4_000,
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      maxResponseSize: options.maxBodyBytes ?? MAX_BODY_BYTES,
    });
  }

  /** One exchange, body read in full. Rejects with TransportFailure only. */
  async send(req: RawRequest): Promise<RawResponse> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, req.timeoutMs);
    const onAbort = () => controller.abort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (req.signal?.aborted) throw new TransportFailure("CANCELLED", "aborted before sending");
      const res = await this.#agent.request({
        origin: req.origin,
        path: req.path,
        method: req.method,
        headers:
          req.body === undefined
            ? req.headers
            : { ...req.headers, "content-length": String(Buffer.byteLength(req.body)) },
        body: req.body,
        signal: controller.signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: flattenHeaders(res.headers), text };
    } catch (error) {
      if (error instanceof TransportFailure) throw error;
      if (req.signal?.aborted)
        throw new TransportFailure("CANCELLED", "aborted by the caller", { cause: error });
      if (timedOut)
        throw new TransportFailure("TIMEOUT", `no answer within ${req.timeoutMs} ms`, { cause: error });
      const message = error instanceof Error ? error.message : String(error);
      throw new TransportFailure(errorCode(error), message, { cause: error });
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** A TokenExchange over this transport, for OAuthStrategy. Transport failures become ApiErrors. */
  tokenExchange(timeoutMs: number): TokenExchange {
    return async ({ url, headers, body }) => {
      const u = new URL(url);
      try {
        return await this.send({
          origin: u.origin,
          path: u.pathname + u.search,
          method: "POST",
          headers,
          body,
          timeoutMs,
        });
      } catch (error) {
        const f = error as TransportFailure;
        throw transportError(
          { code: f.code, message: f.message, origin: u.origin, timeoutMs, idempotent: true },
          requestSummary("POST", u.pathname),
        );
      }
    };
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}

/** Promise that resolves after `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise keeps running for others). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export interface HttpClientOptions {
  transport: Transport;
  base: BaseUrl;
  auth: AuthStrategy;
  /** Per-attempt timeout (MMS_TIMEOUT_MS). */
  timeoutMs: number;
  retry: RetryOptions;
  logger: Logger;
  /** Wall clock (HTTP-date Retry-After). */
  now?: () => number;
  /** Jitter source. */
  random?: () => number;
  /** Headers sent on every request (e.g. Accept). */
  headers?: Record<string, string>;
}

export interface JsonCall {
  method: "GET" | "POST";
  /** Full path (base prefix included) and query, exactly as sent. */
  path: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  body?: unknown;
  signal?: AbortSignal | undefined;
}

const DEADLINE = Symbol("deadline");
const CALLER = Symbol("caller");

type ResolvedOptions = Required<HttpClientOptions>;

/** JSON over HTTP with auth, retries, budget and cancellation. Every failure is an ApiError. */
export class HttpClient {
  readonly #o: ResolvedOptions;

  constructor(options: HttpClientOptions) {
    this.#o = {
      now: Date.now,
      random: Math.random,
      ...options,
      headers: { accept: "application/json", "user-agent": "maintenance-mcp", ...options.headers },
    };
  }

  /** Send `call` and return the parsed JSON body of a successful answer (undefined for 204). */
  async json(call: JsonCall): Promise<unknown> {
    const summary = requestSummary(call.method, call.path);
    const idempotent = call.method === "GET";
    const started = performance.now();
    // One signal for the whole call: the caller's abort or the end of the total budget.
    const ctl = new AbortController();
    const onCallerAbort = () => ctl.abort(CALLER);
    call.signal?.addEventListener("abort", onCallerAbort, { once: true });
    if (call.signal?.aborted) ctl.abort(CALLER);
    const deadline = setTimeout(() => ctl.abort(DEADLINE), this.#o.retry.totalBudgetMs);
    const state = { sent: false };
    try {
      return await this.#loop(call, summary, idempotent, started, ctl.signal, state);
    } catch (error) {
      const writeInFlight = !idempotent && state.sent;
      if (call.signal?.aborted) throw cancelledError(summary, writeInFlight);
      if (error instanceof ApiError) throw error;
      if (ctl.signal.reason === DEADLINE) throw this.#budgetError(summary, writeInFlight);
      throw error;
    } finally {
      clearTimeout(deadline);
      call.signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  #budgetError(request: RequestSummary, writeInFlight: boolean): ApiError {
    const budgetMs = this.#o.retry.totalBudgetMs;
    return new ApiError({
      code: ERROR_CODES.TIMEOUT,
      message: `no successful answer within the call's total time budget of ${budgetMs} ms${
        writeInFlight
          ? "; the write may or may not have been applied upstream: check before repeating it"
          : ""
      }`,
      retryable: !writeInFlight,
      details: writeInFlight ? { budgetMs, outcome: "unknown" } : { budgetMs },
      request,
    });
  }

  async #loop(
    call: JsonCall,
    summary: RequestSummary,
    idempotent: boolean,
    started: number,
    signal: AbortSignal,
    state: { sent: boolean },
  ): Promise<unknown> {
    const o = this.#o;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const contentType = body === undefined ? undefined : "application/json";
    const authRequest: AuthRequest = {
      method: call.method,
      protocol: o.base.protocol,
      hostname: o.base.hostname,
      port: o.base.port,
      path: call.path,
      body,
      contentType,
    };
    let retries = 0;
    let reauthenticated = false;
    for (;;) {
      const remaining = o.retry.totalBudgetMs - (performance.now() - started);
      if (remaining <= 0) throw this.#budgetError(summary, !idempotent && state.sent);
      const grant: AuthGrant = await abortable(o.auth.authorize(authRequest, signal), signal);
      const headers: Record<string, string> = { ...o.headers, ...grant.headers };
      if (contentType !== undefined) headers["content-type"] = contentType;
      const attemptTimeout = Math.max(1, Math.min(o.timeoutMs, remaining));

      let failure: Failure;
      let error: ApiError;
      try {
        state.sent = true;
        const raw = await o.transport.send({
          origin: o.base.origin,
          path: call.path,
          method: call.method,
          headers,
          body,
          signal,
          timeoutMs: attemptTimeout,
        });
        const parsed: ParsedBody = parseBody(raw.text, raw.headers["content-type"]);
        const json = parsed.kind === "json" ? parsed.value : undefined;
        const answer: AuthResponse = { status: raw.status, headers: raw.headers, text: raw.text, json };
        try {
          o.auth.verify(answer, grant);
        } catch (e) {
          throw e instanceof ApiError ? withRequest(e, summary) : e;
        }
        const found = responseError({ status: raw.status, headers: raw.headers, body: parsed }, summary);
        if (found === undefined) return json;
        const effective = found.status ?? raw.status;
        if (effective === 401 || raw.status === 401 || raw.status === 407) {
          if (reauthenticated) throw withDetails(found, { reauthenticated: true }, o.auth.afterRetryHint);
          if (
            o.auth.onChallenge({ ...answer, status: raw.status === 407 ? 407 : effective }, grant) ===
            "retry-once"
          ) {
            reauthenticated = true;
            o.logger.debug("upstream auth challenge: re-authenticating and repeating once", {
              method: summary.method,
              path: summary.path,
              scheme: o.auth.scheme,
              status: raw.status,
            });
            continue;
          }
          throw found;
        }
        error = found;
        failure = { kind: "status", status: effective, headers: raw.headers };
      } catch (e) {
        if (!(e instanceof TransportFailure)) throw e;
        if (e.code === "CANCELLED") throw e;
        // A POST is only repeated after never-sent failures, so no earlier attempt reached the server either.
        if (NEVER_SENT_CODES.has(e.code)) state.sent = false;
        error = transportError(
          { code: e.code, message: e.message, origin: o.base.origin, timeoutMs: attemptTimeout, idempotent },
          summary,
        );
        failure = { kind: "transport", code: e.code };
      }

      const decision = decideRetry(
        {
          method: call.method,
          idempotent,
          retriesDone: retries,
          failure,
          remainingMs: o.retry.totalBudgetMs - (performance.now() - started),
          nowMs: o.now(),
          random: o.random,
        },
        o.retry,
      );
      if (!decision.retry) {
        const extra: Record<string, unknown> = {};
        if (retries > 0) extra.attempts = retries + 1;
        if (decision.retryAfterMs !== undefined)
          extra.retryAfterSeconds = Math.ceil(decision.retryAfterMs / 1000);
        const suffix = decision.reason === "budget" ? " (no time left in the call's budget to retry)" : "";
        // IMPORTANT: a gateway's 5xx can come after the upstream applied a write: a POST that got
        // one has an unknown outcome and must not be advertised as safe to retry.
        if (!idempotent && failure.kind === "status" && failure.status >= 500) {
          throw withDetails(error, { ...extra, outcome: "unknown" }, suffix, false);
        }
        throw Object.keys(extra).length === 0 && suffix === "" ? error : withDetails(error, extra, suffix);
      }
      retries += 1;
      o.logger.debug("retrying upstream request", {
        method: summary.method,
        path: summary.path,
        attempt: retries + 1,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      await sleep(decision.delayMs, signal);
    }
  }
}

function withRequest(error: ApiError, request: RequestSummary): ApiError {
  if (error.request !== undefined) return error;
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    details: error.details,
    request,
    cause: error.cause,
  });
}
