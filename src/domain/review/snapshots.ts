/**
 * The budgets a review read, kept per tenant (interface.md §6c): keyed by the window as asked,
 * `type_date` and the filters sent upstream, for MMS_REVIEW_CACHE_SECONDS after its last page,
 * within MMS_REVIEW_CACHE_MB per process (least recently used out first; never one a walk is
 * reading). A partial walk is kept too, so `resume` continues it. A resume token names its tenant
 * (a hash), its window and its snapshot, and expires with it: another tenant's token, a changed
 * window or an expired token is refused with an error that says which.
 */
import { createHash } from "node:crypto";
import { UserInputError } from "../../errors/api-error.js";
import type { WalkState } from "./walk.js";

export interface SnapshotOptions {
  ttlMs: number;
  maxBytes: number;
  clock?: () => number;
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

export class SnapshotStore {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  readonly #clock: () => number;

  constructor(readonly options: SnapshotOptions) {
    this.#clock = options.clock ?? Date.now;
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
      w: window,
      s: state.id,
      x: this.store.expiresAt(this.tenant, key) ?? 0,
    };
    return Buffer.from(JSON.stringify(body)).toString("base64url");
  }

  /** The partial walk `token` continues, or an error that says why it cannot. */
  redeem(token: string, key: string, window: string): WalkState {
    const body = decode(token);
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

function decode(token: string): TokenBody {
  try {
    const body = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as TokenBody;
    if (
      body.v === 1 &&
      typeof body.t === "string" &&
      typeof body.k === "string" &&
      typeof body.s === "string"
    )
      return body;
  } catch {
    // Not JSON: said below.
  }
  throw new UserInputError(
    "resume: not a token this server issued. Pass structuredContent.resume of the partial result exactly as given.",
    { field: "resume", reason: "malformed" },
  );
}
