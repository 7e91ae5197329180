/**
 * Reviews that remember across conversations (interface.md §6f), through the shipped binary, as a
 * user works: day one, plain reviews; overnight the sandbox's data changes (3 approved, 1 rejected,
 * 2 added, 1 changed its lines, 1 removed); day two, a fresh process whose clock is a day ahead
 * (faketime; the sandbox's clock moves with it), other filters, other groupings and no status
 * filter, compare_to "yesterday": exactly those, by folio, and nothing uncovered called new. With
 * nothing earlier, nothing is claimed. With --sandbox, the ledger survives a restart (a new port).
 * What is stored holds no notes, names or secrets. The rest runs in-process:
 * test/tools/review-history.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unpack } from "../../src/domain/ledger/format.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv } from "./bin.js";

const DAY1 = "2026-03-10 09:05:00";
const DAY2 = "2026-03-11 09:05:00";
const at = (when: string) => Date.parse(`${when.replace(" ", "T")}Z`);
let clock = at(DAY1);
let sb: SandboxHandle;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mms-ledger-e2e-"));
  dirs.push(d);
  return d;
};
const faketime = spawnSync("faketime", ["-f", "+0", "true"]).error === undefined;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, clock: { now: () => clock } });
});
afterAll(async () => {
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Result = { structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };
type Changes = Record<string, { count: number; folios: string[] }> & {
  changed: {
    count: number;
    folios: string[];
    amounts: { folio: string; before: { total: number }; after: { total: number } }[];
  };
  not_compared: { count: number; reason: string };
  unchanged: { count: number };
};

/** One morning at `when` (UTC): a fresh server process whose clock starts then, its calls, then it exits. */
async function morning(
  when: string,
  env: Record<string, string>,
  calls: Record<string, unknown>[],
  args: string[] = [],
): Promise<Result[]> {
  clock = at(when);
  const transport = new StdioClientTransport({
    command: "faketime",
    args: ["-f", `@${when}`, process.execPath, BIN, ...args],
    env: cleanEnv({
      ...(args.includes("--sandbox") ? {} : sb.env()),
      TZ: "UTC",
      MMS_REVIEW_CACHE_SECONDS: "0",
      ...env,
    }),
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-ledger", version: "1" });
  await client.connect(transport);
  try {
    const out: Result[] = [];
    for (const call of calls)
      out.push((await client.callTool({ name: "query_budgets", arguments: call })) as Result);
    return out;
  } finally {
    await client.close();
  }
}

const company = () => sb.state.budgets.filter((b) => b.companyId === 1);
const byFolio = (folio: string) => company().find((b) => b.record.folio === folio)!;
const textOf = (r: Result) => r.content.map((c) => c.text ?? "").join("\n");
const sorted = (a: string[]) => [...a].sort();

const DAY_ONE = [
  { status: "pending", since: "all", group_by: ["currency"] },
  { status: "pending", sort: "total_desc", view: "detail" },
];
const DAY_TWO = { since: "all", group_by: ["cost_center", "currency"], compare_to: "yesterday" };

/** Overnight: 3 approved, 1 rejected, 1 changed its lines, 1 removed (all pending), 2 added. */
function overnight(): Record<string, string[]> {
  const pending = company()
    .filter((b) => b.record.status === 1)
    .map((b) => b.record.folio as string);
  const [a1, a2, a3, r1, c1, x1] = pending.slice(5);
  for (const f of [a1!, a2!, a3!]) byFolio(f).record.status = 2;
  byFolio(r1!).record.status = 3;
  (byFolio(c1!).record.list_items as { total_cost: number }[])[0]!.total_cost += 10.5;
  sb.state.budgets.splice(sb.state.budgets.indexOf(byFolio(x1!)), 1);
  const added = ["9001", "9002"].map((folio, i) => {
    const copy = structuredClone(byFolio(a2!));
    copy.record = {
      ...copy.record,
      id: 99_001 + i,
      folio,
      status: 1,
      date_create: "2026-03-10T18:00:00.000000-03:00",
    };
    sb.state.budgets.push(copy);
    return folio;
  });
  return { approved: [a1!, a2!, a3!], rejected: [r1!], new: added, changed: [c1!], removed: [x1!] };
}

describe.runIf(faketime)("the morning after, in a new conversation (the held-out check)", () => {
  it("day two with other filters and no status names exactly what happened overnight, by folio", async () => {
    const dir = tempDir();
    const first = await morning(DAY1, { MMS_STATE_DIR: dir }, DAY_ONE);
    expect(first[0]!.structuredContent?.complete).toBe(true);

    const expected = overnight();
    const [second] = await morning(DAY2, { MMS_STATE_DIR: dir }, [DAY_TWO]);
    const changes = second!.structuredContent?.changes as Changes;
    for (const kind of ["approved", "rejected", "new", "changed", "removed"])
      expect([kind, sorted(changes[kind]!.folios)]).toEqual([kind, sorted(expected[kind]!)]);
    expect(changes.gone?.count).toBe(0);
    expect(changes.changed.amounts).toMatchObject([{ folio: expected.changed![0] }]);
    const { before, after } = changes.changed.amounts[0]!;
    expect(after.total - before.total).toBeCloseTo(10.5, 6);
    // Budgets decided before day one were never read: not compared, never new.
    const decidedBefore = company().filter((b) => b.record.status !== 1).length - 4;
    expect(changes.not_compared).toEqual({
      count: decidedBefore,
      reason: "earlier reads covered pending budgets only",
    });
    expect(changes.unchanged.count).toBe(company().filter((b) => b.record.status === 1).length - 2 - 1);
    const [line] = textOf(second!).split("\n");
    expect(line).toMatch(
      /^(\[sandbox\] )?Since yesterday's review \(2026-03-10 09:05, 1 day ago\): 3 approved \([A-Z]{3} [\d,.]+(; [A-Z]{3} [\d,.]+)*\), 1 rejected \([A-Z]{3} [\d,.]+\), 2 new \([A-Z]{3} [\d,.]+\), 1 changed \(folio \d+: [A-Z]{3} [\d,.]+ -> [\d,.]+\), 1 removed; \d+ unchanged\. \d+ not compared \(earlier reads covered pending budgets only\)\.$/,
    );

    // What is stored: ids, folios, codes, amounts; never notes, names, e-mails or the secret.
    const files = readdirSync(dir).filter((f) => f.endsWith(".ledger"));
    expect(files).toHaveLength(1);
    const raw = readFileSync(join(dir, files[0]!));
    const { header, blob } = unpack(raw);
    const stored = gunzipSync(blob).toString();
    for (const secretOrPersonal of [
      "demo-secret",
      "demo-client",
      "ops@andes.example",
      "Andes Mining",
      "jperez",
      "Approved",
    ])
      expect(stored + raw.toString("latin1")).not.toContain(secretOrPersonal);
    expect(raw.length / header.n).toBeLessThan(60);
  });

  it("with nothing earlier, nothing is claimed", async () => {
    const [result] = await morning(DAY2, { MMS_STATE_DIR: tempDir() }, [DAY_TWO]);
    expect(result!.structuredContent?.changes).toBeUndefined();
    expect(textOf(result!)).toContain("Not compared: nothing read before 2026-03-10T23:59Z is kept");
  });

  it("with --sandbox, the ledger survives a restart on another port: the next morning finds the first", async () => {
    const home = tempDir();
    const env = { XDG_STATE_HOME: home, HOME: home };
    await morning(DAY1, env, [DAY_ONE[0]!], ["--sandbox"]);
    const [second] = await morning(
      DAY1.replace("09:05", "10:05"),
      env,
      [{ ...DAY_ONE[0], compare_to: "previous" }],
      ["--sandbox"],
    );
    const changes = second!.structuredContent?.changes as Changes | undefined;
    expect(changes?.unchanged.count).toBeGreaterThan(0);
    expect(textOf(second!).split("\n")[0]).toMatch(
      // Each process's clock starts at its hour and runs on: the seconds each took to start move the age around the hour.
      /^(\[sandbox\] )?Since the previous review \(2026-03-10 09:05, (1 hour|5\d minutes) ago\)/,
    );
    const state = join(home, "maintenance-mcp");
    expect(readdirSync(state).filter((f) => f.startsWith("sandbox-"))).toEqual([
      expect.stringMatching(/^sandbox-[0-9a-f]{16}$/),
    ]);
  });
});
