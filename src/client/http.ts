/**
 * `HttpClient`: JSON over HTTP with auth, retries, a total time budget and cancellation, in four
 * named steps: `#attempt` (authorize, one exchange, verify, classify), `#onChallenge` (a 401/407:
 * re-authenticate and repeat once), the retry decision (pure policy in retry.ts) and
 * `#finalError`. Steps return facts (`Outcome`); nothing is passed back through shared state.
 * Every failure is an ApiError built by src/errors/normalize.ts. Exchanges go through
 * `Transport` (transport.ts, the only module that loads undici). With a request budget
 * (rate-budget.ts) every attempt first takes a slot of the company's budget, and every answer
 * teaches it (the limit announced, what remains, a 406).
 * IMPORTANT: a caller abort ends the in-flight request and any wait at once (CANCELLED); a call
 * never outlives its total budget (each attempt's one timer is capped by what is left of it; an
 * OAuth token request in between has its own MMS_TIMEOUT_MS); no header, token or body reaches
 * a log line or an error.
 */
import type { AuthGrant, AuthRequest, AuthResponse, AuthStrategy } from "../auth/types.js";
import { ApiError, ERROR_CODES, type RequestSummary } from "../errors/api-error.js";
import { failureCode } from "../errors/failure-codes.js";
import {
  cancelledError,
  type ParsedBody,
  requestSummary,
  responseError,
  transportError,
  withDetails,
} from "../errors/normalize.js";
import { PROCESS_SECRETS, type SecretScope } from "../errors/secret.js";
import { spanEvent, upstreamSpan } from "../telemetry/hooks.js";
import type { Logger } from "../telemetry/logger.js";
import { countRequestSent } from "../telemetry/metrics.js";
import { routeTemplate } from "../telemetry/route.js";
import type { BaseUrl } from "./api-path.js";
import { parseBody } from "./body.js";
import type { RateBudget, Ticket } from "./rate-budget.js";
import {
  decideRetry,
  type Failure,
  MAX_UPSTREAM_WAIT_MS,
  type RetryDecision,
  type RetryOptions,
  upstreamWait,
} from "./retry.js";
import { type RawResponse, type Transport, TransportFailure } from "./transport.js";
import { abortable, sleep } from "./wait.js";

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
  /** The secrets errors are scrubbed with: the configuration's (a tenant's), by default the process's. */
  secrets?: SecretScope;
  /** The company's request budget (rate-budget.ts): every attempt takes a slot; undefined: none (MMS_RATE_LIMIT=0). */
  budget?: RateBudget | undefined;
  /** The tenant, for metrics (never a credential). */
  tenant?: string | undefined;
}

export interface JsonCall {
  method: "GET" | "POST";
  /** Full path (base prefix included) and query, exactly as sent. */
  path: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  body?: unknown;
  signal?: AbortSignal | undefined;
  /**
   * Epoch ms (the client's `now`): no wait for the request budget or a rate limit's reset may end
   * later; such a wait fails RATE_LIMITED at once, with `retryAt`. Default: reads wait as long as they must.
   */
  deadline?: number | undefined;
}

type ResolvedOptions = Required<Omit<HttpClientOptions, "budget" | "tenant">> &
  Pick<HttpClientOptions, "budget" | "tenant">;

/** One call, fixed for all its attempts. */
interface CallPlan {
  call: JsonCall;
  summary: RequestSummary;
  idempotent: boolean;
  /** performance.now() when the call started (moved by the first wait for the budget, which the time budget does not count). */
  started: number;
  body: string | undefined;
  authRequest: AuthRequest;
  /** A budget slot was taken for an attempt already. */
  attempted: boolean;
}

/** What one attempt established. `sent`: the request may have reached the server. */
type Outcome =
  | { kind: "ok"; json: unknown; status: number }
  /** A 401/407 is a refusal: nothing was applied, so it does not count as sent. */
  | { kind: "challenge"; error: ApiError; answer: AuthResponse; grant: AuthGrant; sent: false }
  | { kind: "failed"; error: ApiError; failure: Failure; sent: boolean };

/** JSON over HTTP with auth, retries, budget and cancellation. Every failure is an ApiError. */
export class HttpClient {
  readonly #o: ResolvedOptions;
  #absurdWaitLogged = false;

  constructor(options: HttpClientOptions) {
    this.#o = {
      now: Date.now,
      random: Math.random,
      secrets: PROCESS_SECRETS,
      ...options,
      headers: { accept: "application/json", "user-agent": "maintenance-mcp", ...options.headers },
    };
  }

  /** A request summary for errors built after the answer (a shape check), scrubbed with this client's secrets. */
  summary(method: string, path: string): RequestSummary {
    return requestSummary(method, path, this.#o.secrets);
  }

  /**
   * Send `call` and return the parsed JSON body of a successful answer (undefined for 204).
   * One client span per call (`{METHOD} {route template}`, no value of the path or query), retries
   * as its events; a no-op without a registered tracer (src/telemetry/spans.ts).
   */
  json(call: JsonCall): Promise<unknown> {
    return upstreamSpan(call.method, routeTemplate(call.path), (span) =>
      this.#json(call, (status) => span.status(status)),
    );
  }

  async #json(call: JsonCall, onStatus: (status: number) => void): Promise<unknown> {
    const plan = this.#plan(call);
    let retries = 0;
    let reauthenticated = false;
    let sent = false;
    try {
      for (;;) {
        const outcome = await this.#attempt(plan, sent);
        if (outcome.kind === "ok") {
          onStatus(outcome.status);
          return outcome.json;
        }
        sent ||= outcome.sent;
        if (outcome.kind === "challenge") {
          if (reauthenticated || !this.#onChallenge(plan, outcome))
            throw reauthenticated
              ? withDetails(outcome.error, { reauthenticated: true }, this.#o.auth.afterRetryHint)
              : outcome.error;
          reauthenticated = true;
          continue;
        }
        const decision = this.#beyondDeadline(
          plan,
          this.#heldBack(plan, this.#decide(plan, outcome.failure, retries)),
        );
        if (!decision.retry) throw this.#finalError(plan, outcome, decision, retries);
        retries += 1;
        spanEvent("retry", { attempt: retries + 1, reason: decision.reason, delay_ms: decision.delayMs });
        this.#o.logger.debug("retrying upstream request", {
          method: plan.summary.method,
          path: plan.summary.path,
          attempt: retries + 1,
          delayMs: decision.delayMs,
          reason: decision.reason,
        });
        await sleep(decision.delayMs, call.signal);
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === ERROR_CODES.CANCELLED) throw error;
      if (call.signal?.aborted) throw cancelledError(plan.summary, !plan.idempotent && sent);
      throw error;
    }
  }

  #plan(call: JsonCall): CallPlan {
    const { base } = this.#o;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const authRequest: AuthRequest = {
      method: call.method,
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port,
      path: call.path,
      body,
      contentType: body === undefined ? undefined : "application/json",
    };
    return {
      call,
      summary: requestSummary(call.method, call.path, this.#o.secrets),
      idempotent: call.method === "GET",
      started: performance.now(),
      attempted: false,
      body,
      authRequest,
    };
  }

  #remainingMs(plan: CallPlan): number {
    return this.#o.retry.totalBudgetMs - (performance.now() - plan.started);
  }

  /** Authorize, send once, verify, classify. `sentBefore`: an earlier attempt may have reached the server. */
  async #attempt(plan: CallPlan, sentBefore: boolean): Promise<Outcome> {
    const remaining = this.#remainingMs(plan);
    if (remaining <= 0) throw this.#budgetError(plan.summary, !plan.idempotent && sentBefore);
    const authorize = () =>
      abortable(this.#o.auth.authorize(plan.authRequest, plan.call.signal), plan.call.signal);
    // Authorized first, so a token request is not part of the slot's time in flight; signed again
    // after a wait for the budget, so a Hawk timestamp never ages while the request waits.
    let grant = await authorize();
    const ticket = await this.#slot(plan);
    try {
      if (ticket !== undefined && ticket.waitedMs > 0) grant = await authorize();
      return await this.#authorizedAttempt(plan, sentBefore, grant);
    } finally {
      ticket?.settle();
    }
  }

  /** A slot of the company's budget for one attempt (none without a budget); the first wait is not the call's time. */
  async #slot(plan: CallPlan): Promise<Ticket | undefined> {
    const { budget } = this.#o;
    if (budget === undefined) return undefined;
    const { signal, deadline } = plan.call;
    const ticket = await budget.acquire(plan.idempotent ? "read" : "write", {
      signal,
      deadline,
      request: plan.summary,
    });
    if (!plan.attempted) plan.started += ticket.waitedMs;
    plan.attempted = true;
    return ticket;
  }

  async #authorizedAttempt(plan: CallPlan, sentBefore: boolean, grant: AuthGrant): Promise<Outcome> {
    const o = this.#o;
    const headers: Record<string, string> = { ...o.headers, ...grant.headers };
    if (plan.body !== undefined) headers["content-type"] = "application/json";
    // One timer per attempt, capped by the budget left: no separate deadline timer is needed.
    const timeoutMs = Math.max(1, Math.min(o.timeoutMs, this.#remainingMs(plan)));
    if (plan.call.signal?.aborted) throw cancelledError(plan.summary, !plan.idempotent && sentBefore);
    const raw = await this.#exchange(plan, headers, timeoutMs);
    return "kind" in raw ? raw : this.#classify(plan, raw, grant);
  }

  /** One exchange; a transport failure becomes a "failed" outcome, a caller abort CANCELLED. */
  async #exchange(
    plan: CallPlan,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<RawResponse | Outcome> {
    const { base, transport } = this.#o;
    const { method, path, signal } = plan.call;
    countRequestSent(plan.idempotent ? "read" : "write", this.#o.tenant);
    try {
      return await transport.send({
        origin: base.origin,
        path,
        method,
        headers,
        body: plan.body,
        signal,
        timeoutMs,
      });
    } catch (e) {
      if (!(e instanceof TransportFailure)) throw e;
      // Aborted while the request was on its way: a write may or may not have been applied.
      if (e.code === "CANCELLED") throw cancelledError(plan.summary, !plan.idempotent);
      const info = {
        code: e.code,
        message: e.message,
        origin: base.origin,
        timeoutMs,
        idempotent: plan.idempotent,
      };
      const sent = failureCode(e.code)?.neverSent !== true;
      return {
        kind: "failed",
        error: transportError(info, plan.summary, this.#o.secrets),
        failure: { kind: "transport", code: e.code },
        sent,
      };
    }
  }

  /** An answer: verified by the auth strategy, then a success, an auth challenge or a failure. */
  #classify(plan: CallPlan, raw: RawResponse, grant: AuthGrant): Outcome {
    // Every answer teaches the budget (announced limit, what remains, a 406), before anything else.
    void this.#o.budget?.observe(raw.status, raw.headers);
    if (!this.#absurdWaitLogged) this.#logAbsurdWait(raw.headers);
    const parsed: ParsedBody = parseBody(raw.text, raw.headers["content-type"]);
    const json = parsed.kind === "json" ? parsed.value : undefined;
    const answer: AuthResponse = { status: raw.status, headers: raw.headers, text: raw.text, json };
    try {
      this.#o.auth.verify(answer, grant);
    } catch (e) {
      throw e instanceof ApiError ? withRequest(e, plan.summary) : e;
    }
    const error = responseError(
      { status: raw.status, headers: raw.headers, body: parsed },
      plan.summary,
      this.#o.secrets,
    );
    if (error === undefined) return { kind: "ok", json, status: raw.status };
    const status = error.status ?? raw.status;
    if (status === 401 || raw.status === 401 || raw.status === 407) {
      const challenged = { ...answer, status: raw.status === 407 ? 407 : status };
      return { kind: "challenge", error, answer: challenged, grant, sent: false };
    }
    return { kind: "failed", error, failure: { kind: "status", status, headers: raw.headers }, sent: true };
  }

  /**
   * An upstream that names an absurd wait (beyond the cap, negative, unreadable) is told once per
   * client (interface.md §9b): the cap stands in for it, and a line per answer would flood the log.
   */
  #logAbsurdWait(headers: Readonly<Record<string, string | undefined>>): void {
    const wait = upstreamWait(headers, this.#o.now());
    if (wait?.absurd === undefined) return;
    this.#absurdWaitLogged = true;
    this.#o.logger.warn(
      `the upstream named a wait of "${wait.absurd.slice(0, 40)}" (Retry-After or a rate-limit reset): beyond ${MAX_UPSTREAM_WAIT_MS / 1000} s, negative or unreadable, so ${MAX_UPSTREAM_WAIT_MS / 1000} s is used instead; said once`,
    );
  }

  /** A 401/407: whether to re-authenticate and repeat once (the strategy decides). */
  #onChallenge(plan: CallPlan, outcome: Extract<Outcome, { kind: "challenge" }>): boolean {
    if (this.#o.auth.onChallenge(outcome.answer, outcome.grant) !== "retry-once") return false;
    this.#o.logger.debug("upstream auth challenge: re-authenticating and repeating once", {
      method: plan.summary.method,
      path: plan.summary.path,
      scheme: this.#o.auth.scheme,
      status: outcome.answer.status,
    });
    return true;
  }

  #decide(plan: CallPlan, failure: Failure, retriesDone: number): RetryDecision {
    return decideRetry(
      {
        method: plan.call.method,
        idempotent: plan.idempotent,
        retriesDone,
        failure,
        remainingMs: this.#remainingMs(plan),
        nowMs: this.#o.now(),
        random: this.#o.random,
      },
      this.#o.retry,
    );
  }

  /**
   * A retry the budget holds back (a 406 closed it until its reset): the wait is the budget's when
   * longer, and when that does not fit the call's time, the call ends with it (no burst of retries).
   */
  #heldBack(plan: CallPlan, decision: RetryDecision): RetryDecision {
    const heldMs = this.#o.budget?.blockedForMs() ?? 0;
    if (!decision.retry || heldMs <= decision.delayMs) return decision;
    if (heldMs + this.#o.retry.minAttemptMs > this.#remainingMs(plan))
      return { retry: false, reason: "budget", retryAfterMs: heldMs };
    return { ...decision, delayMs: heldMs };
  }

  /** A retry whose wait would end past the caller's deadline is no retry: the wait is reported instead. */
  #beyondDeadline(plan: CallPlan, decision: RetryDecision): RetryDecision {
    const { deadline } = plan.call;
    if (!decision.retry || deadline === undefined || this.#o.now() + decision.delayMs <= deadline)
      return decision;
    return { retry: false, reason: "budget", retryAfterMs: decision.delayMs };
  }

  /** The error a call ends with once the policy says stop: attempts, the server's wait, the outcome. */
  #finalError(
    plan: CallPlan,
    outcome: Extract<Outcome, { kind: "failed" }>,
    decision: Extract<RetryDecision, { retry: false }>,
    retries: number,
  ): ApiError {
    const { error, failure } = outcome;
    const extra: Record<string, unknown> = {};
    if (retries > 0) extra.attempts = retries + 1;
    const waitMs = decision.retryAfterMs;
    if (waitMs !== undefined) extra.retryAfterSeconds = Math.ceil(waitMs / 1000);
    const retryAt = waitMs === undefined ? undefined : this.#o.now() + waitMs;
    let suffix = "";
    if (decision.reason === "budget")
      suffix =
        waitMs === undefined
          ? " (no time left in the call's budget to retry)"
          : ` (the server asked to wait ${Math.ceil(waitMs / 1000)} s, more than the call's time budget allows)`;
    // IMPORTANT: a gateway's 5xx can come after the upstream applied a write: a POST that got
    // one has an unknown outcome and must not be advertised as safe to retry.
    if (!plan.idempotent && failure.kind === "status" && failure.status >= 500)
      return withDetails(error, { ...extra, outcome: "unknown" }, suffix, false);
    if (Object.keys(extra).length === 0 && suffix === "") return error;
    return withDetails(error, extra, suffix, error.retryable, retryAt);
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
