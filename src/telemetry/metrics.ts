/**
 * The request path's metric hooks (interface.md §6c "Operators see it"), free when no exporter is set:
 * until `installMetrics` runs (src/main/build.ts, only with an OTLP endpoint) each hook is one
 * `undefined` check, and this module imports nothing, so a start without metrics loads no
 * OpenTelemetry code. The instruments themselves live in metrics-otel.ts, loaded lazily.
 * IMPORTANT: attributes are low-cardinality names only (tenant, kind, hit), never a path or a value.
 */

/** What the OpenTelemetry side records (metrics-otel.ts implements it). */
export interface MetricsRecorder {
  /** One request sent upstream (every attempt, reads and writes). */
  requestSent(kind: "read" | "write", tenant: string | undefined): void;
  /** Time one request waited for the company's budget, in ms (0 when it did not wait). */
  budgetWait(ms: number, kind: "read" | "write", tenant: string | undefined): void;
  /** One 406 (or 429) met upstream. */
  rateLimited(tenant: string | undefined): void;
  /** One review answered from the snapshot (hit) or read upstream (miss). */
  snapshot(hit: boolean): void;
}

let recorder: MetricsRecorder | undefined;

/** Route the hooks to a recorder (after startMetrics registered the SDK); undefined turns them off. */
export function installMetrics(next: MetricsRecorder | undefined): void {
  recorder = next;
}

export function countRequestSent(kind: "read" | "write", tenant?: string): void {
  recorder?.requestSent(kind, tenant);
}

export function recordBudgetWait(ms: number, kind: "read" | "write", tenant?: string): void {
  recorder?.budgetWait(ms, kind, tenant);
}

export function countRateLimited(tenant?: string): void {
  recorder?.rateLimited(tenant);
}

/** A review answered from its snapshot (`hit`) or by reading upstream (a miss). */
export function countSnapshot(hit: boolean): void {
  recorder?.snapshot(hit);
}
