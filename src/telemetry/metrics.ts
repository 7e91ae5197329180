/**
 * Review snapshot metrics (interface.md §6c). A minimal stand-in with the one export reviews call;
 * the OpenTelemetry counters (requests sent, time waiting, 406s met, snapshot hits) replace its
 * body on another branch, behind the same signature. Free: it counts in memory only.
 */

const snapshots = { hits: 0, misses: 0 };

/** One review answered from the tenant's snapshot (hit) or read upstream (miss). */
export function countSnapshot(hit: boolean): void {
  if (hit) snapshots.hits += 1;
  else snapshots.misses += 1;
}
