/**
 * Domain types of the upstream API as the tools see them, and the interfaces of the two
 * clients. Answer types are the outputs of the schemas in schemas.ts (type-only imports: free at
 * run time), already normalised: numbers sent as text are numbers, `folio_target` is text,
 * `data: null` is an empty list. Request types (what we send) are written here. Nothing here
 * mentions HTTP except `PreparedRequest`, the exact request a dry run shows.
 */
import type { z } from "zod";
import type { BudgetUse } from "./rate-budget.js";
import type {
  BudgetListItemSchema,
  BudgetSchema,
  DagListSchema,
  MovementDetailSchema,
  Page,
  TaskResourceSchema,
  WarehouseGroup1Schema,
  WarehouseMovementSchema,
} from "./schemas.js";

export type ResourceType = "INVENTORY" | "HUMAN_RESOURCES" | "SERVICES";

/** One element of `resources` in api-spec §4.1. */
export type TaskResourceInput =
  | { type_description: "INVENTORY"; id_item: number; note?: string | undefined }
  | { type_description: "HUMAN_RESOURCES"; id_hourly_rate: number; note?: string | undefined }
  | { type_description: "SERVICES"; id_service_type: number; note?: string | undefined };

/** One element of `items` of a warehouse entry, as sent on the wire (api-spec §4.3). */
export interface WarehouseEntryItem {
  code: string;
  /** Sent as text, as the API's samples do. */
  qty: string;
  unit_cost?: number | undefined;
  tax_name?: string | undefined;
  serial_numbers?: string[] | undefined;
}

/** Body of POST warehouse_entries_orders/{code}, exactly as sent. */
export interface WarehouseEntryBody {
  /** "1" purchase, "2" return; sent as text, as the API's samples do. */
  movement_type: "1" | "2";
  is_from_movement?: boolean | undefined;
  document: string;
  code_user: string;
  code_supplier?: string | undefined;
  value_cost_center?: string | undefined;
  description_cost_center?: string | undefined;
  note?: string | undefined;
  items?: WarehouseEntryItem[] | undefined;
}

/** A created task resource, api-spec §2.1. */
export type TaskResource = z.output<typeof TaskResourceSchema>;
/** An item of a movement, api-spec §2.2. */
export type MovementDetail = z.output<typeof MovementDetailSchema>;
/** A warehouse movement as returned by the entry endpoint, api-spec §2.2 (`folio_target` always text). */
export type WarehouseMovement = z.output<typeof WarehouseMovementSchema>;
/** Element of a budget's list_items, api-spec §2.3 (extra fields kept). */
export type BudgetListItem = z.output<typeof BudgetListItemSchema>;
/** A work-order budget, every field of api-spec §2.3 (nullable where the spec or practice says so; extra fields kept). */
export type Budget = z.output<typeof BudgetSchema>;

export type BudgetTypeDate = "creation_date" | "initial_date" | "final_date" | "approval_date";

/** Query of GET wo_budget, values already in the API's wire form. */
export interface BudgetQuery {
  /** Budget folio; sent as the path segment `wo_budget/{id}`. */
  id?: string | undefined;
  status?: 1 | 2 | 3 | undefined;
  wo_folio?: string | undefined;
  /** `YYYY-MM-DDTHH:MM:SS±HH`. */
  since?: string | undefined;
  until?: string | undefined;
  type_date?: BudgetTypeDate | undefined;
  start?: number | undefined;
  limit?: number | undefined;
}

/** A warehouse classification 1, api-spec §2.4. */
export type WarehouseGroup1 = z.output<typeof WarehouseGroup1Schema>;

export interface WarehouseGroups1Query {
  id?: number | undefined;
  only_enabled?: boolean | undefined;
  start?: number | undefined;
  limit?: number | undefined;
}

/** The DAG list of the ETL hub, api-spec §2.5 (`total` defaults to the list length). */
export type DagList = z.output<typeof DagListSchema>;
/** A DAG (ETL integration); `last_run` is YYYY-MM-DD or null. */
export type Dag = DagList["dags"][number];

/** One page of a list endpoint (declared beside its parser, so the two modules import one way). */
export type { Page } from "./schemas.js";

/** The exact request a write would send: shown by dry runs. No headers, so no credentials. */
export interface PreparedRequest {
  method: "GET" | "POST";
  /** Full URL path including the base path and the query, exactly as it would be sent. */
  path: string;
  body?: unknown;
}

export interface CallOptions {
  /** Aborts the upstream request and any backoff or budget wait (MCP cancellation, a review's deadline). */
  signal?: AbortSignal | undefined;
  /**
   * Epoch ms: a wait for the request budget or a rate limit's reset that would end later fails at once
   * as RATE_LIMITED with `retryAt` (nothing sent). Without it a read waits as long as it must.
   */
  deadline?: number | undefined;
}

/** The main API (Bearer or Hawk, per MMS_AUTH). Every failure is an ApiError. */
export interface MaintenanceApi {
  addTaskResources(
    idGroupTask: number,
    idTask: number,
    resources: TaskResourceInput[],
    options?: CallOptions,
  ): Promise<TaskResource[]>;
  /** The request addTaskResources would send, without sending it (dry run, idempotency hash). */
  prepareTaskResources(idGroupTask: number, idTask: number, resources: TaskResourceInput[]): PreparedRequest;
  /** The request createWarehouseEntry would send, without sending it. Throws ApiError/UserInputError on a bad path. */
  prepareWarehouseEntry(warehouseCode: string, body: WarehouseEntryBody): PreparedRequest;
  createWarehouseEntry(
    warehouseCode: string,
    body: WarehouseEntryBody,
    options?: CallOptions,
  ): Promise<WarehouseMovement>;
  /** GET wo_budget (or wo_budget/{id} when `query.id` is set). A single-object `data` becomes a one-element list. */
  queryBudgets(query: BudgetQuery, options?: CallOptions): Promise<Page<Budget>>;
  /** GET warehouses_groups_1. `data: null` is an empty page. */
  listWarehouseGroups1(query: WarehouseGroups1Query, options?: CallOptions): Promise<Page<WarehouseGroup1>>;
}

/** The ETL hub (always OAuth Bearer). */
export interface HubApi {
  listDags(options?: CallOptions): Promise<DagList>;
}

/** Both clients plus their warm-up and shutdown. */
export interface Clients {
  api: MaintenanceApi;
  /** Undefined when no OAuth credentials are configured (the hub needs Bearer). */
  hub: HubApi | undefined;
  /**
   * Fetch the OAuth access token now (or give the cached one): `maintenance-mcp --check` tests the
   * credentials with it. Undefined without OAuth credentials. Rejects with an ApiError.
   */
  accessToken?: (() => Promise<{ expiresAt: number }>) | undefined;
  /**
   * Load the HTTP stack (undici, and hawk for MMS_AUTH=hawk) and fetch the OAuth token in the
   * background, so the first call does not wait for them. Never rejects: a failure surfaces on
   * the first call instead. Starts after `delayMs` (default WARM_DELAY_MS); a later call with a
   * shorter delay brings it forward; it runs once.
   */
  warm(delayMs?: number): void;
  /** Close connection pools. */
  close(): Promise<void>;
  /** The company's request budget at work (/healthz); undefined with MMS_RATE_LIMIT=0. */
  budgetUse?: () => BudgetUse | undefined;
}
