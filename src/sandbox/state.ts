/**
 * The sandbox's data model. Everything the simulator knows lives in one JSON-serialisable
 * `SandboxState`, so it can be inspected by tests and saved to `--state FILE` (state-store.ts:
 * snapshot + journal + lock; state-schema.ts: the deep validation of a loaded file).
 */

export const STATE_VERSION = 1;

export interface Company {
  id: number;
  name: string;
  advancedApis: boolean;
  defaultTaxName: string;
  defaultCurrencyId: number;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  companyId: number;
  /** Edit permission on task plans (403 on task resources without it). */
  editTaskPlans: boolean;
  /** Write permission on warehouse entries (sandbox choice: the read-only client lacks it). */
  warehouseWrite: boolean;
  /** Hub permission of the automation module (403 OAUTH2_ETL_ACCESS_DENIED without it). */
  hub: boolean;
}

export interface HawkClient {
  id: string;
  key: string;
  companyId: number;
}

export interface IssuedToken {
  clientId: string;
  companyId: number;
  expiresAt: number;
}

export interface Tax {
  id: number;
  companyId: number;
  name: string;
  rate: number;
}

export interface Currency {
  id: number;
  description: string;
  symbol: string;
}

export type ItemKind = "TOOL" | "SPARE_PART" | "OTHER";

export interface Item {
  id: number;
  companyId: number;
  code: string;
  description: string;
  unit: string;
  kind: ItemKind;
  /** Weighted average cost; null when the item has no configured cost. */
  averageCost: number | null;
  serial: boolean;
}

export interface Warehouse {
  id: number;
  companyId: number;
  code: string;
  description: string;
  integrated: boolean;
  /** Stock per associated item code (an item is associated when it has a key here). */
  stock: Record<string, number>;
  /** Serial numbers in stock per item code. */
  serials: Record<string, string[]>;
}

export interface HourlyRate {
  id: number;
  companyId: number;
  description: string;
  value: number | null;
}

export interface ServiceType {
  id: number;
  companyId: number;
  description: string;
  cost: number | null;
}

export interface TaskPlan {
  id: number;
  companyId: number;
  description: string;
}

export interface Task {
  id: number;
  companyId: number;
  planId: number;
  description: string;
}

export type ResourceType = "INVENTORY" | "HUMAN_RESOURCES" | "SERVICES";

export interface TaskResource {
  id: number;
  taskId: number;
  type_description: ResourceType;
  quantity: 1;
  unit_cost: number;
  id_item?: number;
  id_hourly_rate?: number;
  id_service_type?: number;
  note?: string;
}

export interface HumanResource {
  id: number;
  companyId: number;
  code: string;
  name: string;
  /** User account tied to the human resource; null = no account (cannot sign entries). */
  userAccount: string | null;
}

export interface ThirdParty {
  id: number;
  companyId: number;
  code: string;
  name: string;
  isSupplier: boolean;
  address: string;
  email: string;
  city: string;
  country: string;
  telephone1: string;
  telephone2: string | null;
}

export interface CostCenter {
  id: number;
  companyId: number;
  value: string;
  description: string;
}

export interface SourceLine {
  itemCode: string;
  qty: number;
  /** Received (purchase order) or returned (exit) so far. */
  done: number;
  unitCost: number;
  taxName: string;
  /** Exit lines of serial items: the serials that left (returnable ones are not in `returnedSerials`). */
  serials?: string[];
  returnedSerials?: string[];
}

/** A purchase order (source of purchase entries) or an exit (source of returns). */
export interface SourceMovement {
  id: number;
  companyId: number;
  kind: "PURCHASE_ORDER" | "EXIT";
  folio: string;
  document: string;
  warehouseCode: string;
  thirdPartyId: number | null;
  costCenterId: number | null;
  currencyId: number;
  lines: SourceLine[];
}

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

/** A created warehouse entry, stored exactly as returned (api-spec §2.2). */
export interface Movement {
  id: number;
  folio_target: string;
  date: string;
  description: string;
  document: string;
  id_third_party: string | null;
  third_parties_name: string;
  third_parties_code: string;
  id_cost_center: string | null;
  costs_center_value: string;
  costs_center_description: string;
  folio_source: string | null;
  date_create: string;
  id_priority: string | null;
  priorities_description: string | null;
  id_currency: number;
  currency_description: string;
  currency_symbol: string;
  movements_states_description: "IN";
  movement_details: MovementDetail[];
}

export interface StoredMovement {
  companyId: number;
  warehouseCode: string;
  movement: Movement;
}

/** A budget as returned (api-spec §2.3) plus the hidden dates the filters use. */
export interface StoredBudget {
  companyId: number;
  /** Epoch ms of the dates `type_date` can select; null when the date does not exist. */
  dates: {
    creation_date: number;
    initial_date: number | null;
    final_date: number | null;
    approval_date: number | null;
  };
  record: Record<string, unknown> & { id: number; folio: string; wo_folio: string; status: number };
}

export interface WarehouseGroup1 {
  id: number;
  id_company: number;
  description: string;
  enabled: boolean;
}

export interface Dag {
  companyId: number;
  dag_id: string;
  description: string;
  last_run: string;
}

export interface SandboxState {
  version: number;
  seed: number;
  companies: Company[];
  oauthClients: OAuthClient[];
  hawkClients: HawkClient[];
  tokens: Record<string, IssuedToken>;
  taxes: Tax[];
  currencies: Currency[];
  items: Item[];
  warehouses: Warehouse[];
  hourlyRates: HourlyRate[];
  serviceTypes: ServiceType[];
  taskPlans: TaskPlan[];
  tasks: Task[];
  taskResources: TaskResource[];
  humanResources: HumanResource[];
  thirdParties: ThirdParty[];
  costCenters: CostCenter[];
  sources: SourceMovement[];
  movements: StoredMovement[];
  budgets: StoredBudget[];
  warehouseGroups1: WarehouseGroup1[];
  dags: Dag[];
  counters: { taskResource: number; movement: number; movementFolio: number };
}
