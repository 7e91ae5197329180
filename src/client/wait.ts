/**
 * The client's two waiting primitives, shared by the retry loop (http.ts) and the request budget
 * (rate-budget.ts). IMPORTANT: both end at once when the caller's signal aborts (MCP cancellation, a
 * review's deadline), rejecting with the signal's reason; neither leaves a listener behind.
 */

/**
 * The longest delay a Node.js timer takes: a longer one fires after 1 ms (with a warning), so a loop
 * waiting on it spins (interface.md §9b).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a timer takes it: within [0, MAX_TIMER_MS] (NaN: 0). */
export const timerMs = (ms: number): number => Math.min(MAX_TIMER_MS, Math.max(0, ms || 0));

/** Promise that resolves after `ms` (at most MAX_TIMER_MS), or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise keeps running for others). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
