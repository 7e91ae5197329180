/**
 * Deterministic demo data and credentials. Fixed records (ids and codes in `SEED`) never depend
 * on the seed number, so tests and docs can name them; bulk data (budgets, classifications,
 * DAG ids) comes from a seeded PRNG and is dated relative to the clock's "now".
 */
import { generateBudgets, generateDags, generateGroups } from "./seed-bulk.js";
import { type SandboxState, STATE_VERSION, type Warehouse } from "./state.js";

/** Demo credentials (also printed by `maintenance-mcp sandbox`). */
export const DEMO_CREDENTIALS = {
  oauth: {
    /** Company 1, every permission, advanced-APIs add-on. */
    demo: { clientId: "demo-client", clientSecret: "demo-secret", companyId: 1 },
    /** Company 1, reads only: 403 on task resources and warehouse entries, hub 403. */
    readonly: { clientId: "readonly-client", clientSecret: "readonly-secret", companyId: 1 },
    /** Company 2 (its own small data set), without the advanced-APIs add-on: 403 on task resources. */
    noaddon: { clientId: "noaddon-client", clientSecret: "noaddon-secret", companyId: 2 },
  },
  /** Hawk credentials of company 1 (main API only; the hub takes Bearer only). */
  hawk: { id: "demo-company", key: "demo-hawk-key", algorithm: "sha256", companyId: 1 },
  /** Hawk credentials of company 2. */
  hawkOther: { id: "other-company", key: "other-hawk-key", algorithm: "sha256", companyId: 2 },
} as const;

/** Ids and codes of the fixed seed records. */
export const SEED = {
  companies: { main: 1, other: 2 },
  taskPlans: { main: 1, second: 2, otherCompany: 3, missing: 999 },
  tasks: {
    /** Tasks 101..104 of plan 1 start without resources. */
    main: 101,
    main2: 102,
    main3: 103,
    main4: 104,
    /** Task 105 of plan 1 already has item 1001 (INVENTORY), hourly rate 11 and service type 31. */
    withResources: 105,
    /** Task 201 belongs to plan 2 (so plan 1 + task 201 is "task not in the plan"). */
    inSecondPlan: 201,
    otherCompany: 301,
    missing: 9999,
  },
  items: {
    tool: 1001,
    toolNoCost: 1002,
    sparePart: 1003,
    serialSparePart: 1004,
    /** A consumable: neither tool nor spare part. */
    notToolOrSpare: 1005,
    /** Spare part associated with WH-NORTH only. */
    northOnly: 1006,
    otherCompanyTool: 2001,
    missing: 99999,
  },
  itemCodes: {
    tool: "TL-1001",
    toolNoCost: "TL-1002",
    sparePart: "SP-1003",
    serialSparePart: "SP-1004",
    notToolOrSpare: "CS-1005",
    northOnly: "SP-1006",
    otherCompanyTool: "TL-2001",
  },
  hourlyRates: { technician: 11, noCost: 12, engineer: 13, otherCompany: 21 },
  serviceTypes: { calibration: 31, noCost: 32, inspection: 33, otherCompany: 41 },
  warehouses: { main: "WH-MAIN", north: "WH-NORTH", integrated: "WH-INTEG", otherCompany: "WH-C2" },
  users: { withAccount: "HR-001", withAccount2: "HR-002", withoutAccount: "HR-003", otherCompany: "HR-201" },
  suppliers: { main: "SUP-001", second: "SUP-002", otherCompany: "SUP-201" },
  nonSupplier: "CUS-001",
  costCenters: {
    maintenance: { value: "CC-100", description: "Maintenance" },
    operations: { value: "CC-200", description: "Operations" },
    projects: { value: "CC-300", description: "Projects" },
    otherCompany: { value: "CC-900", description: "Plant B" },
  },
  taxes: { default: "IVA 19%", exempt: "EXEMPT", otherCompanyDefault: "VAT 21%" },
  purchaseOrders: {
    /** WH-MAIN, SUP-001, CC-100, USD: TL-1001 x10 @40, SP-1003 x100 @11.5, CS-1005 x50 @2. */
    open: "5001",
    /** WH-MAIN, SUP-002, CC-200, EUR: SP-1003 x20 @13. */
    euro: "5002",
    /** WH-MAIN: SP-1003 x10 @12 (for concurrency tests). */
    concurrency: "5003",
    /** WH-MAIN: everything already received. */
    fullyReceived: "5004",
    /** WH-MAIN: serial item SP-1004 x3 @340. */
    serial: "5005",
    /** WH-NORTH: SP-1006 x4 @20. */
    north: "5006",
    otherCompany: "5101",
  },
  exits: {
    /** From WH-MAIN (folio 7001), CC-100, USD: TL-1001 x4 @45.5, SP-1003 x10 @12.75. */
    returnable: "EX-7001",
    /** From WH-MAIN (folio 7002): SP-1004 x2, serials SN-0001, SN-0002. */
    serial: "EX-7002",
    /** From WH-MAIN (folio 7003): already returned in full. */
    fullyReturned: "EX-7003",
    otherCompany: "EX-7101",
  },
  /** Serial numbers of SP-1004 in stock in WH-MAIN. */
  serialsInStock: ["SN-0003", "SN-0004", "SN-0005"],
  budgets: { mainCount: 260, otherCount: 12, firstId: 7001, firstFolio: 100 },
  warehouseGroups1: { mainCount: 160, otherCount: 6, firstMainId: 10001, firstOtherId: 20001 },
} as const;

/** mulberry32: a small, fast, deterministic PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
      {
        id: 1001,
        companyId: 1,
        code: "TL-1001",
        description: "Torque wrench 1/2in",
        unit: "Unit",
        kind: "TOOL",
        averageCost: 45.5,
        serial: false,
      },
      {
        id: 1002,
        companyId: 1,
        code: "TL-1002",
        description: "Feeler gauge set",
        unit: "Set",
        kind: "TOOL",
        averageCost: null,
        serial: false,
      },
      {
        id: 1003,
        companyId: 1,
        code: "SP-1003",
        description: "Ball bearing 6204-2RS",
        unit: "Unit",
        kind: "SPARE_PART",
        averageCost: 12.75,
        serial: false,
      },
      {
        id: 1004,
        companyId: 1,
        code: "SP-1004",
        description: "Servo motor 400W",
        unit: "Unit",
        kind: "SPARE_PART",
        averageCost: 350,
        serial: true,
      },
      {
        id: 1005,
        companyId: 1,
        code: "CS-1005",
        description: "Cleaning solvent 1L",
        unit: "Litre",
        kind: "OTHER",
        averageCost: 2.4,
        serial: false,
      },
      {
        id: 1006,
        companyId: 1,
        code: "SP-1006",
        description: "V-belt A42",
        unit: "Unit",
        kind: "SPARE_PART",
        averageCost: 18,
        serial: false,
      },
      {
        id: 2001,
        companyId: 2,
        code: "TL-2001",
        description: "Multimeter",
        unit: "Unit",
        kind: "TOOL",
        averageCost: 80,
        serial: false,
      },
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
      {
        id: 801,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5001",
        document: "PO-5001",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 501,
        costCenterId: 701,
        currencyId: 1,
        lines: [line("TL-1001", 10, 0, 40), line("SP-1003", 100, 0, 11.5), line("CS-1005", 50, 0, 2)],
      },
      {
        id: 802,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5002",
        document: "PO-5002",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 502,
        costCenterId: 702,
        currencyId: 2,
        lines: [line("SP-1003", 20, 0, 13)],
      },
      {
        id: 803,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5003",
        document: "PO-5003",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 501,
        costCenterId: 701,
        currencyId: 1,
        lines: [line("SP-1003", 10, 0, 12)],
      },
      {
        id: 804,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5004",
        document: "PO-5004",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 501,
        costCenterId: 701,
        currencyId: 1,
        lines: [line("TL-1001", 5, 5, 44)],
      },
      {
        id: 805,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5005",
        document: "PO-5005",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 502,
        costCenterId: 703,
        currencyId: 2,
        lines: [line("SP-1004", 3, 0, 340)],
      },
      {
        id: 806,
        companyId: 1,
        kind: "PURCHASE_ORDER",
        folio: "5006",
        document: "PO-5006",
        warehouseCode: "WH-NORTH",
        thirdPartyId: 501,
        costCenterId: 702,
        currencyId: 1,
        lines: [line("SP-1006", 4, 0, 20)],
      },
      {
        id: 807,
        companyId: 2,
        kind: "PURCHASE_ORDER",
        folio: "5101",
        document: "PO-5101",
        warehouseCode: "WH-C2",
        thirdPartyId: 601,
        costCenterId: 709,
        currencyId: 2,
        lines: [line("TL-2001", 2, 0, 78, "VAT 21%")],
      },
      {
        id: 851,
        companyId: 1,
        kind: "EXIT",
        folio: "7001",
        document: "EX-7001",
        warehouseCode: "WH-MAIN",
        thirdPartyId: 503,
        costCenterId: 701,
        currencyId: 1,
        lines: [line("TL-1001", 4, 0, 45.5), line("SP-1003", 10, 0, 12.75)],
      },
      {
        id: 852,
        companyId: 1,
        kind: "EXIT",
        folio: "7002",
        document: "EX-7002",
        warehouseCode: "WH-MAIN",
        thirdPartyId: null,
        costCenterId: 702,
        currencyId: 1,
        lines: [{ ...line("SP-1004", 2, 0, 350), serials: ["SN-0001", "SN-0002"], returnedSerials: [] }],
      },
      {
        id: 853,
        companyId: 1,
        kind: "EXIT",
        folio: "7003",
        document: "EX-7003",
        warehouseCode: "WH-MAIN",
        thirdPartyId: null,
        costCenterId: 701,
        currencyId: 1,
        lines: [line("CS-1005", 5, 5, 2.4)],
      },
      {
        id: 854,
        companyId: 2,
        kind: "EXIT",
        folio: "7101",
        document: "EX-7101",
        warehouseCode: "WH-C2",
        thirdPartyId: null,
        costCenterId: 709,
        currencyId: 2,
        lines: [line("TL-2001", 1, 0, 80, "VAT 21%")],
      },
    ],
    movements: [],
    budgets: generateBudgets(rnd, now),
    warehouseGroups1: generateGroups(rnd),
    dags: generateDags(rnd, now),
    counters: { taskResource: 3, movement: 900, movementFolio: 10000 },
  };
}
