/**
 * Builds the initial state: fixed records (named in `SEED`, see seed.ts) plus bulk data from a
 * seeded PRNG (seed-bulk.ts), dated relative to the clock's "now".
 */
import { DEMO_CREDENTIALS, prng, SEED } from "./seed.js";
import { generateBudgets, generateDags, generateGroups } from "./seed-bulk.js";
import {
  type Item,
  type ItemKind,
  type SandboxState,
  type SourceLine,
  type SourceMovement,
  STATE_VERSION,
  type Warehouse,
} from "./state.js";

const C = DEMO_CREDENTIALS;
const S = SEED;

function warehouse(
  id: number,
  companyId: number,
  code: string,
  description: string,
  integrated: boolean,
  stock: Record<string, number>,
  serials: Record<string, string[]> = {},
): Warehouse {
  return { id, companyId, code, description, integrated, stock, serials };
}

function item(
  id: number,
  companyId: number,
  code: string,
  description: string,
  unit: string,
  kind: ItemKind,
  averageCost: number | null,
  serial = false,
): Item {
  return { id, companyId, code, description, unit, kind, averageCost, serial };
}

type Lines = SourceLine[];
const po = (
  id: number,
  companyId: number,
  folio: string,
  wh: string,
  tp: number,
  cc: number,
  cur: number,
  lines: Lines,
) => source(id, companyId, "PURCHASE_ORDER", folio, `PO-${folio}`, wh, tp, cc, cur, lines);
const exit = (...a: [number, number, string, string, string, number | null, number, number, Lines]) =>
  source(a[0], a[1], "EXIT", a[2], a[3], a[4], a[5], a[6], a[7], a[8]);

function source(
  id: number,
  companyId: number,
  kind: SourceMovement["kind"],
  folio: string,
  document: string,
  warehouseCode: string,
  thirdPartyId: number | null,
  costCenterId: number,
  currencyId: number,
  lines: Lines,
): SourceMovement {
  return {
    id,
    companyId,
    kind,
    folio,
    document,
    warehouseCode,
    thirdPartyId,
    costCenterId,
    currencyId,
    lines,
  };
}

const line = (itemCode: string, qty: number, done: number, unitCost: number, taxName = "IVA 19%") => ({
  itemCode,
  qty,
  done,
  unitCost,
  taxName,
});

/** Build the initial state for `seed`, dated relative to `now` (epoch ms). */
export function createSeedState(seed: number, now: number): SandboxState {
  const rnd = prng(seed);
  return {
    version: STATE_VERSION,
    seed,
    companies: [
      {
        id: 1,
        name: "Acme Maintenance",
        advancedApis: true,
        defaultTaxName: "IVA 19%",
        defaultCurrencyId: 1,
      },
      { id: 2, name: "Beta Plant", advancedApis: false, defaultTaxName: "VAT 21%", defaultCurrencyId: 2 },
    ],
    oauthClients: [
      { ...C.oauth.demo, editTaskPlans: true, warehouseWrite: true, hub: true },
      { ...C.oauth.readonly, editTaskPlans: false, warehouseWrite: false, hub: false },
      { ...C.oauth.noaddon, editTaskPlans: true, warehouseWrite: true, hub: true },
    ],
    hawkClients: [
      { id: C.hawk.id, key: C.hawk.key, companyId: 1 },
      { id: C.hawkOther.id, key: C.hawkOther.key, companyId: 2 },
    ],
    tokens: {},
    taxes: [
      { id: 1, companyId: 1, name: "IVA 19%", rate: 19 },
      { id: 2, companyId: 1, name: "EXEMPT", rate: 0 },
      { id: 3, companyId: 2, name: "VAT 21%", rate: 21 },
    ],
    currencies: [
      { id: 1, description: "US Dollar", symbol: "$" },
      { id: 2, description: "Euro", symbol: "€" },
      { id: 3, description: "Chilean Peso", symbol: "$" },
      { id: 4, description: "Mexican Peso", symbol: "$" },
    ],
    items: [
      item(1001, 1, "TL-1001", "Torque wrench 1/2in", "Unit", "TOOL", 45.5),
      item(1002, 1, "TL-1002", "Feeler gauge set", "Set", "TOOL", null),
      item(1003, 1, "SP-1003", "Ball bearing 6204-2RS", "Unit", "SPARE_PART", 12.75),
      item(1004, 1, "SP-1004", "Servo motor 400W", "Unit", "SPARE_PART", 350, true),
      item(1005, 1, "CS-1005", "Cleaning solvent 1L", "Litre", "OTHER", 2.4),
      item(1006, 1, "SP-1006", "V-belt A42", "Unit", "SPARE_PART", 18),
      item(2001, 2, "TL-2001", "Multimeter", "Unit", "TOOL", 80),
    ],
    warehouses: [
      warehouse(
        1,
        1,
        S.warehouses.main,
        "Main warehouse",
        false,
        { "TL-1001": 12, "TL-1002": 3, "SP-1003": 80, "SP-1004": 3, "CS-1005": 200 },
        { "SP-1004": [...S.serialsInStock] },
      ),
      warehouse(2, 1, S.warehouses.north, "North plant warehouse", false, {
        "TL-1001": 2,
        "SP-1003": 15,
        "SP-1006": 6,
      }),
      warehouse(3, 1, S.warehouses.integrated, "ERP-integrated warehouse", true, { "SP-1003": 40 }),
      warehouse(4, 2, S.warehouses.otherCompany, "Beta warehouse", false, { "TL-2001": 5 }),
    ],
    hourlyRates: [
      { id: 11, companyId: 1, description: "Maintenance technician", value: 35 },
      { id: 12, companyId: 1, description: "Contractor (no rate)", value: null },
      { id: 13, companyId: 1, description: "Reliability engineer", value: 52.5 },
      { id: 21, companyId: 2, description: "Electrician", value: 30 },
    ],
    serviceTypes: [
      { id: 31, companyId: 1, description: "External calibration", cost: 120 },
      { id: 32, companyId: 1, description: "Warranty service (no cost)", cost: null },
      { id: 33, companyId: 1, description: "Thermographic inspection", cost: 80 },
      { id: 41, companyId: 2, description: "Crane inspection", cost: 200 },
    ],
    taskPlans: [
      { id: 1, companyId: 1, description: "Monthly conveyor maintenance" },
      { id: 2, companyId: 1, description: "Quarterly compressor overhaul" },
      { id: 3, companyId: 2, description: "Crane safety plan" },
    ],
    tasks: [
      { id: 101, companyId: 1, planId: 1, description: "Inspect drive belt" },
      { id: 102, companyId: 1, planId: 1, description: "Lubricate bearings" },
      { id: 103, companyId: 1, planId: 1, description: "Check motor alignment" },
      { id: 104, companyId: 1, planId: 1, description: "Replace worn rollers" },
      { id: 105, companyId: 1, planId: 1, description: "Calibrate speed sensor" },
      { id: 201, companyId: 1, planId: 2, description: "Replace compressor filters" },
      { id: 301, companyId: 2, planId: 3, description: "Inspect hoist cable" },
    ],
    taskResources: [
      { id: 1, taskId: 105, type_description: "INVENTORY", quantity: 1, unit_cost: 45.5, id_item: 1001 },
      {
        id: 2,
        taskId: 105,
        type_description: "HUMAN_RESOURCES",
        quantity: 1,
        unit_cost: 35,
        id_hourly_rate: 11,
      },
      { id: 3, taskId: 105, type_description: "SERVICES", quantity: 1, unit_cost: 120, id_service_type: 31 },
    ],
    humanResources: [
      { id: 401, companyId: 1, code: "HR-001", name: "Juan Perez", userAccount: "jperez" },
      { id: 402, companyId: 1, code: "HR-002", name: "Maria Lopez", userAccount: "mlopez" },
      { id: 403, companyId: 1, code: "HR-003", name: "Pedro Soto (no account)", userAccount: null },
      { id: 404, companyId: 2, code: "HR-201", name: "Anna Berg", userAccount: "aberg" },
    ],
    thirdParties: [
      {
        id: 501,
        companyId: 1,
        code: "SUP-001",
        name: "Industrial Supply Co.",
        isSupplier: true,
        address: "12 Harbor Rd",
        email: "sales@indsupply.example",
        city: "Santiago",
        country: "Chile",
        telephone1: "+56 2 2345 6789",
        telephone2: null,
      },
      {
        id: 502,
        companyId: 1,
        code: "SUP-002",
        name: "EuroParts GmbH",
        isSupplier: true,
        address: "Hafenstrasse 4",
        email: "orders@europarts.example",
        city: "Hamburg",
        country: "Germany",
        telephone1: "+49 40 123456",
        telephone2: "+49 40 123457",
      },
      {
        id: 503,
        companyId: 1,
        code: "CUS-001",
        name: "Andes Mining (customer)",
        isSupplier: false,
        address: "Av. Central 100",
        email: "ops@andes.example",
        city: "Antofagasta",
        country: "Chile",
        telephone1: "+56 55 200 3000",
        telephone2: null,
      },
      {
        id: 601,
        companyId: 2,
        code: "SUP-201",
        name: "Nordic Tools AB",
        isSupplier: true,
        address: "Storgatan 1",
        email: "info@nordic.example",
        city: "Malmo",
        country: "Sweden",
        telephone1: "+46 40 10 20 30",
        telephone2: null,
      },
    ],
    costCenters: [
      { id: 701, companyId: 1, value: "CC-100", description: "Maintenance" },
      { id: 702, companyId: 1, value: "CC-200", description: "Operations" },
      { id: 703, companyId: 1, value: "CC-300", description: "Projects" },
      { id: 709, companyId: 2, value: "CC-900", description: "Plant B" },
    ],
    sources: [
      // Purchase orders: id, company, folio_target, document, warehouse, supplier, cost center, currency, lines.
      po(801, 1, "5001", "WH-MAIN", 501, 701, 1, [
        line("TL-1001", 10, 0, 40),
        line("SP-1003", 100, 0, 11.5),
        line("CS-1005", 50, 0, 2),
      ]),
      po(802, 1, "5002", "WH-MAIN", 502, 702, 2, [line("SP-1003", 20, 0, 13)]),
      po(803, 1, "5003", "WH-MAIN", 501, 701, 1, [line("SP-1003", 10, 0, 12)]),
      po(804, 1, "5004", "WH-MAIN", 501, 701, 1, [line("TL-1001", 5, 5, 44)]),
      po(805, 1, "5005", "WH-MAIN", 502, 703, 2, [line("SP-1004", 3, 0, 340)]),
      po(806, 1, "5006", "WH-NORTH", 501, 702, 1, [line("SP-1006", 4, 0, 20)]),
      po(807, 2, "5101", "WH-C2", 601, 709, 2, [line("TL-2001", 2, 0, 78, "VAT 21%")]),
      // Exits: id, company, folio_target, document, warehouse, third party, cost center, currency, lines.
      exit(851, 1, "7001", "EX-7001", "WH-MAIN", 503, 701, 1, [
        line("TL-1001", 4, 0, 45.5),
        line("SP-1003", 10, 0, 12.75),
      ]),
      exit(852, 1, "7002", "EX-7002", "WH-MAIN", null, 702, 1, [
        { ...line("SP-1004", 2, 0, 350), serials: ["SN-0001", "SN-0002"], returnedSerials: [] },
      ]),
      exit(853, 1, "7003", "EX-7003", "WH-MAIN", null, 701, 1, [line("CS-1005", 5, 5, 2.4)]),
      exit(854, 2, "7101", "EX-7101", "WH-C2", null, 709, 2, [line("TL-2001", 1, 0, 80, "VAT 21%")]),
    ],
    movements: [],
    budgets: generateBudgets(rnd, now),
    warehouseGroups1: generateGroups(rnd),
    dags: generateDags(rnd, now),
    counters: { taskResource: 3, movement: 900, movementFolio: 10000 },
  };
}
