/**
 * A purpose-built budget upstream for review tests (interface.md §6c), on a real loopback
 * node:http server (port 0): GET /api/wo_budget serves `budgets` by start and limit, with the
 * hostile behaviours the red team met switchable per test (start ignored, overlapping pages,
 * short pages, a total that changes or is absurd, a rate limit answering 406 with the reset,
 * pages held open until the client gives up). It records every page it answered.
 */
import type http from "node:http";
import { createClients } from "../../src/client/index.js";
import type { Budget } from "../../src/client/types.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { type FakeUpstream, sendJson, startFake } from "../client/fake-upstream.js";
import { makeConfig } from "../client/helpers.js";

export interface Hostility {
  ignoreStart?: boolean;
  /** Each page starts this many records early (pages overlap). */
  overlap?: number;
  /** Pages at these offsets return only this many records. */
  short?: { at: number; length: number };
  /** The `total` reported from the nth page on (counting from 0). */
  totalFrom?: { page: number; total: number };
  /** `total` as sent, whatever the records. */
  total?: unknown;
  /** After `pages` pages, every request gets 406 for `resetSeconds` (said in Retry-After), then pages again. */
  rateLimit?: { pages: number; resetSeconds: number };
  /** Pages at or beyond this index (in order of arrival) are held open until the client aborts. */
  holdFrom?: number;
}

export interface BudgetUpstream {
  fake: FakeUpstream;
  budgets: Budget[];
  hostility: Hostility;
  /** Offsets answered with data, in order: the review's own window (this fake serves every window alike). */
  served: number[];
  /** Requests of another window: a date-basis check (type_date approval_date) or a count of one record (interface.md §6g). */
  checks: number;
  /** Most requests open at once. */
  peakOpen: number;
  /** Resolves when the next held request arrives. */
  held(): Promise<void>;
  /** 406 answers sent. */
  refused: number;
  /** End a rate-limit window now (the test's "minute" passed). */
  resetLimit(): void;
  clients(): ReturnType<typeof createClients>;
  close(): Promise<void>;
}

const CURRENCIES = ["US Dollar", "Euro", "Peso chileno"];

/** A budget with every field of api-spec §2.3; `extra` adds fields (unknown to the schema). */
export function makeBudget(i: number, extra: Record<string, unknown> = {}): Budget {
  return {
    id: i + 1,
    id_company: 1,
    id_work_order: 1000 + i,
    id_third_parties_log: i % 7,
    id_cost_center: i % 3,
    folio: `B-${i + 1}`,
    id_currency: (i % 3) + 1,
    exchange_value: 1,
    reference: null,
    id_priority: 1,
    note: null,
    id_item_log: null,
    date_create: `2026-11-${String((i % 20) + 1).padStart(2, "0")} 10:00:00`,
    id_condition: null,
    status: (i % 3) + 1,
    approved_by: null,
    note_status: null,
    discount: null,
    created_by: "ana",
    third_parties_name: `Supplier ${i % 7}`,
    third_parties_code: `S${i % 7}`,
    third_parties_address: null,
    third_parties_email: null,
    third_parties_city: null,
    third_parties_country: null,
    third_parties_telephone_1: null,
    third_parties_telephone_2: null,
    costs_center_description: `Center ${i % 3}`,
    items_description: null,
    items_groups_description: null,
    items_groups_1_description: null,
    items_groups_2_description: null,
    conditions_description: null,
    currency_description: CURRENCIES[i % 3]!,
    symbol: "$",
    wo_folio: `WO-${1000 + i}`,
    id_status_work_order: 1,
    final_date: null,
    user_assigned: null,
    parent_description: null,
    list_items: [
      {
        id_company: 1,
        type_resource: 1,
        qty: 1,
        unit_cost_company: 10 + (i % 10),
        total_cost_company: 10 + (i % 10),
        unit_cost: 10 + (i % 10),
        total_cost: 10 + (i % 10),
        id_taxes: null,
        hrl_description: null,
        items_log_description: "Part",
        stl_description: null,
      },
    ],
    approval_date: null,
    ...extra,
  } as Budget;
}

export async function startBudgetUpstream(
  budgets: Budget[],
  hostility: Hostility = {},
): Promise<BudgetUpstream> {
  const fake = await startFake();
  const opened: ReturnType<typeof createClients>[] = [];
  let pages = 0;
  let sinceLimit = 0;
  let limitedUntil = 0;
  let open = 0;
  let onHeld: (() => void)[] = [];
  const up: BudgetUpstream = {
    fake,
    budgets,
    hostility,
    served: [],
    checks: 0,
    peakOpen: 0,
    held: () => new Promise<void>((resolve) => onHeld.push(resolve)),
    refused: 0,
    resetLimit: () => {
      limitedUntil = 0;
      sinceLimit = 0;
    },
    clients: () => {
      const clients = createClients(makeConfig(fake.url, { maxRetries: 0, timeoutMs: 600_000 }), {
        logger: createLogger({ level: "error", sink: () => {} }),
      });
      opened.push(clients);
      return clients;
    },
    close: async () => {
      await Promise.all(opened.map((c) => c.close()));
      await fake.close();
    },
  };
  fake.on("POST", "/oauth/token", (_req, res) =>
    sendJson(res, 200, { access_token: "tok-1", token_type: "Bearer", expires_in: 7200 }),
  );
  fake.on("GET", /^\/api\/wo_budget$/, async (req, res, raw) => {
    open += 1;
    up.peakOpen = Math.max(up.peakOpen, open);
    try {
      await answer(req.url, res, raw);
    } finally {
      open -= 1;
    }
  });

  async function answer(url: string, res: http.ServerResponse, raw: http.IncomingMessage): Promise<void> {
    const h = up.hostility;
    const q = new URL(url, "http://x").searchParams;
    const limit = Number(q.get("limit") ?? 100);
    let start = h.ignoreStart ? 0 : Number(q.get("start") ?? 0);
    const index = pages++;
    if (h.holdFrom !== undefined && index >= h.holdFrom) {
      const waiters = onHeld;
      onHeld = [];
      for (const w of waiters) w();
      // Held until the client gives up on it (its deadline or a cancel closes the socket).
      await new Promise<void>((resolve) => raw.socket.once("close", resolve));
      return;
    }
    if (h.rateLimit) {
      if (limitedUntil === 0 && sinceLimit >= h.rateLimit.pages) {
        limitedUntil = Date.now() + h.rateLimit.resetSeconds * 1000;
      }
      if (limitedUntil !== 0 && Date.now() >= limitedUntil) up.resetLimit();
      if (limitedUntil !== 0) {
        up.refused += 1;
        sendJson(
          res,
          406,
          { success: false, message: "Too many requests", data: [] },
          { "retry-after": String(Math.max(0, Math.ceil((limitedUntil - Date.now()) / 1000))) },
        );
        return;
      }
      sinceLimit += 1;
    }
    if (h.overlap && start > 0) start -= h.overlap;
    let data = budgets.slice(start, start + limit);
    if (h.short && Number(q.get("start")) === h.short.at) data = data.slice(0, h.short.length);
    const total =
      "total" in h ? h.total : h.totalFrom && index >= h.totalFrom.page ? h.totalFrom.total : budgets.length;
    if (q.get("type_date") === "approval_date" || q.get("limit") === "1") up.checks += 1;
    else up.served.push(Number(q.get("start") ?? 0));
    sendJson(res, 200, { success: true, message: "ok", data, total });
  }
  return up;
}
