/**
 * Review services for tests against a hostile upstream (test/helpers/budget-upstream.ts): a deadline
 * the test fires itself on an event, and settings whose stop grace suits pages held forever.
 */
import {
  createReviewServices,
  type Deadline,
  type ProcessReviews,
  type ReviewSettings,
} from "../../src/domain/review/services.js";

/** A deadline the test fires itself (the current call's); `started` counts the calls that started one. */
export function manualDeadline() {
  let controller = new AbortController();
  let started = 0;
  return {
    fire: () => controller.abort(new Error("review deadline")),
    get started() {
      return started;
    },
    start: (ms: number): Deadline => {
      started += 1;
      controller = new AbortController();
      return { at: Date.now() + ms, signal: controller.signal, clear: () => {} };
    },
  };
}

/** The production defaults but for the stop grace: held pages never answer, so they are aborted in 50 ms, not 2 s. */
export function testReviewServices(settings: Partial<ReviewSettings> = {}): ProcessReviews {
  return createReviewServices({
    deadlineMs: 45_000,
    cacheSeconds: 300,
    cacheMb: 64,
    inflightMb: 64,
    stopGraceMs: 50,
    ...settings,
  });
}
