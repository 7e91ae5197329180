/**
 * What reviews share in one process (interface.md §6c): the snapshots of every tenant within
 * MMS_REVIEW_CACHE_MB, the cap on upstream bytes in flight (MMS_INFLIGHT_MB), and the deadline of
 * a review call (MMS_REVIEW_DEADLINE_MS). Made once per process; each tenant's server gets its view.
 */
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
  /** Start a call's deadline (a timer by default; tests pass one they fire on an event). */
  startDeadline(ms: number): Deadline;
}

/** A deadline `ms` from now on a timer. */
export function timerDeadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("review deadline")), ms);
  return { at: Date.now() + ms, signal: controller.signal, clear: () => clearTimeout(timer) };
}

export interface ProcessReviews {
  forTenant(tenant: string | undefined): ReviewServices;
  readonly store: SnapshotStore;
  readonly inflight: InflightBytes;
}

const MB = 1024 * 1024;

export function createReviewServices(settings: ReviewSettings = REVIEW_DEFAULTS): ProcessReviews {
  const store = new SnapshotStore({
    ttlMs: settings.cacheSeconds * 1000,
    maxBytes: settings.cacheMb * MB,
    resumeKey: settings.resumeKey,
    ...(settings.clock ? { clock: settings.clock } : {}),
  });
  const inflight = new InflightBytes(settings.inflightMb * MB);
  return {
    store,
    inflight,
    // A tenant-less server (one upstream) is the tenant "default".
    forTenant: (tenant) => ({
      snapshots: store.forTenant(tenant ?? "default"),
      inflight,
      deadlineMs: settings.deadlineMs,
      startDeadline: settings.startDeadline ?? timerDeadline,
    }),
  };
}
