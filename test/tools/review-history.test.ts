/**
 * The ledger of budgets seen, in-process (interface.md §6f): compare_to with any filters, yesterday,
 * right after a review, nothing earlier; what no earlier read covered is not compared; and the store
 * under attack (round 5): retention on read and sweep, cost independent of stored records,
 * concurrent writers, FIFOs, foreign or open directories, gzip bombs, bounded changes, the
 * sandbox's identity and directory, Redis replicas with a TTL. One clock for sandbox and server.
 * The two-process mornings through the binary: test/e2e/review-history.test.ts.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { pack, unpack } from "../../src/domain/ledger/format.js";
import type { LedgerBackend, ProcessLedger } from "../../src/domain/ledger/ledger.js";
import { parseCompareTo } from "../../src/domain/review/remember.js";
import { createReviewServices } from "../../src/domain/review/services.js";
import { openHistory, sandboxStateDir } from "../../src/hosting/history-store.js";
import { historyOwner } from "../../src/hosting/servers.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { connect, textOf } from "../helpers/mcp.js";
import { describeRedis, type RedisServer, redisCli, startRedis } from "../helpers/redis.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";

const DAY1 = Date.parse("2026-03-10T09:05:00Z");
const DAY = 86_400_000;
let clock = DAY1;
const fx = useSandbox({ clock: { now: () => clock } });
const quiet = createLogger({ level: "error", sink: () => {} });
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mms-ledger-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Result = { structuredContent?: Record<string, unknown>; content: { text?: string }[] };
type Set_ = { count: number; folios: string[] };
type ChangesOut = Record<"approved" | "rejected" | "new" | "gone" | "removed", Set_> & {
  compared_to: { as_of: string };
  changed: Set_ & { amounts: { folio: string; before: { total: number }; after: { total: number } }[] };
  not_compared: { count: number; reason: string };
  unchanged: { count: number };
};

const files = (dir: string, days = 35) =>
  openHistory({ days, mb: 64, stateDir: dir, redisUrl: undefined, redisTimeoutMs: 1000, logger: quiet });

const services = (history: ProcessLedger, cacheSeconds: number) =>
  createReviewServices(
    { deadlineMs: 45_000, cacheSeconds, cacheMb: 8, inflightMb: 8, clock: () => clock },
    history,
  );

/** A server of `tenant` over `history` whose clock (and the sandbox's) says `at`; one call. */
async function review(
  history: ProcessLedger,
  at: number,
  args: Record<string, unknown>,
  options: { tenant?: string; services?: ReturnType<typeof services> } = {},
): Promise<{ result: Result; text: string; changes: ChangesOut | undefined }> {
  clock = at;
  const reviews = (options.services ?? services(history, 0)).forTenant(options.tenant ?? "t");
  const mcp = await connect({ clients: fx.clients(), reviews, now: () => new Date(clock) });
  try {
    const result = (await mcp.client.callTool({ name: "query_budgets", arguments: args })) as Result;
    return {
      result,
      text: textOf(result),
      changes: result.structuredContent?.changes as ChangesOut | undefined,
    };
  } finally {
    await mcp.close();
  }
}

const company = () => fx.sb.state.budgets.filter((b) => b.companyId === 1);
const byFolio = (folio: string) => company().find((b) => b.record.folio === folio)!;
const pendingFolios = () =>
  company()
    .filter((b) => b.record.status === 1)
    .map((b) => b.record.folio as string);
const sorted = (a: string[]) => [...a].sort();
const DAY_ONE = { status: "pending", since: "all", group_by: ["currency"] };
const DAY_TWO = { since: "all", group_by: ["status", "cost_center"], compare_to: "yesterday" };

/** Overnight, on the sandbox: 3 approved, 1 rejected, 2 added, 1 changed its lines, 1 removed (all pending before). */
function overnight(): Record<string, string[]> {
  const [a1, a2, a3, r1, c1, x1] = pendingFolios();
  for (const f of [a1!, a2!, a3!]) byFolio(f).record.status = 2;
  byFolio(r1!).record.status = 3;
  (byFolio(c1!).record.list_items as { total_cost: number }[])[0]!.total_cost += 10.5;
  const gone = byFolio(x1!);
  fx.sb.state.budgets.splice(fx.sb.state.budgets.indexOf(gone), 1);
  const added = ["N-1", "N-2"].map((folio, i) => {
    const copy = structuredClone(byFolio(a1!));
    copy.record = {
      ...copy.record,
      id: 990_000 + i,
      folio,
      status: 1,
      date_create: new Date(clock + 3600_000).toISOString(),
    };
    fx.sb.state.budgets.push(copy);
    return folio;
  });
  return { approved: [a1!, a2!, a3!], rejected: [r1!], new: added, changed: [c1!], removed: [x1!] };
}

describe("compare_to with any filters", () => {
  it("day two, other filters and groupings, no status: exactly what happened overnight, by folio", async () => {
    const history = await files(tempDir());
    const first = await review(history, DAY1, DAY_ONE);
    expect(first.changes).toBeUndefined();
    const saved = structuredClone(fx.sb.state.budgets);
    try {
      const expected = overnight();
      const { changes, text } = await review(history, DAY1 + DAY, DAY_TWO);
      for (const kind of ["approved", "rejected", "new", "changed", "removed"] as const)
        expect([kind, [...changes![kind].folios].sort()]).toEqual([kind, [...expected[kind]!].sort()]);
      expect(changes!.gone.count).toBe(0);
      expect(changes!.changed.amounts).toHaveLength(1);
      const { before, after } = changes!.changed.amounts[0]!;
      expect(after.total - before.total).toBeCloseTo(10.5, 6);
      // Budgets decided before day one were never read: not compared, never new.
      const decidedBefore = company().length - pendingFolios().length - 4 - 0;
      expect(changes!.not_compared).toEqual({
        count: decidedBefore,
        reason: "earlier reads covered pending budgets only",
      });
      expect(text.split("\n")[0]).toMatch(
        /^(\[sandbox\] )?Since yesterday's review \(2026-03-10 09:05, 1 day ago\): 3 approved \([^)]+\), 1 rejected \([^)]+\), 2 new \([^)]+\), 1 changed \(folio [^:]+: \w+ [\d,.]+ -> [\d,.]+\), 1 removed; \d+ unchanged\. \d+ not compared \(earlier reads covered pending budgets only\)\.$/,
      );
    } finally {
      fx.sb.state.budgets.splice(0, fx.sb.state.budgets.length, ...saved);
    }
  });

  it("with nothing earlier, nothing is claimed; right after a review, previous compares with what was known before it", async () => {
    const history = await files(tempDir());
    const shared = services(history, 300);
    const none = await review(history, DAY1, { ...DAY_ONE, compare_to: "previous" }, { services: shared });
    expect(none.changes).toBeUndefined();
    expect(none.text).toContain(
      "Not compared: nothing read before 2026-03-10T09:04Z is kept (history keeps 35 days); this read is, for next time.",
    );
    await review(history, DAY1 + 60_000, { since: "all", group_by: ["status"] }, { services: shared });
    // The same read again within its snapshot's life: answered from it, compared with what was known before it.
    const again = await review(
      history,
      DAY1 + 90_000,
      { since: "all", group_by: ["status"], compare_to: "previous" },
      { services: shared },
    );
    expect(again.result.structuredContent?.as_of).toBe(new Date(DAY1 + 60_000).toISOString());
    expect(again.changes?.compared_to.as_of).toBe(new Date(DAY1).toISOString());
    expect(again.changes?.unchanged.count).toBe(pendingFolios().length);
  });

  it.each([
    ["status pending alone", { status: "pending", compare_to: "yesterday", since: "all" }],
    ["all: true with P1D", { status: "pending", since: "all", all: true, compare_to: "P1D" }],
    [
      "budget_created",
      { type_date: "budget_created", since: "P400D", group_by: ["currency"], compare_to: "yesterday" },
    ],
  ])(
    "the issue's second morning, %s: decided budgets are approved and rejected, never only gone",
    async (_, args) => {
      const history = await files(tempDir());
      await review(history, DAY1, DAY_ONE);
      const saved = structuredClone(fx.sb.state.budgets);
      try {
        const expected = overnight();
        const { changes } = await review(history, DAY1 + DAY, args);
        expect(sorted(changes!.approved.folios)).toEqual(sorted(expected.approved!));
        expect(changes!.rejected.folios).toEqual(expected.rejected);
        expect(changes!.removed.folios).toEqual(expected.removed);
        expect(changes!.changed.folios).toEqual(expected.changed);
        expect(changes!.gone.count).toBe(0);
      } finally {
        fx.sb.state.budgets.splice(0, fx.sb.state.budgets.length, ...saved);
      }
    },
  );

  it("remembers what lists saw: a whole list on day one is compared with on day two", async () => {
    const history = await files(tempDir());
    const list = await review(history, DAY1, { status: "pending", since: "all", all: true });
    expect(list.result.structuredContent).toMatchObject({ complete: true, view: "compact" });
    const saved = structuredClone(fx.sb.state.budgets);
    try {
      const expected = overnight();
      const { changes } = await review(history, DAY1 + DAY, DAY_TWO);
      expect(sorted(changes!.approved.folios)).toEqual(sorted(expected.approved!));
      expect(sorted(changes!.new.folios)).toEqual(sorted(expected.new!));
      expect(changes!.removed.folios).toEqual(expected.removed);
    } finally {
      fx.sb.state.budgets.splice(0, fx.sb.state.budgets.length, ...saved);
    }
  });

  it("takes previous, yesterday, an instant or a duration, and refuses anything else with the forms", () => {
    const now = Date.parse("2026-03-11T10:00:00Z");
    expect(parseCompareTo("yesterday", now)).toEqual({ kind: "yesterday" });
    expect(parseCompareTo(" Previous ", now)).toEqual({ kind: "previous" });
    expect(parseCompareTo("P1D", now)).toEqual({ kind: "at", at: now - DAY, asked: "P1D" });
    expect(parseCompareTo("2026-03-10T08:00", now)).toMatchObject({ at: Date.parse("2026-03-10T08:00:00Z") });
    expect(() => parseCompareTo("last week", now)).toThrow(/"previous", "yesterday", an ISO 8601 instant/);
  });
});

describe("the store under attack", () => {
  it("retention applies on read: a 40-day-old read is not compared with MMS_REVIEW_HISTORY_DAYS=35, and the sweep drops it", async () => {
    const dir = tempDir();
    const history = await files(dir, 35);
    await review(history, DAY1 - 40 * DAY, DAY_ONE);
    const { changes, text } = await review(history, DAY1, { ...DAY_ONE, compare_to: "P40D" });
    expect(changes).toBeUndefined();
    expect(text).toContain("Not compared: nothing read before");
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    const { header } = unpack(readFileSync(join(dir, file!)));
    expect(header.cov.map((c) => c.at)).toEqual([DAY1]);
  });

  it("a review reads one record, whatever else the directory holds (40,000 records of other tenants)", async () => {
    const dir = tempDir();
    for (let i = 0; i < 40_000; i++)
      writeFileSync(join(dir, `ledger-${String(i).padStart(24, "0")}.ledger`), "x");
    const history = await files(dir);
    if (!history.on) throw new Error(history.why);
    const calls: string[] = [];
    const counted: LedgerBackend = {
      where: history.backend.where,
      read: (n) => {
        calls.push(`read ${n}`);
        return history.backend.read(n);
      },
      update: (n, change, ttl) => {
        calls.push(`update ${n}`);
        return history.backend.update(n, change, ttl);
      },
      setAside: (n) => {
        calls.push(`aside ${n}`);
        return history.backend.setAside(n);
      },
    };
    await review({ ...history, backend: counted }, DAY1, { ...DAY_ONE, compare_to: "previous" });
    expect(calls).toHaveLength(2);
    expect(new Set(calls.map((c) => c.split(" ")[1])).size).toBe(1);
    // Writing the 40,000 files is most of it: under libfaketime (every file call through the library) on a
    // busy machine it passed 20 s once. What is asserted is the count of record reads, not a time.
  }, 120_000);

  it("concurrent reviews of one tenant lose nothing: in one process, and across two processes' backends", async () => {
    const dir = tempDir();
    const one = await files(dir);
    const two = await files(dir);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        review(i % 2 === 0 ? one : two, DAY1 + i * 1000, { ...DAY_ONE, since: `P${300 + i}D` }),
      ),
    );
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    expect(unpack(readFileSync(join(dir, file!))).header.cov).toHaveLength(8);
  });

  it("a read that cannot take the tenant's lock is said not stored, and never claimed to be", async () => {
    const dir = tempDir();
    const history = await files(dir);
    await review(history, DAY1, DAY_ONE);
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    // Another process holds the lock (a fresh lock file) for the whole call.
    writeFileSync(join(dir, file!.replace(/\.ledger$/, ".lock")), `4242 ${Date.now()}`);
    const { text } = await review(history, DAY1 + 1000, { ...DAY_ONE, compare_to: "PT1H" });
    expect(text).toContain(
      "This read is not stored: another review of this tenant held the ledger too long.",
    );
    expect(text).toContain(
      "Not compared: nothing read before 2026-03-10T08:05Z is kept (history keeps 35 days).",
    );
    expect(text).not.toContain("for next time");
  });

  it("opens only regular files: a FIFO where the ledger goes is set aside, never waited on", async () => {
    const dir = tempDir();
    const history = await files(dir);
    await review(history, DAY1, DAY_ONE);
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    rmSync(join(dir, file!));
    execFileSync("mkfifo", [join(dir, file!)]);
    const { result, text } = await review(history, DAY1 + 1000, { ...DAY_ONE, compare_to: "previous" });
    expect(result.structuredContent?.complete).toBe(true);
    expect(text).toMatch(/History unreadable \(it is not a regular file\): not compared; set aside as /);
  });

  it("refuses a gzip bomb: a record that would inflate far past its own size", async () => {
    const dir = tempDir();
    const history = await files(dir);
    await review(history, DAY1, DAY_ONE);
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x31), { level: 9 });
    const header = { v: 1, cov: [], n: 1, raw: 64 * 1024 * 1024, oldest: DAY1 };
    writeFileSync(join(dir, file!), pack({ header, blob: bomb } as never));
    const { text } = await review(history, DAY1 + 1000, { ...DAY_ONE, compare_to: "previous" });
    expect(text).toMatch(/History unreadable \(it claims 67108864 bytes from \d+ compressed\)/);
  });

  it("refuses a state directory others can write, or another user's, with a warning", async () => {
    const open = join(tempDir(), "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const { logger, lines } = captureLogger();
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: open,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger,
    });
    expect(history).toMatchObject({
      on: false,
      why: expect.stringContaining("can be written by other users (mode 777)"),
    });
    expect(lines.join("\n")).toContain("review history is off");
    if (process.getuid?.() === 0) {
      const theirs = join(tempDir(), "theirs");
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, 4242, 4242);
      expect(await files(theirs)).toMatchObject({
        on: false,
        why: expect.stringContaining("belongs to another user (uid 4242)"),
      });
    }
  });

  it("bounds folios in changes: 50 a kind, each cut to 60 characters", async () => {
    const history = await files(tempDir());
    await review(history, DAY1, DAY_ONE);
    const saved = structuredClone(fx.sb.state.budgets);
    try {
      const pending = company().filter((b) => b.record.status === 1);
      for (const b of pending) {
        b.record.status = 2;
        b.record.folio = `${b.record.folio}-${"x".repeat(500)}`;
      }
      const { changes, result } = await review(history, DAY1 + DAY, DAY_TWO);
      expect(changes!.approved.count).toBe(pending.length);
      expect(changes!.approved.folios.length).toBeLessThanOrEqual(50);
      for (const f of changes!.approved.folios) expect(f.length).toBeLessThanOrEqual(60);
      expect(JSON.stringify(result.structuredContent).length).toBeLessThan(80_000);
    } finally {
      fx.sb.state.budgets.splice(0, fx.sb.state.budgets.length, ...saved);
    }
  });

  it("6e's per-filter records are not read: moved aside with a warning at start, never an error", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "0123456789abcdef01234567-89abcdef0123456789abcdef.history"), "MMSH1\nold");
    const { logger, lines } = captureLogger();
    const history = await openHistory({
      days: 35,
      mb: 64,
      stateDir: dir,
      redisUrl: undefined,
      redisTimeoutMs: 1000,
      logger,
    });
    expect(readdirSync(join(dir, "6e-history"))).toHaveLength(1);
    expect(lines.join("\n")).toContain("records of the earlier per-filter format are no longer read");
    const { result, text } = await review(history, DAY1, { ...DAY_ONE, compare_to: "previous" });
    expect(result.structuredContent?.complete).toBe(true);
    expect(text).toContain("Not compared: nothing read before");
  });

  it("the sandbox is one company whatever its port, and its directory has a random name found again", async () => {
    const a = loadConfig({ ...fx.sb.env(), MMS_BASE_URL: "http://127.0.0.1:40001/api" });
    const b = loadConfig({ ...fx.sb.env(), MMS_BASE_URL: "http://127.0.0.1:40002/api" });
    expect(historyOwner(undefined, a, true)).toBe(historyOwner(undefined, b, true));
    expect(historyOwner(undefined, a)).not.toBe(historyOwner(undefined, b));
    const base = tempDir();
    const first = await sandboxStateDir(base);
    expect(first).toMatch(/sandbox-[0-9a-f]{16}$/);
    expect(await sandboxStateDir(base)).toBe(first);
  });
});

// Redis always answers here: a deadline that only a machine under load could reach (at 1 s, one did).
const REDIS_DEADLINE = 10_000;

describeRedis("the ledger in Redis", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("two replicas share it, writing at once lose nothing, and the key carries the retention as its TTL", async () => {
    const replica = () =>
      openHistory({
        days: 35,
        mb: 64,
        stateDir: undefined,
        redisUrl: redis.url,
        redisTimeoutMs: REDIS_DEADLINE,
        logger: quiet,
      });
    const [one, two] = await Promise.all([replica(), replica()]);
    try {
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          review(i % 2 === 0 ? one : two, DAY1 + i * 1000, { ...DAY_ONE, since: `P${300 + i}D` }),
        ),
      );
      const { changes } = await review(two, DAY1 + 10_000, { ...DAY_ONE, compare_to: "previous" });
      expect(changes?.unchanged.count).toBe(pendingFolios().length);
      const keys = redisCli(redis.port, "--scan", "--pattern", "mms:ledger:*").trim().split("\n");
      expect(keys).toHaveLength(1);
      const ttl = Number(redisCli(redis.port, "PTTL", keys[0]!));
      expect(ttl).toBeGreaterThan(34 * DAY);
      const raw = redisCli(redis.port, "--no-raw", "STRLEN", keys[0]!);
      expect(Number(raw.replace(/\D/g, ""))).toBeGreaterThan(0);
      const cov = JSON.parse(redisCli(redis.port, "GETRANGE", keys[0]!, "6", "200000").split("\n")[0]!).cov;
      expect(cov).toHaveLength(7);
    } finally {
      for (const h of [one, two]) if (h.on) await h.backend.close?.();
    }
  });
});
