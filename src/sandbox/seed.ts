/**
 * Demo credentials and the ids/codes of the fixed seed records (`SEED`), which never depend on the
 * seed number so tests and docs can name them. The data itself is built by `seed-state.ts`.
 */
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
