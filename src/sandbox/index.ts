/**
 * The embedded sandbox: an in-process simulator of the upstream API (api-spec.md) on one
 * node:http server: `POST /oauth/token`, the main API under `/api`, and `GET /hub/api/v1/dags`.
 * It is an independent implementation of the spec (a test oracle): it must not import the
 * project's client, tools or anything MCP.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, silentLogger } from "../telemetry/logger.js";
import { AuthService } from "./auth.js";
import { type FaultController, Faults } from "./faults.js";
import { type RateLimitOptions, type RateLimitStats, SandboxRateLimit } from "./rate-limit.js";
import type { Env } from "./routes/common.js";
import { DEMO_CREDENTIALS } from "./seed.js";
import { createSeedState } from "./seed-state.js";
import { createPipeline } from "./server.js";
import type { SandboxState } from "./state.js";
import { openStateStore } from "./state-store.js";

export type { FaultController, FaultResponse } from "./faults.js";
export type { RateLimitHeaders, RateLimitOptions, RateLimitStats } from "./rate-limit.js";
export { DEMO_CREDENTIALS, SEED } from "./seed.js";
export type { SandboxState } from "./state.js";
export { StateFileError } from "./state-errors.js";

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface SandboxOptions {
  /** Default "127.0.0.1". */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  clock?: Clock;
  /** Seed of the generated data; default 1. */
  seed?: number;
  /** The instant the seed's dates are relative to (default: now). The embedded --sandbox keeps one across restarts. */
  seededAt?: number;
  /** Expose the HTTP control route `/__faults` (in-process control always exists). */
  faults?: boolean;
  /**
   * Persist state across restarts (docs/sandbox.md "Persistence"): FILE, FILE.journal beside it while
   * running, FILE.lock. Every write is on disk before it is answered. A missing folder, a file in use
   * by another sandbox, or unusable content is a StateFileError (files left untouched).
   */
  stateFile?: string;
  /** Default: a silent logger. */
  logger?: Logger;
  /**
   * Play the platform's request limit (docs/sandbox.md "Rate limit"): `perMinute` requests per company
   * per window (`windowMs`, default 60 000), announced in both header spellings, 406 past it. Off by default.
   */
  rateLimit?: RateLimitOptions | undefined;
}

export interface SandboxHandle {
  /** Origin, e.g. "http://127.0.0.1:4010". */
  url: string;
  /** `url + "/api"` (MMS_BASE_URL). */
  baseUrl: string;
  /** `url` (MMS_AUTH_URL); the token endpoint is `authUrl + "/oauth/token"`. */
  authUrl: string;
  /** `url` (MMS_HUB_URL); DAGs at `hubUrl + "/hub/api/v1/dags"`. */
  hubUrl: string;
  faults: FaultController;
  /** Live, inspectable data. */
  state: SandboxState;
  /** MMS_* environment that points a client at this sandbox with the demo credentials. */
  env(options?: {
    auth?: "oauth" | "hawk";
    client?: "demo" | "readonly" | "noaddon";
  }): Record<string, string>;
  /** With `rateLimit`: what each client id was allowed and refused (undefined without a limit). */
  rateLimitStats(): RateLimitStats | undefined;
  /** Closes every connection promptly and flushes the state file. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const clock = options.clock ?? { now: () => Date.now() };
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? "127.0.0.1";
  const stateFile = options.stateFile;
  const seed = () => createSeedState(options.seed ?? 1, options.seededAt ?? clock.now());

  const store = stateFile === undefined ? undefined : await openStateStore(stateFile, seed, logger);
  const state: SandboxState = store?.state ?? seed();
  // The store journals every change made through `state` itself; nothing to do on `changed`.
  const changed = () => {};
  let closed = false;

  let auth: AuthService | undefined;
  const faults = new Faults(() => {
    auth?.expireAll();
    changed();
  });
  const now = () => clock.now() + faults.skewMs;
  auth = new AuthService(() => state, faults, now);
  const env: Env = { state: () => state, now, changed };
  const rateLimit =
    options.rateLimit === undefined ? undefined : new SandboxRateLimit(options.rateLimit, now);
  const handle = createPipeline({
    env,
    auth,
    faults,
    logger,
    faultRoute: options.faults === true,
    isClosed: () => closed,
    durable: store ? () => store.durable() : undefined,
    rateLimit,
  });

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    await store?.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const hostInUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostInUrl}:${address.port}`;
  logger.info("sandbox listening", {
    url,
    faultRoute: options.faults === true,
    stateFile,
    ...(rateLimit ? { rateLimit: { perMinute: rateLimit.perMinute, windowMs: rateLimit.windowMs } } : {}),
  });

  return {
    url,
    baseUrl: `${url}/api`,
    authUrl: url,
    hubUrl: url,
    faults,
    state,
    env(opts = {}) {
      const which = opts.client ?? "demo";
      const client = DEMO_CREDENTIALS.oauth[which];
      const out: Record<string, string> = {
        MMS_BASE_URL: `${url}/api`,
        MMS_AUTH_URL: url,
        MMS_HUB_URL: url,
        MMS_AUTH: opts.auth ?? "oauth",
        // The hub takes Bearer only, so client credentials are set with Hawk too.
        MMS_CLIENT_ID: client.clientId,
        MMS_CLIENT_SECRET: client.clientSecret,
      };
      if (opts.auth === "hawk") {
        const hawk = client.companyId === 1 ? DEMO_CREDENTIALS.hawk : DEMO_CREDENTIALS.hawkOther;
        out.MMS_HAWK_ID = hawk.id;
        out.MMS_HAWK_KEY = hawk.key;
      }
      return out;
    },
    rateLimitStats: () => rateLimit?.stats(),
    async close() {
      if (closed) return;
      closed = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
      await store?.close();
      logger.info("sandbox closed", { url });
    },
  };
}
