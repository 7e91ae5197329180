/**
 * What reviews share in one process (interface.md §6c): the snapshots of every tenant within
 * MMS_REVIEW_CACHE_MB, the cap on upstream bytes in flight (MMS_INFLIGHT_MB), and the deadline of
 * a review call (MMS_REVIEW_DEADLINE_MS). Made once per process; each tenant's server gets its view.
 */
import { type LedgerOf, ledgerFor, type ProcessLedger } from "../ledger/ledger.js";
import { InflightBytes } from "./inflight.js";
import { SnapshotStore, type TenantSnapshots } from "./snapshots.js";

export interface ReviewSettings {
  deadlineMs: number;
  cacheSeconds: number;
  cacheMb: number;
  inflightMb: number;
  /** MMS_RESUME_KEY: the key resume tokens are sealed with; default: one of this process. */
  resumeKey?: string | undefined;
  clock?: () => number;
  startDeadline?: (ms: number) => Deadline;
  /** After a stop, pages in flight may finish this long (default 2 s; tests whose pages never answer pass less). */
  stopGraceMs?: number;
}

export const REVIEW_DEFAULTS: ReviewSettings = {
  deadlineMs: 45_000,
  cacheSeconds: 300,
  cacheMb: 64,
  inflightMb: 64,
};

/** A review call's deadline: its instant, the signal that aborts then, and how to clear its timer. */
export interface Deadline {
  at: number;
  signal: AbortSignal;
  clear(): void;
}

/** One tenant's share of the review services. */
export interface ReviewServices {
  snapshots: TenantSnapshots;
  inflight: InflightBytes;
  deadlineMs: number;
  /** The tenant's ledger of budgets seen (interface.md §6f), or why it is off. */
  history?: LedgerOf;
  /** Start a call's deadline (a timer by default; tests pass one they fire on an event). */
  startDeadline(ms: number): Deadline;
  stopGraceMs?: number | undefined;
}

/** A deadline `ms` from now on a timer. */
export function timerDeadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("review deadline")), ms);
  return { at: Date.now() + ms, signal: controller.signal, clear: () => clearTimeout(timer) };
}

export interface ProcessReviews {
  /** `historyOf`: whose history (the tenant and its upstream, hosting says); default the tenant's name. */
  forTenant(tenant: string | undefined, historyOf?: string): ReviewServices;
  readonly store: SnapshotStore;
  readonly inflight: InflightBytes;
}

const MB = 1024 * 1024;

/** `history`: where reviews are remembered (src/hosting/history-store.ts); none without it. */
export function createReviewServices(
  settings: ReviewSettings = REVIEW_DEFAULTS,
  history?: ProcessLedger,
): ProcessReviews {
  const store = new SnapshotStore({
    ttlMs: settings.cacheSeconds * 1000,
    maxBytes: settings.cacheMb * MB,
    resumeKey: settings.resumeKey,
    ...(settings.clock ? { clock: settings.clock } : {}),
  });
  const inflight = new InflightBytes(settings.inflightMb * MB);
  // One per tenant, so its writes of one record run in order.
  const histories = new Map<string, LedgerOf>();
  const historyOf = (tenant: string) => {
    let h = histories.get(tenant);
    if (h === undefined) {
      h = ledgerFor(history, tenant);
      histories.set(tenant, h);
    }
    return h;
  };
  return {
    store,
    inflight,
    // A tenant-less server (one upstream) is the tenant "default".
    forTenant: (tenant, owner) => ({
      snapshots: store.forTenant(tenant ?? "default"),
      inflight,
      deadlineMs: settings.deadlineMs,
      history: historyOf(owner ?? tenant ?? "default"),
      startDeadline: settings.startDeadline ?? timerDeadline,
      stopGraceMs: settings.stopGraceMs,
    }),
  };
}
