/** Fixtures shared by the idempotency-store tests: one keyed request and its outcome, a silent logger, a rejection catcher. */
import type { ApiError } from "../../src/errors/api-error.js";
import { createLogger } from "../../src/telemetry/logger.js";

export const REQUEST = { path: "warehouse_entries_orders/W1", body: { qty: 1 } };
export const OUTCOME = { id: 41, folio_target: "EN-000041" };
export const quiet = createLogger({ level: "error", sink: () => {} });
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The error `p` rejects with; fails the test when it resolves. */
export const rejection = (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e as ApiError,
  );
