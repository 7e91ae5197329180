/**
 * Authentication: the token endpoint (api-spec §4.6), Bearer and Hawk verification of the main
 * API (§5), and Bearer-only verification of the hub (§7.2). Time is the injectable clock plus
 * the fault skew; Hawk replays are caught by a nonce cache keyed by id + nonce + ts.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import Hawk from "hawk";
import type { Faults } from "./faults.js";
import { errorItem, json, oauthError, problem, type Reply } from "./responses.js";
import type { SandboxState } from "./state.js";

export const TOKEN_LIFETIME_SEC = 7200;
const HAWK_SKEW_SEC = 60;

/** Who is calling, and what it may do. */
export interface Principal {
  companyId: number;
  scheme: "bearer" | "hawk";
  clientId: string;
  editTaskPlans: boolean;
  warehouseWrite: boolean;
  hub: boolean;
  /** Set for Hawk requests: needed to sign the response (`Server-Authorization`). */
  hawk?: { credentials: Hawk.server.Credentials; artifacts: Hawk.crypto.Artifacts };
}

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; reply: Reply };

type BearerCheck =
  | { kind: "ok"; principal: Principal }
  | { kind: "missing" | "invalid" | "expired"; message: string };

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class AuthService {
  readonly #state: () => SandboxState;
  readonly #faults: Faults;
  readonly #now: () => number;
  readonly #nonces = new Map<string, number>();

  /** `now` is the server time in epoch ms (clock + skew). */
  constructor(state: () => SandboxState, faults: Faults, now: () => number) {
    this.#state = state;
    this.#faults = faults;
    this.#now = now;
  }

  /** POST /oauth/token: Basic client authentication, form body, client_credentials only. */
  token(req: IncomingMessage, rawBody: string): Reply {
    if (this.#faults.tokenDown) {
      return oauthError(503, "temporarily_unavailable", "The authorization server is unavailable");
    }
    const header = req.headers.authorization ?? "";
    const m = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
    if (!m) return oauthError(401, "invalid_client", "Client authentication with HTTP Basic is required");
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const client =
      colon < 0 ? undefined : this.#findClient(decoded.slice(0, colon), decoded.slice(colon + 1));
    if (!client) return oauthError(401, "invalid_client", "Unknown client or wrong client secret");
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") {
      return oauthError(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded");
    }
    const grant = new URLSearchParams(rawBody).get("grant_type");
    if (grant === null || grant === "") return oauthError(400, "invalid_request", "grant_type is required");
    if (grant !== "client_credentials") {
      return oauthError(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported");
    }
    const token = randomBytes(24).toString("base64url");
    const tokens = this.#state().tokens;
    // Forget tokens expired for more than a day, so a long-lived state file does not grow forever.
    for (const [t, v] of Object.entries(tokens)) if (v.expiresAt < this.#now() - 86_400_000) delete tokens[t];
    tokens[token] = {
      clientId: client.clientId,
      companyId: client.companyId,
      expiresAt: this.#now() + TOKEN_LIFETIME_SEC * 1000,
    };
    return json(
      200,
      { access_token: token, token_type: "Bearer", expires_in: TOKEN_LIFETIME_SEC },
      { "Cache-Control": "no-store", Pragma: "no-cache" },
    );
  }

  #findClient(id: string, secret: string) {
    const tryPair = (i: string, s: string) =>
      this.#state().oauthClients.find((c) => c.clientId === i && safeEqual(c.clientSecret, s));
    const direct = tryPair(id, secret);
    if (direct) return direct;
    // RFC 6749 §2.3.1 form-encodes the parts first; most clients do not. Accept both.
    try {
      return tryPair(
        decodeURIComponent(id.replace(/\+/g, " ")),
        decodeURIComponent(secret.replace(/\+/g, " ")),
      );
    } catch {
      return undefined;
    }
  }

  /** Mark every issued token as expired now (fault `expireTokens`). */
  expireAll(): void {
    const now = this.#now();
    for (const t of Object.values(this.#state().tokens)) t.expiresAt = Math.min(t.expiresAt, now);
  }

  #bearer(header: string | undefined): BearerCheck {
    if (!header) return { kind: "missing", message: "Missing Authorization header" };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return { kind: "missing", message: "Authorization header must be 'Bearer <token>'" };
    const issued = this.#state().tokens[m[1]!];
    if (!issued) return { kind: "invalid", message: "Invalid access token" };
    if (this.#now() >= issued.expiresAt) return { kind: "expired", message: "Access token expired" };
    const client = this.#state().oauthClients.find((c) => c.clientId === issued.clientId);
    if (!client) return { kind: "invalid", message: "Invalid access token" };
    return {
      kind: "ok",
      principal: {
        companyId: client.companyId,
        scheme: "bearer",
        clientId: client.clientId,
        editTaskPlans: client.editTaskPlans,
        warehouseWrite: client.warehouseWrite,
        hub: client.hub,
      },
    };
  }

  /** Main API: Bearer or Hawk. Failures use the envelope with HTTP 401 (or the stale status). */
  async main(req: IncomingMessage, rawBody: string): Promise<AuthOutcome> {
    const header = req.headers.authorization;
    if (header && /^Hawk\s/i.test(header)) return this.#hawk(req, rawBody);
    const check = this.#bearer(header);
    if (check.kind === "ok") return { ok: true, principal: check.principal };
    return { ok: false, reply: errorItem(401, check.message) };
  }

  /** Hub: Bearer only (a Hawk header is "not a Bearer token"). */
  hub(req: IncomingMessage): AuthOutcome {
    const check = this.#bearer(req.headers.authorization);
    if (check.kind === "ok") {
      if (!check.principal.hub) {
        return {
          ok: false,
          reply: problem(403, "OAUTH2_ETL_ACCESS_DENIED", "The ETL module is not enabled for this client"),
        };
      }
      return { ok: true, principal: check.principal };
    }
    if (check.kind === "expired") return { ok: false, reply: problem(401, "TOKEN_EXPIRED", check.message) };
    return { ok: false, reply: problem(401, "MISSING_BEARER_TOKEN", check.message) };
  }

  async #hawk(req: IncomingMessage, rawBody: string): Promise<AuthOutcome> {
    const hostHeader = req.headers.host;
    let host: string;
    let port: number;
    try {
      const u = new URL(`http://${hostHeader ?? ""}`);
      host = u.hostname;
      port = u.port === "" ? 80 : Number(u.port);
      if (!hostHeader || host === "") throw new Error("no host");
    } catch {
      return { ok: false, reply: errorItem(401, "Invalid Host header") };
    }
    let id = "";
    const state = this.#state();
    const now = this.#now();
    try {
      const { credentials, artifacts } = await Hawk.server.authenticate(
        req,
        (hawkId: string) => {
          id = hawkId;
          const c = state.hawkClients.find((h) => h.id === hawkId);
          // `user` carries the company id (hawk's Credentials type requires a user field).
          return c ? { key: c.key, algorithm: "sha256", user: String(c.companyId) } : (null as never);
        },
        {
          host,
          port,
          timestampSkewSec: HAWK_SKEW_SEC,
          localtimeOffsetMsec: now - Date.now(),
          nonceFunc: (_key: string, nonce: string, ts: string) =>
            this.#checkNonce(`${id}:${nonce}:${ts}`, now),
        },
      );
      // The payload hash is optional (upstream-notes): validate it only when the client sent one.
      if (artifacts.hash) {
        Hawk.server.authenticatePayload(rawBody, credentials, artifacts, req.headers["content-type"] ?? "");
      }
      const companyId = Number(credentials.user);
      return {
        ok: true,
        principal: {
          companyId,
          scheme: "hawk",
          clientId: id,
          editTaskPlans: true,
          warehouseWrite: true,
          hub: false,
          hawk: { credentials, artifacts },
        },
      };
    } catch (err) {
      const e = err as Error & { output?: { headers?: Record<string, string> } };
      const message = e.message || "Invalid Hawk authorization";
      const www = e.output?.headers?.["WWW-Authenticate"];
      const stale = message === "Stale timestamp";
      const status = stale ? this.#faults.staleHawkStatus : 401;
      const reply = errorItem(status, message);
      if (www) reply.headers = { "WWW-Authenticate": www };
      return { ok: false, reply };
    }
  }

  #checkNonce(key: string, now: number): void {
    // Entries older than twice the skew window can no longer pass the staleness check: drop them.
    const horizon = now - 2 * HAWK_SKEW_SEC * 1000;
    for (const [k, seenAt] of this.#nonces) {
      if (seenAt >= horizon) break;
      this.#nonces.delete(k);
    }
    if (this.#nonces.has(key)) throw new Error("Invalid nonce");
    this.#nonces.set(key, now);
  }
}
