/**
 * The budgets a review read, kept per tenant (interface.md §6c): keyed by the window as asked,
 * `type_date` and the filters sent upstream, for MMS_REVIEW_CACHE_SECONDS after its last page,
 * within MMS_REVIEW_CACHE_MB per process (least recently used out first; never one a walk is
 * reading). A partial walk is kept too, so `resume` continues it. A resume token names its tenant
 * (a hash), its window and its snapshot, and expires with it: another tenant's token, a changed
 * window or an expired token is refused with an error that says which.
 * IMPORTANT: a token is sealed (HMAC-SHA256 with the store's key: per process, or MMS_RESUME_KEY
 * shared by replicas, interface.md §9b); one that fails the check or holds a field out of range is
 * invalid input naming `resume`, never an internal error, and nothing of it is echoed unbounded.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { UserInputError } from "../../errors/api-error.js";
import type { WalkState } from "./walk.js";

export interface SnapshotOptions {
  ttlMs: number;
  maxBytes: number;
  clock?: () => number;
  /** The key resume tokens are sealed with (MMS_RESUME_KEY); default: a random one for this process. */
  resumeKey?: string | undefined;
}

interface Entry {
  tenant: string;
  state: WalkState;
  expiresAt: number;
  weight: number;
}

/** What a resume token carries (base64url JSON; opaque to callers). */
interface TokenBody {
  v: 1;
  /** Hash of the tenant: names it without showing it. */
  t: string;
  /** Hash of the snapshot key, and the window in words for the error. */
  k: string;
  w: string;
  /** The snapshot (walk) it continues, and when it expires (epoch ms). */
  s: string;
  x: number;
}

const tag = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 16);

/** The longest window text a token carries (and an error echoes); the longest token read at all. */
export const TOKEN_WINDOW_MAX = 200;
const TOKEN_MAX = 1_024;
/** The latest expiry a Date can show (ECMAScript's ±8.64e15 ms). */
const LATEST = 8.64e15;

/** Seals and opens resume tokens: `<body, base64url JSON>.<HMAC-SHA256 of it, 16 bytes>`. */
export class TokenSeal {
  readonly #key: Buffer;

  constructor(key?: string) {
    this.#key = key === undefined ? randomBytes(32) : Buffer.from(key, "utf8");
  }

  seal(body: TokenBody): string {
    const text = Buffer.from(JSON.stringify(body)).toString("base64url");
    return `${text}.${this.#mac(text).toString("base64url")}`;
  }

  /** The body of a token this key sealed, its fields in range; otherwise a UserInputError naming resume. */
  open(token: string): TokenBody {
    const [text, mac, extra] = token.length > TOKEN_MAX ? [] : token.split(".");
    const given = Buffer.from(mac ?? "", "base64url");
    const want = text === undefined ? undefined : this.#mac(text);
    if (
      extra !== undefined ||
      want === undefined ||
      given.length !== want.length ||
      !timingSafeEqual(given, want)
    )
      throw invalid(
        "not a token this server issued (altered, cut, or sealed with another MMS_RESUME_KEY)",
        "malformed",
      );
    return checked(text!);
  }

  #mac(text: string): Buffer {
    return createHmac("sha256", this.#key).update(text).digest().subarray(0, 16);
  }
}

export class SnapshotStore {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  readonly #clock: () => number;
  readonly seal: TokenSeal;

  constructor(readonly options: SnapshotOptions) {
    this.#clock = options.clock ?? Date.now;
    this.seal = new TokenSeal(options.resumeKey);
  }

  /** Bytes held by every tenant's snapshots (approximate). */
  get bytes(): number {
    return this.#bytes;
  }

  forTenant(tenant: string): TenantSnapshots {
    return new TenantSnapshots(this, tenant);
  }

  /** @internal */ get(tenant: string, key: string): WalkState | undefined {
    const id = `${tag(tenant)}:${key}`;
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock() && entry.state.readers === 0) {
      this.#drop(id, entry);
      return undefined;
    }
    // Most recently used last.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry.state;
  }

  /** @internal Keep `state` (again) after a walk read into it; returns whether it is kept. */
  save(tenant: string, key: string, state: WalkState): boolean {
    const id = `${tag(tenant)}:${key}`;
    const old = this.#entries.get(id);
    if (old !== undefined) this.#drop(id, old);
    const entry: Entry = {
      tenant,
      state,
      expiresAt: this.#clock() + this.options.ttlMs,
      weight: state.weight,
    };
    this.#entries.set(id, entry);
    this.#bytes += entry.weight;
    this.#evict();
    return this.#entries.get(id) === entry;
  }

  /** @internal Mark a walk reading into the snapshot of `key` (not evicted meanwhile). */
  hold(tenant: string, key: string, state: WalkState): () => void {
    state.readers += 1;
    this.save(tenant, key, state);
    return () => {
      state.readers -= 1;
    };
  }

  expiresAt(tenant: string, key: string): number | undefined {
    return this.#entries.get(`${tag(tenant)}:${key}`)?.expiresAt;
  }

  #drop(id: string, entry: Entry): void {
    this.#entries.delete(id);
    this.#bytes -= entry.weight;
  }

  /** Expired snapshots out, then the least recently used while over the cap; never one being read. */
  #evict(): void {
    const now = this.#clock();
    for (const [id, entry] of this.#entries)
      if (entry.expiresAt <= now && entry.state.readers === 0) this.#drop(id, entry);
    for (const [id, entry] of this.#entries) {
      if (this.#bytes <= this.options.maxBytes) break;
      if (entry.state.readers === 0) this.#drop(id, entry);
    }
  }
}

/** One tenant's view of the store: it sees and resumes only its own snapshots. */
export class TenantSnapshots {
  constructor(
    readonly store: SnapshotStore,
    readonly tenant: string,
  ) {}

  get(key: string): WalkState | undefined {
    return this.store.get(this.tenant, key);
  }

  save(key: string, state: WalkState): boolean {
    return this.store.save(this.tenant, key, state);
  }

  hold(key: string, state: WalkState): () => void {
    return this.store.hold(this.tenant, key, state);
  }

  /** A token that continues `state` (kept under `key`), for a call of the same window. */
  token(key: string, window: string, state: WalkState): string {
    const body: TokenBody = {
      v: 1,
      t: tag(this.tenant),
      k: tag(key),
      w: window.length > TOKEN_WINDOW_MAX ? `${window.slice(0, TOKEN_WINDOW_MAX - 1)}…` : window,
      s: state.id,
      x: this.store.expiresAt(this.tenant, key) ?? 0,
    };
    return this.store.seal.seal(body);
  }

  /** The partial walk `token` continues, or an error that says why it cannot. */
  redeem(token: string, key: string, window: string): WalkState {
    const body = this.store.seal.open(token);
    if (body.t !== tag(this.tenant))
      throw new UserInputError(
        "resume: this token was issued to another tenant; a review resumes only for the tenant that started it. Call again without resume.",
        { field: "resume", reason: "tenant" },
      );
    if (body.k !== tag(key))
      throw new UserInputError(
        `resume: this token continues a review of another window or filters (${body.w}), not this call's (${window}). Repeat the call exactly as it was (since, until, type_date, status, id, wo_folio, view), or drop resume to review this window.`,
        { field: "resume", reason: "window" },
      );
    const state = this.get(key);
    if (state === undefined || state.id !== body.s)
      throw new UserInputError(
        `resume: this token expired${body.x > 0 ? ` at ${new Date(body.x).toISOString()}` : ""} with its snapshot (kept MMS_REVIEW_CACHE_SECONDS after the last page read, or dropped for room). Call again without resume: the review starts over.`,
        { field: "resume", reason: "expired" },
      );
    return state;
  }
}

/** The body's fields, each of its type and in range (a sealed token has them; checked all the same). */
function checked(text: string): TokenBody {
  let body: Partial<TokenBody> | undefined;
  try {
    body = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<TokenBody>;
  } catch {
    // Not JSON: said below.
  }
  const short = (v: unknown, max: number) => typeof v === "string" && v.length <= max;
  if (
    body?.v === 1 &&
    short(body.t, 64) &&
    short(body.k, 64) &&
    short(body.s, 128) &&
    short(body.w, TOKEN_WINDOW_MAX) &&
    Number.isSafeInteger(body.x) &&
    body.x! >= 0 &&
    body.x! <= LATEST
  )
    return body as TokenBody;
  throw invalid("its fields are out of range (expiry, window text)", "malformed");
}

function invalid(why: string, reason: string): UserInputError {
  return new UserInputError(
    `resume: ${why}. Pass structuredContent.resume of the partial result exactly as given, or call again without resume.`,
    { field: "resume", reason },
  );
}
