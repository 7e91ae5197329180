/**
 * `createClients(config, deps)`: wires one Transport (a keep-alive pool per origin), the auth
 * strategies and the two endpoint clients. The OAuth token cache is shared, so the main API (when
 * MMS_AUTH=oauth) and the hub use one token. Cheap to import and to call: undici's Agent (~22-28 ms
 * in the bundle) and hawk (~20 ms) load on the first request, or before it through `clients.warm()`,
 * which src/main/run.ts calls right after the MCP transport is up (it also fetches the OAuth token and
 * loads node:perf_hooks, Node's lazy `performance` global).
 */
import { type HawkSignOptions, HawkStrategy, loadHawk } from "../auth/hawk.js";
import { OAuthStrategy } from "../auth/oauth.js";
import type { AuthStrategy } from "../auth/types.js";
import type { Config } from "../config/config.js";
import type { Logger } from "../telemetry/logger.js";
import { parseBaseUrl } from "./api-path.js";
import { HttpClient } from "./http.js";
import { createHubApi } from "./hub-api.js";
import { createMaintenanceApi } from "./maintenance-api.js";
import { RateBudget } from "./rate-budget.js";
import { MemoryBudgetStore, type RateBudgetStore } from "./rate-budget-store.js";
import { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
import { Transport } from "./transport.js";
import type { Clients } from "./types.js";

/** How long after the transport is up `warm()` starts loading (see the IMPORTANT note in createClients). */
export const WARM_DELAY_MS = 250;

export interface ClientDeps {
  logger: Logger;
  /** Wall clock in ms: token expiry, Hawk timestamps, HTTP-date Retry-After. Default Date.now. */
  now?: () => number;
  /** Total time one call may take, retries and waits included. Default 50 000 ms. */
  totalBudgetMs?: number;
  /** Backoff tuning (tests use small values). Defaults: base 500 ms, cap 8 000 ms. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Delay before `warm()` starts (default WARM_DELAY_MS). */
  warmDelayMs?: number;
  /** Fixed Hawk timestamp/nonce (tests only). */
  hawkSign?: HawkSignOptions;
  /**
   * Where the company's request budget is counted: Redis for every replica (src/hosting/rate-budgets.ts),
   * by default this process. Unused with MMS_RATE_LIMIT=0.
   */
  rateStore?: RateBudgetStore;
  /** The tenant, for metrics. */
  tenant?: string | undefined;
}

/** The company's request budget, shared by the main API and the hub clients; none with MMS_RATE_LIMIT=0. */
function rateBudget(config: Config, deps: ClientDeps, now: () => number): RateBudget | undefined {
  const rate = config.rate;
  if (rate?.limit === 0) return undefined;
  return new RateBudget({
    store: deps.rateStore ?? new MemoryBudgetStore(now),
    limit: rate?.limit,
    ...(rate ? { share: rate.share, windowMs: rate.windowMs } : {}),
    now,
    tenant: deps.tenant,
  });
}

export function createClients(config: Config, deps: ClientDeps): Clients {
  const logger = deps.logger.child({ component: "upstream" });
  const now = deps.now ?? Date.now;
  const transport = new Transport({ connectTimeoutMs: Math.min(config.timeoutMs, 10_000) });
  const retry: RetryOptions = {
    ...DEFAULT_RETRY,
    maxRetries: config.maxRetries,
    ...(deps.totalBudgetMs === undefined ? {} : { totalBudgetMs: deps.totalBudgetMs }),
    ...(deps.backoffBaseMs === undefined ? {} : { baseDelayMs: deps.backoffBaseMs }),
    ...(deps.backoffMaxMs === undefined ? {} : { maxDelayMs: deps.backoffMaxMs }),
  };

  const oauth =
    config.oauth === undefined
      ? undefined
      : new OAuthStrategy(config.oauth, {
          exchange: transport.tokenExchange(config.timeoutMs, config.secrets),
          logger,
          now,
        });

  let mainAuth: AuthStrategy;
  if (config.auth === "hawk") {
    if (config.hawk === undefined) throw new TypeError("MMS_AUTH=hawk needs MMS_HAWK_ID and MMS_HAWK_KEY");
    mainAuth = new HawkStrategy(config.hawk, { now, ...(deps.hawkSign ? { sign: deps.hawkSign } : {}) });
  } else {
    if (oauth === undefined)
      throw new TypeError("MMS_AUTH=oauth needs MMS_CLIENT_ID, MMS_CLIENT_SECRET and MMS_AUTH_URL");
    mainAuth = oauth;
  }

  const budget = rateBudget(config, deps, now);
  const common = {
    budget,
    tenant: deps.tenant,
    transport,
    timeoutMs: config.timeoutMs,
    retry,
    logger,
    now,
    ...(config.secrets ? { secrets: config.secrets } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  };
  const base = parseBaseUrl(config.baseUrl);
  const api = createMaintenanceApi(new HttpClient({ ...common, base, auth: mainAuth }), base);

  let hub: Clients["hub"];
  if (oauth !== undefined && config.hubUrl !== undefined) {
    const hubBase = parseBaseUrl(config.hubUrl);
    hub = createHubApi(new HttpClient({ ...common, base: hubBase, auth: oauth }), hubBase);
  }

  // Loads undici (and hawk), then fetches the OAuth token the first call would wait for (which also
  // opens a keep-alive connection and compiles undici's HTTP parser). Failures are logged only: the
  // first call repeats them and reports them properly.
  const warmNow = () => {
    // `performance` is a lazy global: its first use loads node:perf_hooks (~3 ms, measured inside
    // the first call, whose clock reads it). Touch it here instead.
    performance.now();
    const loads: Promise<unknown>[] = [transport.warm()];
    if (config.auth === "hawk") loads.push(loadHawk());
    Promise.all(loads).then(
      () => {
        logger.debug("HTTP client loaded ahead of the first call");
        oauth?.token().then(
          () => logger.debug("access token fetched ahead of the first call"),
          (error: unknown) => logger.debug("no access token ahead of the first call", { error }),
        );
      },
      (error: unknown) => logger.warn("could not load the HTTP client ahead of time", { error }),
    );
  };
  // IMPORTANT: deferred, so the initialize / tools/list handshake, which a client sends as soon as the
  // transport is up, never waits behind this CPU work (measured: started at once, spawn → tools/list
  // went from 1.12 to 1.38 x the bare SDK server). A call arriving earlier loads what it needs itself.
  // The server calls warm(0) once it has answered tools/list (the handshake is over, a call is
  // likely next): the load then overlaps the client's own work instead of the first call.
  let closed = false;
  let started = false;
  const warm = (delayMs = deps.warmDelayMs ?? WARM_DELAY_MS) => {
    if (started) return;
    setTimeout(() => {
      if (closed || started) return;
      started = true;
      warmNow();
    }, delayMs).unref();
  };
  const close = () => {
    closed = true;
    return transport.close();
  };
  const accessToken =
    oauth === undefined ? undefined : async () => ({ expiresAt: (await oauth.token()).expiresAt });
  return { api, hub, accessToken, warm, close, budgetUse: () => budget?.use() };
}
