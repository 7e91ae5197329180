/**
 * Deep validation of a loaded sandbox state: every record of every collection is checked against
 * the shape the routes rely on, so a hand-edited or damaged file is refused at start with the JSON
 * path of the bad value (`$.warehouses[0]`) instead of answering 500 to every request later.
 * Each schema is typed against its interface in state.ts, so the two cannot drift apart silently.
 * Unknown extra keys are allowed (and kept): the check is about what the code reads.
 */
import { z } from "zod";
import type * as T from "./state.js";

const num = z.number();
const int = z.int();
const str = z.string();
const nullableStr = z.string().nullable();

const Company: z.ZodType<T.Company> = z.object({
  id: int,
  name: str,
  advancedApis: z.boolean(),
  defaultTaxName: str,
  defaultCurrencyId: int,
});
const OAuthClient: z.ZodType<T.OAuthClient> = z.object({
  clientId: str,
  clientSecret: str,
  companyId: int,
  editTaskPlans: z.boolean(),
  warehouseWrite: z.boolean(),
  hub: z.boolean(),
});
const HawkClient: z.ZodType<T.HawkClient> = z.object({ id: str, key: str, companyId: int });
const IssuedToken: z.ZodType<T.IssuedToken> = z.object({ clientId: str, companyId: int, expiresAt: num });
const Tax: z.ZodType<T.Tax> = z.object({ id: int, companyId: int, name: str, rate: num });
const Currency: z.ZodType<T.Currency> = z.object({ id: int, description: str, symbol: str });
const Item: z.ZodType<T.Item> = z.object({
  id: int,
  companyId: int,
  code: str,
  description: str,
  unit: str,
  kind: z.enum(["TOOL", "SPARE_PART", "OTHER"]),
  averageCost: num.nullable(),
  serial: z.boolean(),
});
const Warehouse: z.ZodType<T.Warehouse> = z.object({
  id: int,
  companyId: int,
  code: str,
  description: str,
  integrated: z.boolean(),
  stock: z.record(str, num),
  serials: z.record(str, z.array(str)),
});
const HourlyRate: z.ZodType<T.HourlyRate> = z.object({
  id: int,
  companyId: int,
  description: str,
  value: num.nullable(),
});
const ServiceType: z.ZodType<T.ServiceType> = z.object({
  id: int,
  companyId: int,
  description: str,
  cost: num.nullable(),
});
const TaskPlan: z.ZodType<T.TaskPlan> = z.object({ id: int, companyId: int, description: str });
const Task: z.ZodType<T.Task> = z.object({ id: int, companyId: int, planId: int, description: str });
const TaskResource: z.ZodType<T.TaskResource> = z.object({
  id: int,
  taskId: int,
  type_description: z.enum(["INVENTORY", "HUMAN_RESOURCES", "SERVICES"]),
  quantity: z.literal(1),
  unit_cost: num,
  id_item: int.optional(),
  id_hourly_rate: int.optional(),
  id_service_type: int.optional(),
  note: str.optional(),
});
const HumanResource: z.ZodType<T.HumanResource> = z.object({
  id: int,
  companyId: int,
  code: str,
  name: str,
  userAccount: nullableStr,
});
const ThirdParty: z.ZodType<T.ThirdParty> = z.object({
  id: int,
  companyId: int,
  code: str,
  name: str,
  isSupplier: z.boolean(),
  address: str,
  email: str,
  city: str,
  country: str,
  telephone1: str,
  telephone2: nullableStr,
});
const CostCenter: z.ZodType<T.CostCenter> = z.object({
  id: int,
  companyId: int,
  value: str,
  description: str,
});
const SourceLine: z.ZodType<T.SourceLine> = z.object({
  itemCode: str,
  qty: num,
  done: num,
  unitCost: num,
  taxName: str,
  serials: z.array(str).optional(),
  returnedSerials: z.array(str).optional(),
});
const SourceMovement: z.ZodType<T.SourceMovement> = z.object({
  id: int,
  companyId: int,
  kind: z.enum(["PURCHASE_ORDER", "EXIT"]),
  folio: str,
  document: str,
  warehouseCode: str,
  thirdPartyId: int.nullable(),
  costCenterId: int.nullable(),
  currencyId: int,
  lines: z.array(SourceLine),
});
const MovementDetail: z.ZodType<T.MovementDetail> = z.object({
  id_item: int,
  items_description: str,
  code: str,
  units_description: str,
  qty: num,
  unit_cost: num,
  total_cost: num,
  tax_name: str,
  tax_rate: num,
});
const Movement: z.ZodType<T.Movement> = z.object({
  id: int,
  folio_target: str,
  date: str,
  description: str,
  document: str,
  id_third_party: nullableStr,
  third_parties_name: str,
  third_parties_code: str,
  id_cost_center: nullableStr,
  costs_center_value: str,
  costs_center_description: str,
  folio_source: nullableStr,
  date_create: str,
  id_priority: nullableStr,
  priorities_description: nullableStr,
  id_currency: int,
  currency_description: str,
  currency_symbol: str,
  movements_states_description: z.literal("IN"),
  movement_details: z.array(MovementDetail),
});
const StoredMovement: z.ZodType<T.StoredMovement> = z.object({
  companyId: int,
  warehouseCode: str,
  movement: Movement,
});
const StoredBudget: z.ZodType<T.StoredBudget> = z.object({
  companyId: int,
  dates: z.object({
    creation_date: num,
    initial_date: num.nullable(),
    final_date: num.nullable(),
    approval_date: num.nullable(),
  }),
  record: z.looseObject({ id: int, folio: str, wo_folio: str, status: int }),
});
const WarehouseGroup1: z.ZodType<T.WarehouseGroup1> = z.object({
  id: int,
  id_company: int,
  description: str,
  enabled: z.boolean(),
});
const Dag: z.ZodType<T.Dag> = z.object({ companyId: int, dag_id: str, description: str, last_run: str });

const SandboxStateSchema: z.ZodType<T.SandboxState> = z.object({
  version: int,
  seed: num,
  companies: z.array(Company),
  oauthClients: z.array(OAuthClient),
  hawkClients: z.array(HawkClient),
  tokens: z.record(str, IssuedToken),
  taxes: z.array(Tax),
  currencies: z.array(Currency),
  items: z.array(Item),
  warehouses: z.array(Warehouse),
  hourlyRates: z.array(HourlyRate),
  serviceTypes: z.array(ServiceType),
  taskPlans: z.array(TaskPlan),
  tasks: z.array(Task),
  taskResources: z.array(TaskResource),
  humanResources: z.array(HumanResource),
  thirdParties: z.array(ThirdParty),
  costCenters: z.array(CostCenter),
  sources: z.array(SourceMovement),
  movements: z.array(StoredMovement),
  budgets: z.array(StoredBudget),
  warehouseGroups1: z.array(WarehouseGroup1),
  dags: z.array(Dag),
  counters: z.object({ taskResource: int, movement: int, movementFolio: int }),
});

/** `["warehouses", 0, "stock"]` → `$.warehouses[0].stock`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, k) => {
    if (typeof k === "number") return `${out}[${k}]`;
    const key = String(k);
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `${out}.${key}` : `${out}[${JSON.stringify(key)}]`;
  }, "$");
}

const MAX_REPORTED = 5;

/**
 * Every problem of a parsed state file (at most a few, each with its JSON path); [] when usable.
 * Beyond shapes it checks the counters: a counter below an existing id would hand that id out twice.
 */
export function stateProblems(value: unknown, version: number): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return ["$: not a JSON object"];
  const v = value as { version?: unknown };
  if (v.version !== version) return [`$.version: unsupported version ${JSON.stringify(v.version)}`];
  const parsed = SandboxStateSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const shown = issues
      .slice(0, MAX_REPORTED)
      .map(
        (i) =>
          `${jsonPath(i.path)}: ${i.message.replace(/^Invalid input: (expected \w+), received undefined$/, "missing ($1)")}`,
      );
    if (issues.length > MAX_REPORTED) shown.push(`and ${issues.length - MAX_REPORTED} more`);
    return shown;
  }
  const s = value as T.SandboxState;
  const problems: string[] = [];
  const counter = (name: keyof T.SandboxState["counters"], ids: Iterable<number>) => {
    let max = 0;
    for (const id of ids) if (id > max) max = id;
    if (s.counters[name] < max) {
      problems.push(`$.counters.${name}: ${s.counters[name]} is below the highest id in use (${max})`);
    }
  };
  counter(
    "taskResource",
    s.taskResources.map((r) => r.id),
  );
  counter(
    "movement",
    s.movements.map((m) => m.movement.id),
  );
  counter("movementFolio", s.movements.map((m) => Number(m.movement.folio_target)).filter(Number.isFinite));
  return problems;
}
