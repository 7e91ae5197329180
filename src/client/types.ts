/**
 * Domain types of the upstream API as the tools see them, and the interfaces of the two
 * clients. Values are already normalised by the client: numbers sent as text are numbers,
 * `folio_target` is text, `data: null` is an empty list. Nothing here mentions HTTP except
 * `PreparedRequest`, the exact request a dry run shows.
 */

export type ResourceType = "INVENTORY" | "HUMAN_RESOURCES" | "SERVICES";

/** One element of `resources` in api-spec §4.1. */
export type TaskResourceInput =
  | { type_description: "INVENTORY"; id_item: number; note?: string | undefined }
  | { type_description: "HUMAN_RESOURCES"; id_hourly_rate: number; note?: string | undefined }
  | { type_description: "SERVICES"; id_service_type: number; note?: string | undefined };

/** A created task resource, api-spec §2.1. */
export interface TaskResource {
  id: number;
  type_description: ResourceType;
  quantity: number;
  unit_cost: number;
  id_item?: number | undefined;
  id_hourly_rate?: number | undefined;
  id_service_type?: number | undefined;
  note?: string | null | undefined;
}

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

/** An item of a movement, api-spec §2.2. */
export interface MovementDetail {
  id_item: number;
  items_description: string;
  code: string;
  units_description: string;
  qty: number;
  unit_cost: number;
  total_cost: number;
  tax_name: string;
  tax_rate: number;
}

/** A warehouse movement as returned by the entry endpoint, api-spec §2.2. */
export interface WarehouseMovement {
  id: number;
  /** Movement identifier; the API sends it as number or text, always text here. */
  folio_target: string;
  date: string;
  description: string | null;
  document: string;
  id_third_party: number | string | null;
  third_parties_name: string | null;
  third_parties_code: string | null;
  id_cost_center: number | string | null;
  costs_center_value: string | null;
  costs_center_description: string | null;
  folio_source: string | null;
  date_create: string;
  id_priority: string | null;
  priorities_description: string | null;
  id_currency: number;
  currency_description: string;
  currency_symbol: string;
  movements_states_description: string;
  movement_details: MovementDetail[];
}

/** Element of a budget's list_items, api-spec §2.3. */
export interface BudgetListItem {
  id_company: number;
  type_resource: number;
  qty: number;
  unit_cost_company: number;
  total_cost_company: number;
  unit_cost: number;
  total_cost: number;
  id_taxes: number | null;
  hrl_description: string | null;
  items_log_description: string | null;
  stl_description: string | null;
}

/** A work-order budget, every field of api-spec §2.3 (nullable where the spec or practice says so). */
export interface Budget {
  id: number;
  id_company: number;
  id_work_order: number;
  id_third_parties_log: number | null;
  id_cost_center: number | null;
  folio: string;
  id_currency: number;
  exchange_value: number | null;
  reference: string | null;
  id_priority: number | null;
  note: string | null;
  id_item_log: number | null;
  date_create: string;
  id_condition: number | null;
  /** 1 pending approval, 2 approved, 3 rejected/cancelled. */
  status: number;
  approved_by: string | null;
  note_status: string | null;
  discount: number | null;
  created_by: string | null;
  third_parties_name: string | null;
  third_parties_code: string | null;
  third_parties_address: string | null;
  third_parties_email: string | null;
  third_parties_city: string | null;
  third_parties_country: string | null;
  third_parties_telephone_1: string | null;
  third_parties_telephone_2: string | null;
  costs_center_description: string | null;
  items_description: string | null;
  items_groups_description: string | null;
  items_groups_1_description: string | null;
  items_groups_2_description: string | null;
  conditions_description: string | null;
  currency_description: string | null;
  symbol: string | null;
  wo_folio: string | null;
  /** 1 in process, 2 in review, 3 finished, 4 cancelled. */
  id_status_work_order: number | null;
  final_date: string | null;
  user_assigned: string | null;
  parent_description: string | null;
  list_items: BudgetListItem[];
  approval_date: string | null;
}

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
export interface WarehouseGroup1 {
  id: number;
  id_company: number;
  description: string;
  enabled: boolean;
}

export interface WarehouseGroups1Query {
  id?: number | undefined;
  only_enabled?: boolean | undefined;
  start?: number | undefined;
  limit?: number | undefined;
}

/** A DAG (ETL integration), api-spec §2.5. */
export interface Dag {
  dag_id: string;
  description: string;
  /** YYYY-MM-DD */
  last_run: string | null;
}

export interface DagList {
  id_company: string;
  total: number;
  dags: Dag[];
}

/** One page of a list endpoint. `total` is what the API reported (matches, not page size). */
export interface Page<T> {
  data: T[];
  total: number;
}

/** The exact request a write would send: shown by dry runs. No headers, so no credentials. */
export interface PreparedRequest {
  method: "GET" | "POST";
  /** Full URL path including the base path and the query, exactly as it would be sent. */
  path: string;
  body?: unknown;
}

export interface CallOptions {
  /** Aborts the upstream request and any backoff wait (MCP cancellation). */
  signal?: AbortSignal | undefined;
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

/** Both clients plus their shutdown. */
export interface Clients {
  api: MaintenanceApi;
  /** Undefined when no OAuth credentials are configured (the hub needs Bearer). */
  hub: HubApi | undefined;
  /** Close connection pools. */
  close(): Promise<void>;
}
