/**
 * Bulk seed data drawn from a seeded PRNG: work-order budgets (every field of api-spec §2.3),
 * warehouse classifications 1 and DAGs. Dates are relative to "now" so that the default
 * 30-day budget period always has results.
 */
import type { Dag, StoredBudget, WarehouseGroup1 } from "./state.js";

type Rnd = () => number;

const DAY = 86_400_000;

const pick = <T>(rnd: Rnd, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
const int = (rnd: Rnd, min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
const round2 = (n: number) => Math.round(n * 100) / 100;

/** ISO 8601 with microseconds and `+00:00`, as upstream prints timestamps. */
export function isoMicro(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "000+00:00");
}

/** `YYYY-MM-DD` in UTC. */
export function ymd(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD HH:MM:SS` in UTC (work-order final dates). */
function ymdhms(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * `decimals` as the platform prints the currency (pesos chilenos have none). Three currencies
 * share the symbol "$"; deployments name currencies in English or Spanish, and may name one no
 * ISO 4217 code stands for (an internal credit), so the seed has all of these.
 */
const CURRENCIES = [
  { id: 1, description: "US Dollar", symbol: "$", exchange: 1, decimals: 2 },
  { id: 2, description: "Euro", symbol: "€", exchange: 1, decimals: 2 },
  { id: 3, description: "Chilean Peso", symbol: "$", exchange: 950, decimals: 0 },
  { id: 4, description: "Mexican Peso", symbol: "$", exchange: 17, decimals: 2 },
] as const;
const SPANISH_NAMES: Record<number, string> = { 3: "Peso chileno", 4: "Peso mexicano" };
const INTERNAL_CREDIT = { id: 5, description: "Crédito interno", symbol: "CI", exchange: 1, decimals: 2 };

const ASSETS = [
  { name: "Conveyor CV-01", group: "Conveyors", g1: "Line 1", g2: "Mechanical" },
  { name: "Compressor AC-200", group: "Compressors", g1: "Utilities", g2: null },
  { name: "Pump P-17", group: "Pumps", g1: "Line 2", g2: "Hydraulic" },
  { name: "Forklift FL-3", group: "Vehicles", g1: null, g2: null },
  { name: "Boiler B-1", group: "Boilers", g1: "Utilities", g2: "Thermal" },
  { name: "Overhead crane OC-5", group: "Cranes", g1: "Line 1", g2: null },
] as const;

const THIRD_PARTIES = [
  {
    id: 501,
    name: "Industrial Supply Co.",
    code: "SUP-001",
    address: "12 Harbor Rd",
    email: "sales@indsupply.example",
    city: "Santiago",
    country: "Chile",
    t1: "+56 2 2345 6789",
    t2: null,
  },
  {
    id: 502,
    name: "EuroParts GmbH",
    code: "SUP-002",
    address: "Hafenstrasse 4",
    email: "orders@europarts.example",
    city: "Hamburg",
    country: "Germany",
    t1: "+49 40 123456",
    t2: "+49 40 123457",
  },
  {
    id: 503,
    name: "Andes Mining (customer)",
    code: "CUS-001",
    address: "Av. Central 100",
    email: "ops@andes.example",
    city: "Antofagasta",
    country: "Chile",
    t1: "+56 55 200 3000",
    t2: null,
  },
] as const;

const COST_CENTERS = [
  { id: 701, description: "Maintenance" },
  { id: 702, description: "Operations" },
  { id: 703, description: "Projects" },
] as const;

const USERS = ["jperez", "mlopez", "csilva", "arojas"] as const;
const CONDITIONS = [
  { id: 1, description: "30 days net" },
  { id: 2, description: "Cash on delivery" },
  { id: 3, description: "50% advance" },
] as const;
const LINES = [
  { type: 1, desc: "Ball bearing 6204-2RS", hrl: null, stl: null, cost: 12.75 },
  { type: 1, desc: "V-belt A42", hrl: null, stl: null, cost: 18 },
  { type: 2, desc: "Maintenance technician", hrl: "Maintenance technician", stl: null, cost: 35 },
  { type: 3, desc: "External calibration", hrl: null, stl: "External calibration", cost: 120 },
] as const;

const roundTo = (n: number, decimals: number) => Math.round(n * 10 ** decimals) / 10 ** decimals;

/** Two lines of 0.10 and 0.20: a float sum gives 0.30000000000000004. */
function centLines(companyId: number) {
  return [0.1, 0.2].map((cost) => ({
    id_company: companyId,
    type_resource: 1,
    qty: 1,
    unit_cost_company: cost,
    total_cost_company: cost,
    unit_cost: cost,
    total_cost: cost,
    id_taxes: 1,
    hrl_description: null,
    items_log_description: "Washer M6",
    stl_description: null,
  }));
}

function budget(rnd: Rnd, now: number, companyId: number, i: number, woIndex: number): StoredBudget {
  // About 45% of the budgets fall in the last 30 days, the rest spread over ~90 days.
  const ageDays = i % 20 < 9 ? rnd() * 29 : rnd() * 90;
  const woCreated = Math.floor(now - ageDays * DAY - rnd() * 3_600_000);
  // Past events never lie in the future of "now"; a final date may (planned end of the work).
  const budgetCreated = Math.min(woCreated + int(rnd, 1, 48) * 3_600_000, now - 60_000);
  const initial = woCreated + int(rnd, 0, 72) * 3_600_000;
  const woState = pick(rnd, [1, 1, 2, 2, 3, 4] as const);
  const final = woState === 1 ? null : initial + int(rnd, 4, 240) * 3_600_000;
  const status = pick(rnd, [1, 1, 2, 2, 2, 3] as const);
  const approval = status === 1 ? null : Math.min(budgetCreated + int(rnd, 1, 96) * 3_600_000, now - 30_000);
  const drawn =
    i % 9 === 0 ? CURRENCIES[2] : i % 13 === 0 ? CURRENCIES[3] : pick(rnd, CURRENCIES.slice(0, 2));
  // Replaced after the draw, so the PRNG sequence (and every other record) stays as it was.
  const currency = i % 29 === 7 ? INTERNAL_CREDIT : drawn;
  const currencyName =
    i % 2 === 1 ? (SPANISH_NAMES[currency.id] ?? currency.description) : currency.description;
  const asset = pick(rnd, ASSETS);
  const tp = pick(rnd, THIRD_PARTIES);
  const cc = pick(rnd, COST_CENTERS);
  const cond = pick(rnd, CONDITIONS);
  const nLines = int(rnd, 1, 4);
  const listItems = Array.from({ length: nLines }, () => {
    const l = pick(rnd, LINES);
    const qty = l.type === 2 ? int(rnd, 1, 16) / 2 : int(rnd, 1, 10);
    const unit = roundTo(l.cost * currency.exchange, currency.decimals);
    return {
      id_company: companyId,
      type_resource: l.type,
      qty,
      unit_cost_company: l.cost,
      total_cost_company: round2(l.cost * qty),
      unit_cost: unit,
      total_cost: roundTo(unit * qty, currency.decimals),
      id_taxes: 1,
      hrl_description: l.hrl,
      items_log_description: l.desc,
      stl_description: l.stl,
    };
  });
  const id = 7001 + i + (companyId === 2 ? 1000 : 0);
  const discount = round2(pick(rnd, [0, 0, 0, 5, 10, 12.5]));
  // Real deployments send some numeric fields as text (upstream-notes "Envelope").
  const asText = i % 7 === 3;
  const record = {
    id,
    id_company: companyId,
    id_work_order: 3000 + woIndex,
    id_third_parties_log: 9000 + i,
    id_cost_center: cc.id,
    folio: String(100 + i),
    id_currency: currency.id,
    exchange_value: asText ? String(currency.exchange) : currency.exchange,
    reference: `REF-${String(100 + i).padStart(5, "0")}`,
    id_priority: int(rnd, 1, 5),
    note: i % 4 === 0 ? "" : `Budget for ${asset.name} work order`,
    id_item_log: 6000 + ASSETS.indexOf(asset),
    date_create: isoMicro(budgetCreated),
    id_condition: cond.id,
    status,
    approved_by: status === 2 ? pick(rnd, USERS) : null,
    note_status: status === 1 ? null : status === 2 ? "Approved" : "Rejected: over budget",
    discount: asText ? discount.toFixed(2) : discount,
    created_by: pick(rnd, USERS),
    third_parties_name: tp.name,
    third_parties_code: tp.code,
    third_parties_address: tp.address,
    third_parties_email: tp.email,
    third_parties_city: tp.city,
    third_parties_country: tp.country,
    third_parties_telephone_1: tp.t1,
    third_parties_telephone_2: tp.t2,
    costs_center_description: cc.description,
    items_description: asset.name,
    items_groups_description: asset.group,
    items_groups_1_description: asset.g1,
    items_groups_2_description: asset.g2,
    conditions_description: cond.description,
    currency_description: currencyName,
    symbol: currency.symbol,
    wo_folio: String(4000 + woIndex),
    id_status_work_order: woState,
    final_date: final === null ? null : ymdhms(final),
    user_assigned: pick(rnd, USERS),
    parent_description: i % 3 === 0 ? "" : "Plant 1",
    // Some budgets have no lines yet; folio 104 has cent lines whose float sum drifts (0.1 + 0.2).
    list_items: i % 31 === 11 ? [] : i === 4 && companyId === 1 ? centLines(companyId) : listItems,
    approval_date: approval === null ? null : ymd(approval),
  };
  return {
    companyId,
    dates: { creation_date: woCreated, initial_date: initial, final_date: final, approval_date: approval },
    record,
  };
}

/** Budgets of both companies; every fifth work order has two budgets (shared wo_folio). */
export function generateBudgets(rnd: Rnd, now: number): StoredBudget[] {
  const out: StoredBudget[] = [];
  for (const [companyId, count, woBase] of [
    [1, 260, 0],
    [2, 12, 500],
  ] as const) {
    let wo = woBase;
    for (let i = 0; i < count; i++) {
      if (i % 5 !== 1) wo += 1;
      out.push(budget(rnd, now, companyId, i, wo));
    }
  }
  return out;
}

const GROUP_WORDS = [
  "Bearings",
  "Belts",
  "Filters",
  "Fasteners",
  "Lubricants",
  "Electrical",
  "Hydraulics",
  "Safety",
];

/** 160 classifications for company 1 (every seventh disabled), 6 for company 2. */
export function generateGroups(rnd: Rnd): WarehouseGroup1[] {
  const out: WarehouseGroup1[] = [];
  for (let i = 0; i < 160; i++) {
    const word = pick(rnd, GROUP_WORDS);
    out.push({
      id: 10001 + i,
      id_company: 1,
      description: `${word} ${String(i + 1).padStart(3, "0")}`,
      enabled: i % 7 !== 6,
    });
  }
  for (let i = 0; i < 6; i++) {
    out.push({ id: 20001 + i, id_company: 2, description: `Beta group ${i + 1}`, enabled: i !== 5 });
  }
  return out;
}

function uuid(rnd: Rnd): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16));
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(rnd() * 4)]!;
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Four DAGs for company 1, one for company 2. */
export function generateDags(rnd: Rnd, now: number): Dag[] {
  const defs: [number, string][] = [
    [1, "Nightly ERP purchase-order sync"],
    [1, "Work-order costs export to data warehouse"],
    [1, "IoT sensor readings import"],
    [1, "Weekly spare-parts stock reconciliation"],
    [2, "Beta plant asset import"],
  ];
  return defs.map(([companyId, description]) => ({
    companyId,
    dag_id: uuid(rnd),
    description,
    last_run: ymd(now - int(rnd, 0, 9) * DAY),
  }));
}
