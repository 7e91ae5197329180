/**
 * Warehouse classification 1 by state (api-spec §4.5). The API filters enabled ones only
 * (`only_enabled`, default true; false returns both), so "disabled" and "all" read every page of
 * the unfiltered list and count here. Results are in id order: the API does not promise one.
 */
import type { WarehouseGroup1 } from "../client/types.js";
import { UserInputError } from "../errors/api-error.js";

export type ClassificationState = "enabled" | "disabled" | "all";

export interface StateInput {
  state?: ClassificationState | undefined;
  only_enabled?: boolean | undefined;
  limit?: number | undefined;
  all?: boolean | undefined;
}

/**
 * The state asked for, and whether every page must be read. An explicit "disabled" or "all" reads
 * every page, to count both kinds. `only_enabled` keeps working as before (one page, or every page
 * with `all`), as the state it means: true = "enabled", false = "all". A combination that
 * contradicts itself is refused with the fix.
 */
export function resolveState(input: StateInput): { state: ClassificationState; walk: boolean } {
  const { state, only_enabled: onlyEnabled } = input;
  if (onlyEnabled === true && state !== undefined && state !== "enabled") {
    throw new UserInputError(
      `only_enabled=true asks for enabled classifications only, state="${state}" for ${state === "all" ? "every one" : "disabled ones"}: send state alone (only_enabled is its older form)`,
      { field: "only_enabled" },
    );
  }
  if (onlyEnabled === false && state === "enabled") {
    throw new UserInputError(
      `only_enabled=false includes disabled classifications, state="enabled" excludes them: send state alone (only_enabled is its older form)`,
      { field: "only_enabled" },
    );
  }
  if (state === undefined || state === "enabled") {
    return { state: onlyEnabled === false ? "all" : "enabled", walk: false };
  }
  // Counting needs every page: a page size or a one-page answer would leave the counts partial.
  if (input.limit !== undefined) {
    throw new UserInputError(
      `limit does not apply to state="${state}": every page is read to count them (up to max_records, default 1000); drop limit, or cap with max_records`,
      { field: "limit" },
    );
  }
  if (input.all === false) {
    throw new UserInputError(
      `state="${state}" always reads every page (the API cannot filter disabled ones); drop all=false`,
      { field: "all" },
    );
  }
  return { state, walk: true };
}

/** The classifications of `state` among those read, in id order, with the counts of both kinds. */
export function byState(read: readonly WarehouseGroup1[], state: ClassificationState) {
  const sorted = [...read].sort((a, b) => a.id - b.id);
  const enabled = sorted.filter((g) => g.enabled).length;
  return {
    groups: state === "disabled" ? sorted.filter((g) => !g.enabled) : sorted,
    enabled,
    disabled: sorted.length - enabled,
  };
}
