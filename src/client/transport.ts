/**
 * The only module that loads undici. `Transport` owns the connection pools (one undici Agent: a
 * keep-alive pool per origin), the per-attempt timeout and body reading: single exchanges, no
 * retries, no auth, no parsing (those are HttpClient's, in http.ts).
 * undici is imported on first use, or earlier by `warm()` (called in the background right after
 * the MCP transport is up), so the server starts without it and the first call rarely waits.
 * Exchanges go through undici's dispatch API with a handler that collects the body (`Exchange`):
 * no response stream, no AbortController; measured against undici's `request()` + `body.text()`
 * on the same page, ~60 µs less CPU per request (docs/quality.md).
 * IMPORTANT: one timer per exchange; the caller's signal only adds a listener; a timeout or a
 * cancellation settles at once, even for a request still waiting for a connection. Every
 * rejection is a TransportFailure whose message carries no header or body.
 */
import type { Agent, Dispatcher } from "undici";
import type { TokenExchange } from "../auth/oauth.js";
import { PLAIN_HTTP_TO_TLS } from "../errors/failure-codes.js";
import { requestSummary, transportError } from "../errors/normalize.js";
import type { SecretScope } from "../errors/secret.js";
import { speaksTls } from "./tls-probe.js";

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

/** Response headers as undici parses them: lower-case names, repeated headers as arrays. */
type IncomingHeaders = Record<string, string | string[] | undefined>;

function flattenHeaders(headers: IncomingHeaders): Record<string, string | undefined> {
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

/** The body as UTF-8 text, a leading byte order mark dropped (what undici's `body.text()` does). */
function utf8Text(chunks: Buffer[], length: number): string {
  if (length === 0) return "";
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const bom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString("utf8", bom);
}

/** Codes of a connection closed by the server. */
const CUT_OFF = new Set(["UND_ERR_SOCKET", "ECONNRESET"]);

/** `failure`, or, when the origin's port speaks TLS, the failure that says so (PLAIN_HTTP_TO_TLS). */
async function plainHttpToTls(origin: string, failure: TransportFailure): Promise<TransportFailure> {
  const url = new URL(origin);
  const port = Number(url.port || 80);
  const tls = await speaksTls(url.hostname.replace(/^\[|\]$/g, ""), port, 2_000).catch(() => false);
  if (!tls) return failure;
  return new TransportFailure(PLAIN_HTTP_TO_TLS, `${url.host} speaks TLS (HTTPS), not plain HTTP`, {
    cause: failure,
  });
}

const onTimeout = (exchange: Exchange) =>
  exchange.stop(new TransportFailure("TIMEOUT", `no answer within ${exchange.timeoutMs} ms`));

/**
 * One request as undici's dispatch handler: status, headers and body chunks collected as they come,
 * settled once. No response stream, no AbortSignal of its own: the timer and the caller's signal
 * settle the promise at once and abort the request through undici's controller (or as soon as
 * undici hands one over, for a request still waiting for its connection).
 */
class Exchange implements Dispatcher.DispatchHandler {
  #status = 0;
  #headers: IncomingHeaders = {};
  readonly #chunks: Buffer[] = [];
  #length = 0;
  #controller: Dispatcher.DispatchController | undefined;
  #stopped: TransportFailure | undefined;
  #settled = false;
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly origin: string,
    readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
    private readonly resolve: (response: RawResponse) => void,
    private readonly reject: (failure: TransportFailure) => void,
  ) {
    this.#timer = setTimeout(onTimeout, timeoutMs, this);
    // The exchange itself is the listener (handleEvent): no closure per request.
    caller?.addEventListener("abort", this, { once: true });
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.stop(new TransportFailure("CANCELLED", "aborted by the caller"));
  }

  /** Settle with `failure` now, then abort the request in undici (whose error report comes too late to count). */
  stop(failure: TransportFailure): void {
    if (this.#settled) return;
    this.#stopped = failure;
    this.#settle(failure);
    this.#controller?.abort(failure);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopped !== undefined) controller.abort(this.#stopped);
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: IncomingHeaders): void {
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  onResponseEnd(): void {
    this.#settle({
      status: this.#status,
      headers: flattenHeaders(this.#headers),
      text: utf8Text(this.#chunks, this.#length),
    });
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    const message = error instanceof Error ? error.message : String(error);
    const failure = new TransportFailure(errorCode(error), message, { cause: error });
    // Cut off before any answer on http://: a TLS server does that to a plain request. Ask it.
    if (this.#status === 0 && this.origin.startsWith("http:") && CUT_OFF.has(failure.code)) {
      void plainHttpToTls(this.origin, failure).then((f) => this.#settle(f));
      return;
    }
    this.#settle(failure);
  }

  #settle(outcome: RawResponse | TransportFailure): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.caller?.removeEventListener("abort", this);
    if (outcome instanceof TransportFailure) this.reject(outcome);
    else this.resolve(outcome);
  }
}

// undici has no "exports" map, so its modules can be imported one by one: the Agent alone costs
// ~22 ms against ~100 ms for the whole package (fetch, WebSocket, caches...). A literal path, so
// the bundler (scripts/build.mjs) follows it into a lazy chunk; its type is declared in
// undici-modules.d.ts (undici ships none for it).
async function loadAgent(): Promise<typeof Agent> {
  try {
    const agent = await import("undici/lib/dispatcher/agent.js");
    if (typeof agent.default === "function") return agent.default;
  } catch {
    // A future undici may move it: fall back to the package entry.
  }
  return (await import("undici")).Agent;
}

/** Connection pools and single HTTP exchanges. */
export class Transport {
  readonly #options: TransportOptions;
  #agent: Agent | undefined;
  #loading: Promise<Agent> | undefined;
  #closed = false;

  constructor(options: TransportOptions = {}) {
    this.#options = options;
  }

  /** Load undici and build the pool now (idempotent); a failure is retried on the next call. */
  warm(): Promise<Agent> {
    if (this.#agent !== undefined) return Promise.resolve(this.#agent);
    this.#loading ??= loadAgent().then(
      (AgentClass) => {
        this.#agent = new AgentClass({
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
    if (caller?.aborted) throw new TransportFailure("CANCELLED", "aborted before sending");
    return new Promise<RawResponse>((resolve, reject) => {
      const exchange = new Exchange(req.origin, req.timeoutMs, caller, resolve, reject);
      agent.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers:
            req.body === undefined
              ? req.headers
              : { ...req.headers, "content-length": String(Buffer.byteLength(req.body)) },
          body: req.body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        exchange,
      );
    });
  }

  /**
   * A TokenExchange over this transport, for OAuthStrategy. Transport failures become ApiErrors,
   * scrubbed with `secrets` (the configuration's).
   */
  tokenExchange(timeoutMs: number, secrets?: SecretScope): TokenExchange {
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
          requestSummary("POST", u.pathname, secrets),
          secrets,
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
