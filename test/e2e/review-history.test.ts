/**
 * Reviews that remember (interface.md §6e), through the shipped binary: two mornings are two
 * separate server processes against one sandbox whose budgets change between them; the second
 * review's `compare_to: "previous"` names what is new, approved, rejected, gone and changed, with
 * exact totals per currency; what is stored holds no notes, names or secrets. A state directory that
 * cannot be written turns history off with the reason while the server still answers. The rest
 * (unreadable records, retention, tenants, Redis replicas) runs in-process: test/tools/review-history.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exact, sum } from "../../src/domain/money.js";
import { unpackRecord } from "../../src/domain/review/history.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv } from "./bin.js";

let sb: SandboxHandle;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "mms-history-"));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Result = { structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };

/** One morning: a fresh server process, one review, then it exits. */
async function morning(env: Record<string, string>, args: Record<string, unknown>): Promise<Result> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: cleanEnv({ ...sb.env(), MMS_REVIEW_CACHE_SECONDS: "0", ...env }),
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-history", version: "1" });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: "query_budgets", arguments: args })) as Result;
  } finally {
    await client.close();
  }
}

const company = () => sb.state.budgets.filter((b) => b.companyId === 1);
const byFolio = (folio: string) => company().find((b) => b.record.folio === folio)!;
const totalOf = (folio: string) =>
  sum((byFolio(folio).record.list_items as { total_cost: number }[]).map((l) => exact(l.total_cost)));
const textOf = (r: Result) => r.content.map((c) => c.text ?? "").join("\n");
const REVIEW = { since: "all", group_by: ["status", "currency"], compare_to: "previous" };

describe("review history across server processes", () => {
  it("the second morning names what is new, approved, rejected, gone and changed, with exact totals", async () => {
    const dir = tempDir();
    const first = await morning({ MMS_STATE_DIR: dir }, REVIEW);
    expect(first.structuredContent?.changes).toBeUndefined();
    expect(textOf(first)).toContain(
      "no earlier review of these filters is stored; this one is, for next time",
    );

    // Overnight: 101 (USD) approved, 103 (EUR) rejected, a new 900 (copy of 104, USD), 100 gone, 102 changed.
    byFolio("101").record.status = 2;
    byFolio("103").record.status = 3;
    const copy = structuredClone(byFolio("104"));
    copy.record = { ...copy.record, id: 99_001, folio: "900" };
    sb.state.budgets.push(copy);
    const gone = totalOf("100");
    sb.state.budgets.splice(sb.state.budgets.indexOf(byFolio("100")), 1);
    (byFolio("102").record.list_items as { total_cost: number }[])[0]!.total_cost += 10.5;

    const second = await morning({ MMS_STATE_DIR: dir }, REVIEW);
    const changes = second.structuredContent?.changes as Record<
      string,
      { count: number; folios: string[]; by_currency: { currency: string; total: number }[] }
    >;
    const usd = (n: bigint) => Number(n) / 1e6;
    expect(changes.new).toEqual({
      count: 1,
      folios: ["900"],
      by_currency: [{ currency: "USD", total: usd(totalOf("104")) }],
    });
    expect(changes.approved).toEqual({
      count: 1,
      folios: ["101"],
      by_currency: [{ currency: "USD", total: usd(totalOf("101")) }],
    });
    expect(changes.rejected).toEqual({
      count: 1,
      folios: ["103"],
      by_currency: [{ currency: "EUR", total: usd(totalOf("103")) }],
    });
    expect(changes.gone).toEqual({
      count: 1,
      folios: ["100"],
      by_currency: [{ currency: "CLP", total: usd(gone) }],
    });
    expect(changes.changed).toMatchObject({ count: 1, folios: ["102"] });
    expect(changes.unchanged).toEqual({ count: company().length - 4 });
    const lines = textOf(second).split("\n");
    expect(lines[1]).toMatch(
      /^Since the review of \d{4}-\d\d-\d\d \d\d:\d\dZ \(\d+ minutes? ago\): 1 new \(USD [\d,.]+\), 1 approved \(USD [\d,.]+\), 1 rejected \(EUR [\d,.]+\), 1 gone \(CLP [\d,]+\), 1 changed, \d+ unchanged\.$/,
    );
    expect(lines[2]).toBe("Folios: new 900; approved 101; rejected 103; gone 100; changed 102.");

    // What is stored: ids, folios, codes, amounts; never notes, names, e-mails or the secret.
    const files = readdirSync(dir).filter((f) => f.endsWith(".history"));
    expect(files).toHaveLength(1);
    const raw = readFileSync(join(dir, files[0]!));
    const record = unpackRecord(raw);
    expect(record.entries).toHaveLength(2);
    const stored = record.entries.map((e) => gunzipSync(e.blob).toString()).join("\n");
    for (const secretOrPersonal of [
      "demo-secret",
      "demo-client",
      "ops@andes.example",
      "Andes Mining",
      "jperez",
      "Approved",
    ])
      expect(stored + raw.toString("latin1")).not.toContain(secretOrPersonal);
    expect(raw.length / record.entries.reduce((n, e) => n + e.count, 0)).toBeLessThan(60);
  });

  it("a state directory that cannot be written turns history off with the reason; the review still answers", async () => {
    const parent = tempDir();
    const blocked = join(parent, "file");
    writeFileSync(blocked, "");
    {
      // Under a file: no user, root included, can make it.
      const result = await morning({ MMS_STATE_DIR: join(blocked, "state") }, REVIEW);
      expect(result.structuredContent?.complete).toBe(true);
      expect(textOf(result)).toMatch(
        /Not compared: review history is off \(.*file\/state cannot be written \(\w+\); set MMS_STATE_DIR to a writable directory\)\./,
      );
    }
  });
});
