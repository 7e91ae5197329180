/**
 * Where a review's budgets come from (interface.md §6c): the tenant's snapshot of the window when
 * it holds enough (nothing read upstream), else the walk, continued from the snapshot or a
 * `resume` token (nothing read again) and kept for the next look. Says whether the answer came
 * from the snapshot, why the walk stopped, and the token that continues it when it is not done.
 */

import type { DiscountKind } from "../budget-view.js";
import type { ResolvedPeriod } from "../period.js";
import type { Keep } from "./records.js";
import { runWalk, type ScheduleDeps, type Stop } from "./scheduler.js";
import type { TenantSnapshots } from "./snapshots.js";
import { WalkState } from "./walk.js";

export interface ReadAsk {
  /** The snapshot key: the window as asked, type_date and the filters sent upstream, and the view's need. */
  key: string;
  /** The window and filters in words, for a refused token. */
  described: string;
  window: ResolvedPeriod;
  maxRecords: number;
  /** What each budget keeps: what the view shows. */
  keep: Keep;
  discount: DiscountKind | undefined;
  resume?: string | undefined;
  fresh?: boolean | undefined;
}

export interface ReadDeps extends ScheduleDeps {
  snapshots: TenantSnapshots;
  /** The server's clock, for when a walk starts (its as_of); default `clock`. */
  asOfClock?: (() => number) | undefined;
  /** Told once per review: true when the snapshot answered without any read upstream. */
  onSnapshot?: ((hit: boolean) => void) | undefined;
}

export interface Read {
  state: WalkState;
  stop: Stop;
  /** The state existed before this call (a snapshot, or a walk resumed). */
  fromSnapshot: boolean;
  /** Pages were read upstream by this call. */
  readNow: boolean;
  /** The token that continues the walk; undefined when it is done (or could not be kept). */
  resume: string | undefined;
  /** False when the snapshot could not keep the budgets (over MMS_REVIEW_CACHE_MB alone). */
  kept: boolean;
  /** The server keeps no snapshot at all (MMS_REVIEW_CACHE_SECONDS=0): why a partial walk cannot resume. */
  cacheOff: boolean;
}

/** The budgets of the window up to `maxRecords`: from the snapshot, the walk, or both. */
export async function readReview(ask: ReadAsk, deps: ReadDeps): Promise<Read> {
  const { snapshots } = deps;
  const earlier =
    ask.resume !== undefined
      ? snapshots.redeem(ask.resume, ask.key, ask.described)
      : ask.fresh
        ? undefined
        : snapshots.get(ask.key);
  // Another call is reading into that snapshot now: read on our own rather than race it.
  const shared = earlier !== undefined && (earlier.readers === 0 || ask.resume !== undefined);
  const state = shared
    ? earlier
    : new WalkState(ask.window, (deps.asOfClock ?? deps.clock)(), { keep: ask.keep, discount: ask.discount });
  const done = state.finished(ask.maxRecords);
  deps.onSnapshot?.(shared && done);
  if (done)
    return {
      state,
      stop: { kind: "done" },
      fromSnapshot: shared,
      readNow: false,
      resume: undefined,
      kept: true,
      cacheOff: snapshots.store.options.ttlMs <= 0,
    };

  const release = snapshots.hold(ask.key, state);
  let stop: Stop;
  try {
    stop = await runWalk(state, ask.maxRecords, deps);
  } finally {
    release();
  }
  const kept = snapshots.save(ask.key, state);
  const resume =
    kept && !state.finished(ask.maxRecords) ? snapshots.token(ask.key, ask.described, state) : undefined;
  const cacheOff = snapshots.store.options.ttlMs <= 0;
  return { state, stop, fromSnapshot: shared, readNow: true, resume, kept, cacheOff };
}
