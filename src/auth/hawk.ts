/**
 * Hawk MAC authentication (api-spec §5.2) through the `hawk` package: sha256, host and port
 * from the base URL, resource = path + query exactly as sent, payload hash over the exact JSON
 * bytes (on by default). Answers carrying `Server-Authorization` are verified and a bad MAC is
 * a SECURITY error; a stale-timestamp challenge (401, or 407 as deployments use) is tsm-checked,
 * corrects the clock offset, and the call is repeated once.
 * The hawk package (~20 ms to import) loads on the first signed request, or earlier by `loadHawk()`
 * (the client's background warm-up), so starting the server does not pay for it.
 * IMPORTANT: the key is only passed to the hawk package; it is never sent, logged or put in an error.
 */
import type Hawk from "hawk";
import type { HawkConfig } from "../config/config.js";
import { ApiError, ERROR_CODES } from "../errors/api-error.js";
import type { AuthGrant, AuthRequest, AuthResponse, AuthStrategy, ChallengeVerdict } from "./types.js";

type Artifacts = ReturnType<typeof Hawk.client.header>["artifacts"];
type HawkLib = typeof Hawk;

let lib: HawkLib | undefined;

/** Load the hawk package once (idempotent). `signHawk` and `HawkStrategy.verify` need it loaded. */
export async function loadHawk(): Promise<HawkLib> {
  lib ??= (await import("hawk")).default;
  return lib;
}

function hawk(): HawkLib {
  if (lib === undefined) throw new Error("the hawk package is not loaded yet: await loadHawk() first");
  return lib;
}

export interface HawkSignOptions {
  /** Unix seconds; default: the injected clock plus the learnt server offset. */
  timestamp?: number | undefined;
  nonce?: string | undefined;
  /** Not configurable (no MMS_* variable): only the protocol test vectors set it. */
  ext?: string | undefined;
}

export interface HawkOptions {
  /** Wall clock in ms (tests inject one). */
  now?: () => number;
  /** Fixed signing inputs, for tests. */
  sign?: HawkSignOptions;
}

/**
 * The `Authorization: Hawk …` header for one request, and the artifacts needed to verify the
 * answer. The URI is passed as an object so hawk cannot re-parse (and re-escape) the path.
 * Needs `loadHawk()` to have resolved.
 */
export function signHawk(
  request: AuthRequest,
  config: HawkConfig,
  options: HawkSignOptions & { timestamp: number },
): { header: string; artifacts: Artifacts } {
  const q = request.path.indexOf("?");
  const uri = {
    protocol: request.protocol,
    hostname: request.hostname,
    port: String(request.port),
    pathname: q === -1 ? request.path : request.path.slice(0, q),
    search: q === -1 ? "" : request.path.slice(q),
  };
  const withPayload = request.body !== undefined && config.payloadHash;
  return hawk().client.header(
    // The typings say string; hawk 9 accepts a parsed URL object (client.js: `typeof uri === 'object'`).
    uri as unknown as string,
    request.method,
    {
      credentials: { id: config.id, key: config.key.reveal(), algorithm: "sha256" },
      timestamp: options.timestamp,
      nonce: options.nonce,
      ext: options.ext,
      app: config.app,
      dlg: config.app === undefined ? undefined : config.dlg,
      ...(withPayload
        ? { payload: request.body, contentType: request.contentType ?? "application/json" }
        : {}),
    },
  );
}

const HAWK_CHALLENGE = /^\s*hawk\b/i;
const TS_ATTRIBUTE = /\bts="(\d+)"/;

/** The Hawk `WWW-Authenticate` header, if the answer carries one. */
function hawkChallenge(headers: AuthResponse["headers"]): string | undefined {
  const value = headers["www-authenticate"];
  return value !== undefined && HAWK_CHALLENGE.test(value) ? value : undefined;
}

export class HawkStrategy implements AuthStrategy {
  readonly scheme = "hawk";
  readonly afterRetryHint = "; still rejected after correcting the clock offset to the server's time";
  readonly #config: HawkConfig;
  readonly #now: () => number;
  readonly #sign: HawkSignOptions;
  /** Server time minus local time, learnt from a verified stale-timestamp challenge. */
  #offsetMs = 0;

  constructor(config: HawkConfig, options: HawkOptions = {}) {
    this.#config = config;
    this.#now = options.now ?? Date.now;
    this.#sign = options.sign ?? {};
  }

  /** The learnt clock offset in ms (server minus local). */
  get localtimeOffsetMsec(): number {
    return this.#offsetMs;
  }

  async authorize(request: AuthRequest): Promise<AuthGrant> {
    if (lib === undefined) await loadHawk();
    const timestamp = this.#sign.timestamp ?? Math.floor((this.#now() + this.#offsetMs) / 1000);
    const { header, artifacts } = signHawk(request, this.#config, { ...this.#sign, timestamp });
    return { headers: { authorization: header }, state: artifacts };
  }

  verify(response: AuthResponse, grant: AuthGrant): void {
    const serverAuthorization = response.headers["server-authorization"];
    const challenge = hawkChallenge(response.headers);
    const hasTs = challenge !== undefined && TS_ATTRIBUTE.test(challenge);
    // upstream-notes: verify when present, never require.
    if (serverAuthorization === undefined && !hasTs) return;
    const headers: Record<string, string> = {};
    if (serverAuthorization !== undefined) headers["server-authorization"] = serverAuthorization;
    if (challenge !== undefined) headers["www-authenticate"] = challenge;
    const contentType = response.headers["content-type"];
    if (contentType !== undefined) headers["content-type"] = contentType;
    // The payload is checked only when the server sent a hash (api-spec §5.2: hash is optional).
    const withHash = serverAuthorization !== undefined && /\bhash="/.test(serverAuthorization);
    try {
      hawk().client.authenticate(
        { headers } as unknown as Parameters<HawkLib["client"]["authenticate"]>[0],
        { id: this.#config.id, key: this.#config.key.reveal(), algorithm: "sha256" },
        grant.state as Artifacts,
        withHash ? { payload: response.text } : {},
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : "verification failed";
      throw new ApiError({
        status: response.status,
        code: ERROR_CODES.SECURITY,
        message: `the response failed Hawk verification (${reason}); its data was discarded`,
        retryable: false,
        details: { reason },
      });
    }
  }

  onChallenge(response: AuthResponse): ChallengeVerdict {
    if (response.status !== 401 && response.status !== 407) return "fail";
    const challenge = hawkChallenge(response.headers);
    const ts = challenge === undefined ? undefined : TS_ATTRIBUTE.exec(challenge)?.[1];
    if (ts === undefined) return "fail";
    // `verify` has already checked tsm. Servers send seconds; a 13-digit value is milliseconds.
    const serverMs = ts.length >= 13 ? Number(ts) : Number(ts) * 1000;
    this.#offsetMs = serverMs - this.#now();
    return "retry-once";
  }
}
