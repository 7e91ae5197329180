/**
 * The only module that loads undici. `Transport` owns the connection pools (one undici Agent: a
 * keep-alive pool per origin), the per-attempt timeout and body reading: single exchanges, no
 * retries, no auth, no parsing (those are HttpClient's, in http.ts).
 * undici is imported on first use, or earlier by `warm()` (called in the background right after
 * the MCP transport is up), so the server starts without it and the first call rarely waits.
 * IMPORTANT: one AbortController and one timer per exchange; the caller's signal only adds a
 * listener. Every rejection is a TransportFailure whose message carries no header or body.
 */
import type { Agent, Dispatcher } from "undici";
import type { TokenExchange } from "../auth/oauth.js";
import { requestSummary, transportError } from "../errors/normalize.js";

/** Largest response body accepted (a budget page of 100 with items is well under 1 MiB). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface RawRequest {
  origin: string;
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | undefined;
  /** The caller's signal (MCP cancellation): aborts the exchange as CANCELLED. */
  signal?: AbortSignal | undefined;
  /** The whole exchange, connect to last body byte. */
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
  for (const k in headers) {
    const v = headers[k];
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

export interface TransportOptions {
  /** Connect timeout ceiling; each request also has its own overall timeout. */
  connectTimeoutMs?: number;
  /** Concurrent connections per origin. */
  connections?: number;
  maxBodyBytes?: number;
}

const TIMED_OUT = Symbol("timed out");

/** What we use of undici: the pooling Agent and the `request` API (bound to an Agent). */
interface Undici {
  Agent: new (options: Agent.Options) => Agent;
  request: (this: Agent, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

// undici has no "exports" map, so its modules can be imported one by one: these two cost ~45 ms
// against ~100 ms for the whole package (fetch, WebSocket, caches...). Literal paths, so the
// bundler (scripts/build.mjs) follows them into a lazy chunk; their types are declared in
// undici-modules.d.ts (undici ships none for them), the shapes are undici's own (index.js wires
// `request` onto Dispatcher.prototype the same way).
async function loadUndici(): Promise<Undici> {
  try {
    const [agent, api] = await Promise.all([
      import("undici/lib/dispatcher/agent.js"),
      import("undici/lib/api/api-request.js"),
    ]);
    const Agent = agent.default;
    const request = api.default;
    if (typeof Agent === "function" && typeof request === "function") return { Agent, request };
  } catch {
    // A future undici may move them: fall back to the package entry.
  }
  const undici = await import("undici");
  return { Agent: undici.Agent, request: undici.Agent.prototype.request as Undici["request"] };
}

/** Connection pools and single HTTP exchanges. */
export class Transport {
  readonly #options: TransportOptions;
  #agent: Agent | undefined;
  #request: Undici["request"] | undefined;
  #loading: Promise<Agent> | undefined;
  #closed = false;

  constructor(options: TransportOptions = {}) {
    this.#options = options;
  }

  /** Load undici and build the pool now (idempotent); a failure is retried on the next call. */
  warm(): Promise<Agent> {
    if (this.#agent !== undefined) return Promise.resolve(this.#agent);
    this.#loading ??= loadUndici().then(
      ({ Agent, request }) => {
        this.#request = request;
        this.#agent = new Agent({
          connections: this.#options.connections ?? 16,
          keepAliveTimeout: 4_000,
          connect: { timeout: this.#options.connectTimeoutMs ?? 10_000 },
          maxResponseSize: this.#options.maxBodyBytes ?? MAX_BODY_BYTES,
        });
        return this.#agent;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }

  /** One exchange, body read in full. Rejects with TransportFailure only. */
  async send(req: RawRequest): Promise<RawResponse> {
    const caller = req.signal;
    if (caller?.aborted) throw new TransportFailure("CANCELLED", "aborted before sending");
    if (this.#closed) throw new TransportFailure("UND_ERR_CLOSED", "the client is closed");
    const agent = this.#agent ?? (await this.warm());
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMED_OUT), req.timeoutMs);
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await this.#request!.call(agent, {
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
      if (caller?.aborted) throw new TransportFailure("CANCELLED", "aborted by the caller", { cause: error });
      if (controller.signal.reason === TIMED_OUT)
        throw new TransportFailure("TIMEOUT", `no answer within ${req.timeoutMs} ms`, { cause: error });
      const message = error instanceof Error ? error.message : String(error);
      throw new TransportFailure(errorCode(error), message, { cause: error });
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
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

  /** Close the pool (waits for a load in progress, so no pool outlives the client). */
  async close(): Promise<void> {
    this.#closed = true;
    const agent =
      this.#agent ?? (this.#loading === undefined ? undefined : await this.#loading.catch(() => undefined));
    await agent?.close();
  }
}
