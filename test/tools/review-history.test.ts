/**
 * Review history in-process (interface.md §6e): the codec keeps totals exact; an unreadable record
 * is set aside and named; history off says why; a tenant never reads another's history; two
 * replicas sharing Redis see each other's reviews; retention drops the oldest first; a partial
 * review says the changes are within what both read. The two-process morning is test/e2e/review-history.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Budget } from "../../src/client/types.js";
import { loadConfig } from "../../src/config/config.js";
import { price } from "../../src/domain/budget-view.js";
import { exact } from "../../src/domain/money.js";
import {
  type Entry,
  type HistoryBackend,
  TenantHistory,
  unpackRecord,
} from "../../src/domain/review/history.js";
import {
  budgetLine,
  decodeRows,
  encodeRows,
  type HistoryRow,
  lineOf,
  rowOf,
} from "../../src/domain/review/history-codec.js";
import { parseCompareTo } from "../../src/domain/review/remember.js";
import { createReviewServices } from "../../src/domain/review/services.js";
import { defaultStateDir, FileHistory, openHistory } from "../../src/hosting/history-store.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { connect, textOf } from "../helpers/mcp.js";
import { describeRedis, type RedisServer, startRedis } from "../helpers/redis.js";
import { useSandbox } from "../helpers/sandbox.js";

// One clock for everything in play: the sandbox seeds its budgets a day before the first review's
// clock (2027-01-01 08:00Z), so every review below reads the same 260, on any day the suite runs.
const SEEDED = Date.parse("2026-12-31T08:00:00Z");
const fx = useSandbox({ clock: { now: () => SEEDED } });
const quiet = createLogger({ level: "error", sink: () => {} });
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mms-history-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const REVIEW = { since: "all", group_by: ["status"], compare_to: "previous" };
type Result = { structuredContent?: Record<string, unknown> };

/** A server of `tenant` over `history` whose clock says `at`; one review call. */
async function review(
  history: Awaited<ReturnType<typeof openHistory>>,
  tenant: string,
  at: Date,
  args: Record<string, unknown> = REVIEW,
): Promise<{ result: Result; text: string }> {
  const reviews = createReviewServices(
    { deadlineMs: 45_000, cacheSeconds: 0, cacheMb: 1, inflightMb: 8, clock: () => at.getTime() },
    history,
  ).forTenant(tenant);
  const mcp = await connect({ clients: fx.clients(), reviews, now: () => at });
  try {
    const result = (await mcp.client.callTool({ name: "query_budgets", arguments: args })) as Result;
    return { result, text: textOf(result) };
  } finally {
    await mcp.close();
  }
}

const company = () => fx.sb.state.budgets.filter((b) => b.companyId === 1);

describe("the codec", () => {
  it("round-trips rows exactly, upstream tabs and line breaks included, in well under 60 bytes a budget", () => {
    const rows: HistoryRow[] = Array.from({ length: 2000 }, (_, i) => ({
      id: String(7000 + i),
      folio: i === 0 ? "F\t1\n\\x" : String(100 + i),
      wo: String(4000 + i),
      status: 1 + (i % 3),
      currency: i % 7 === 0 ? { code: "Crédito interno", mapped: false } : { code: "USD", mapped: true },
      total: i === 1 ? exact("0.0000001") + exact("12.345678") : exact((i * 37.25).toFixed(2)),
      created: "2026-11-11T13:34:00.905000+00:00",
      approved: i % 2 ? "" : "2026-11-12 10:00:00",
      costCenter: String(700 + (i % 9)),
      thirdParty: `CUS-${i % 40}`,
      lines: i % 5,
    }));
    const blob = encodeRows(rows);
    expect(decodeRows(blob)).toEqual(rows);
    expect(blob.length / rows.length).toBeLessThan(60);
  });

  it("writes a budget's line as its row's line, never a note, a name or who approved", () => {
    for (const b of company().slice(0, 50)) {
      const p = price(b.record as unknown as Budget);
      expect(budgetLine(p)).toBe(lineOf(rowOf(p)));
      for (const field of ["note", "third_parties_name", "approved_by", "third_parties_email"] as const) {
        const value = (b.record as Record<string, unknown>)[field];
        if (typeof value === "string" && value.length > 3) expect(budgetLine(p)).not.toContain(value);
      }
    }
  });

  it("compare_to takes previous, an instant or a duration, and refuses anything else with the forms", () => {
    const now = Date.parse("2027-01-02T08:00:00Z");
    expect(parseCompareTo("previous", now)).toEqual({ kind: "previous" });
    expect(parseCompareTo("P1D", now)).toMatchObject({ at: Date.parse("2027-01-01T08:00:00Z") });
    expect(parseCompareTo("2027-01-01T08:00Z", now)).toMatchObject({
      at: Date.parse("2027-01-01T08:00:00Z"),
    });
    expect(() => parseCompareTo("yesterday", now)).toThrow(
      /"previous", an ISO 8601 instant .* or a duration back \(P1D\)/,
    );
  });
});

describe("settings", () => {
  const env = { MMS_BASE_URL: "https://h/api", MMS_HAWK_ID: "i", MMS_HAWK_KEY: "k" };
  it("reads MMS_REVIEW_HISTORY_DAYS, _MB and MMS_STATE_DIR, and refuses a relative directory or a bad number", () => {
    expect(loadConfig(env).history).toEqual({ days: 35, mb: 64, stateDir: undefined });
    expect(
      loadConfig({
        ...env,
        MMS_REVIEW_HISTORY_DAYS: "0",
        MMS_REVIEW_HISTORY_MB: "8",
        MMS_STATE_DIR: "/var/lib/mms",
      }).history,
    ).toEqual({ days: 0, mb: 8, stateDir: "/var/lib/mms" });
    const bad = () => loadConfig({ ...env, MMS_STATE_DIR: "state", MMS_REVIEW_HISTORY_MB: "0" });
    expect(bad).toThrow(/MMS_STATE_DIR[^\n]*absolute directory path/);
    expect(bad).toThrow(/MMS_REVIEW_HISTORY_MB[^\n]*at least 1/);
  });

  it("puts the user's state directory where each platform keeps it", () => {
    expect(defaultStateDir({ HOME: "/home/u" }, "linux")).toBe("/home/u/.local/state/maintenance-mcp");
    expect(defaultStateDir({ HOME: "/home/u", XDG_STATE_HOME: "/s" }, "linux")).toBe("/s/maintenance-mcp");
    expect(defaultStateDir({ HOME: "/Users/u" }, "darwin")).toBe(
      "/Users/u/Library/Application Support/maintenance-mcp",
    );
    expect(defaultStateDir({ HOME: "/h", LOCALAPPDATA: "C:/Users/u/AppData/Local" }, "win32")).toBe(
      join("C:/Users/u/AppData/Local", "maintenance-mcp"),
    );
  });
});

describe("history in files", () => {
  it("compares with the latest review at least P1D old, and a partial review says the changes are within what both read", async () => {
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: tempDir(),
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger: quiet,
    });
    const day1 = new Date("2027-01-01T08:00:00Z");
    await review(history, "t", day1);
    await review(history, "t", new Date("2027-01-02T07:00:00Z"));
    const { result, text } = await review(history, "t", new Date("2027-01-02T08:00:00Z"), {
      ...REVIEW,
      compare_to: "P1D",
    });
    expect(result.structuredContent?.changes).toMatchObject({
      compared_to: { as_of: day1.toISOString(), age_days: 1 },
    });
    expect(text.split("\n")[1]).toMatch(
      /^Since the review of 2027-01-01 08:00Z \(24 hours ago\): 0 new, 0 approved, 0 rejected, 0 gone, 0 changed, 260 unchanged\.$/,
    );
    const capped = await review(history, "t", new Date("2027-01-02T09:00:00Z"), {
      ...REVIEW,
      max_records: 100,
    });
    expect(capped.result.structuredContent?.changes).toMatchObject({
      within_both_reads: true,
      unchanged: { count: 100 },
      gone: { count: 0 },
    });
    expect(capped.text).toContain("This review is partial: the changes are within what both read.");
  });

  it("sets an unreadable record aside, names it, and stores this review afresh", async () => {
    const dir = tempDir();
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: dir,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger: quiet,
    });
    await review(history, "t", new Date("2027-01-01T08:00:00Z"));
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), "not a history record");
    const { result, text } = await review(history, "t", new Date("2027-01-02T08:00:00Z"));
    expect(result.structuredContent?.changes).toBeUndefined();
    const aside = readdirSync(dir).find((f) => f.includes(".unreadable-"));
    expect(text).toContain(
      `History unreadable (not a history record): not compared; set aside as ${join(dir, aside!)}.`,
    );
    expect(readdirSync(dir).filter((f) => f.endsWith(".history"))).toEqual([file]);
  });

  it("never breaks a review: a directory that stops being writable is a note, and the figures stand", async () => {
    const dir = tempDir();
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: dir,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger: quiet,
    });
    // Gone and replaced by a file (chmod would not stop root, who runs CI).
    rmSync(dir, { recursive: true });
    writeFileSync(dir, "");
    const { result, text } = await review(history, "t", new Date("2027-01-01T08:00:00Z"));
    expect(result.structuredContent).toMatchObject({ complete: true, review: { matched: 260 } });
    expect(text).toMatch(/Review history \(files in .*\) could not be used this time \(ENOTDIR/);
  });

  it("is off with MMS_REVIEW_HISTORY_DAYS=0 and says so; nothing is written", async () => {
    const dir = tempDir();
    const history = await openHistory({
      days: 0,
      mb: 64,
      stateDir: dir,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger: quiet,
    });
    const { text } = await review(history, "t", new Date("2027-01-01T08:00:00Z"));
    expect(text).toContain("Not compared: review history is off (MMS_REVIEW_HISTORY_DAYS is 0).");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps one tenant's history from another: a second tenant's first review finds nothing", async () => {
    const dir = tempDir();
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: dir,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger: quiet,
    });
    await review(history, "acme", new Date("2027-01-01T08:00:00Z"));
    const other = await review(history, "globex", new Date("2027-01-02T08:00:00Z"));
    expect(other.text).toContain("no earlier review of these filters is stored");
    const own = await review(history, "acme", new Date("2027-01-02T08:00:00Z"));
    expect(own.result.structuredContent?.changes).toBeDefined();
    const names = readdirSync(dir);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).not.toMatch(/acme|globex/);
    expect(new Set(names.map((n) => n.split("-")[0])).size).toBe(2);
  });
});

describe("retention", () => {
  const entry = (at: number, bytes: number): Entry => ({
    at,
    complete: true,
    count: 1,
    blob: Buffer.alloc(bytes, 1),
  });
  it("drops entries past the days, then the tenant's oldest until within its bytes", async () => {
    const backend: HistoryBackend = new FileHistory(tempDir());
    const h = new TenantHistory(backend, { days: 2, maxBytes: 3000 }, "t");
    const day = 86_400_000;
    await h.add("a", undefined, entry(0, 1000), 0);
    const loaded = async (key: string) => {
      const l = await h.load(key);
      return l.kind === "record" ? l.record : undefined;
    };
    await h.add("a", await loaded("a"), entry(1 * day, 1000), 1 * day);
    await h.add("a", await loaded("a"), entry(3 * day, 1000), 3 * day);
    expect((await loaded("a"))!.entries.map((e) => e.at)).toEqual([1 * day, 3 * day]);
    const kept = await h.add("b", undefined, entry(3 * day + 1, 1000), 3 * day + 1);
    expect(kept).toEqual({ kept: true });
    // 3 entries of 1000 bytes plus headers pass 3000: the oldest (a at day 1) goes first.
    expect((await loaded("a"))!.entries.map((e) => e.at)).toEqual([3 * day]);
    expect(await h.add("c", undefined, entry(4 * day, 5000), 4 * day)).toEqual({ kept: false });
  });
});

// Redis always answers here: a deadline that only a machine under load could reach (at 1 s, one did).
const REDIS_DEADLINE = 10_000;

describeRedis("history in Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it("two replicas share it: the second replica compares with the first replica's review", async () => {
    const replica = () =>
      openHistory({
        days: 35,
        mb: 64,
        stateDir: undefined,
        redisUrl: redis.url,
        redisTimeoutMs: REDIS_DEADLINE,
        logger: quiet,
      });
    const [a, b] = [await replica(), await replica()];
    try {
      await review(a, "t", new Date("2027-01-01T08:00:00Z"));
      const folio = company().find((x) => x.record.status === 1)!;
      folio.record.status = 2;
      const { result, text } = await review(b, "t", new Date("2027-01-02T08:00:00Z"));
      folio.record.status = 1;
      expect(result.structuredContent?.changes).toMatchObject({
        approved: { count: 1, folios: [folio.record.folio] },
      });
      expect(text.split("\n")[1]).toMatch(
        /^Since the review of 2027-01-01 08:00Z \(24 hours ago\): 0 new, 1 approved \(\w+ [\d,.]+\), 0 rejected/,
      );
      const other = await review(b, "other", new Date("2027-01-02T08:00:00Z"));
      expect(other.text).toContain("no earlier review of these filters is stored");
    } finally {
      for (const h of [a, b]) if (h.on) await h.backend.close?.();
    }
  });

  it("an unreadable key is set aside and named", async () => {
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: undefined,
      redisUrl: redis.url,
      redisTimeoutMs: REDIS_DEADLINE,
      logger: quiet,
    });
    if (!history.on) throw new Error(history.why);
    try {
      const args = { ...REVIEW, since: "P3650D" };
      await review(history, "u", new Date("2027-01-01T08:00:00Z"), args);
      const tenant = new TenantHistory(history.backend, history.settings, "u").nameOf("").split("-")[0];
      const [name] = await history.backend.list(`${tenant}-`);
      await history.backend.write(name!.name, Buffer.from("garbage"));
      const { text } = await review(history, "u", new Date("2027-01-02T08:00:00Z"), args);
      expect(text).toMatch(
        /History unreadable \(not a history record\): not compared; set aside as mms:history-unreadable:/,
      );
      const stored = await history.backend.read(name!.name);
      expect(unpackRecord(stored!).entries).toHaveLength(1);
    } finally {
      await history.backend.close?.();
    }
  });
});
