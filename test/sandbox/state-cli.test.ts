/**
 * Persistence (`stateFile`: round trip across restarts, one file left at rest, corrupt file is a
 * clear error and is left untouched) and the `maintenance-mcp sandbox` command. The journal, the
 * lock and deep validation have their own files: state-store.test.ts, state-durability.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runSandboxCommand } from "../../src/sandbox/cli.js";
import { startSandbox } from "../../src/sandbox/index.js";
import { bearer, type Envelope, token } from "./helpers.js";

/** Run the sandbox command with stdout dropped; its exit code and what it wrote to stderr. */
async function runQuietly(args: string[]): Promise<{ code: number; err: string }> {
  let err = "";
  const code = await runSandboxCommand(args, { stderr: (t) => (err += t), stdout: () => {} });
  return { code, err };
}

const dir = mkdtempSync(join(tmpdir(), "sandbox-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const purchase = {
  movement_type: 1,
  document: "P-1",
  code_user: "HR-001",
  items: [{ code: "SP-1003", qty: 3, unit_cost: 9 }],
};

describe("stateFile", () => {
  it("round trip: movements, stock, counters and tokens survive a restart", async () => {
    const file = join(dir, "round.json");
    const a = await startSandbox({ stateFile: file });
    const tok = await token(a);
    const first = await bearer<Envelope<{ folio_target: string }>>(
      a,
      tok,
      "POST",
      "/api/warehouse_entries_orders/WH-MAIN",
      purchase,
    );
    expect(first.status).toBe(200);
    const stock = a.state.warehouses[0]!.stock["SP-1003"];
    await a.close();
    // At rest a stopped sandbox leaves one file: no journal, lock or temp file beside it.
    expect(readdirSync(dir).filter((f) => f.startsWith("round.json"))).toEqual(["round.json"]);

    const b = await startSandbox({ stateFile: file });
    try {
      expect(b.state.movements).toHaveLength(1);
      expect(b.state.warehouses[0]!.stock["SP-1003"]).toBe(stock);
      // The token issued before the restart is still valid.
      const second = await bearer<Envelope<{ folio_target: string }>>(
        b,
        tok,
        "POST",
        "/api/warehouse_entries_orders/WH-MAIN",
        purchase,
      );
      expect(second.status).toBe(200);
      expect(Number(second.body.data.folio_target)).toBe(Number(first.body.data.folio_target) + 1);
    } finally {
      await b.close();
    }
    const saved = JSON.parse(readFileSync(file, "utf8")) as { movements: unknown[] };
    expect(saved.movements).toHaveLength(2);
  });

  it("a corrupt file is a clear Error and is never overwritten", async () => {
    const file = join(dir, "corrupt.json");
    writeFileSync(file, "{ this is not json");
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      /corrupt.*not valid JSON.*left untouched/s,
    );
    expect(readFileSync(file, "utf8")).toBe("{ this is not json");
    writeFileSync(file, JSON.stringify({ version: 1, companies: "nope" }));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      /corrupt \(\$\.seed: missing \(expected number\); \$\.companies: Invalid input: expected array, received string;/,
    );
    writeFileSync(file, JSON.stringify({ version: 99 }));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(/unsupported version 99/);
    expect(readdirSync(dir).filter((f) => f.startsWith("corrupt.json"))).toEqual(["corrupt.json"]);
  });

  it("the same seed gives the same data; another seed changes the generated part only", async () => {
    const now = Date.UTC(2025, 0, 1);
    const clock = { now: () => now };
    const [x, y, z] = await Promise.all([
      startSandbox({ clock, seed: 7 }),
      startSandbox({ clock, seed: 7 }),
      startSandbox({ clock, seed: 8 }),
    ]);
    try {
      expect(x.state.budgets).toEqual(y.state.budgets);
      expect(x.state.dags).toEqual(y.state.dags);
      expect(x.state.dags[0]!.dag_id).not.toBe(z.state.dags[0]!.dag_id);
      expect(z.state.items).toEqual(x.state.items);
    } finally {
      await Promise.all([x.close(), y.close(), z.close()]);
    }
  });
});

describe("close", () => {
  it("closes keep-alive and pending connections promptly", async () => {
    const sb = await startSandbox();
    const tok = await token(sb);
    await bearer(sb, tok, "GET", "/api/warehouses_groups_1?limit=1"); // leaves an idle keep-alive socket
    sb.faults.latency(5_000, "/api/wo_budget");
    const pending = fetch(`${sb.baseUrl}/wo_budget`, { headers: { Authorization: `Bearer ${tok}` } }).catch(
      (e: Error) => e,
    );
    await new Promise((r) => setTimeout(r, 50));
    await sb.close();
    // The request held for 5 s fails now: close destroyed its socket rather than waiting for it.
    expect(await pending).toBeInstanceOf(Error);
    await sb.close(); // idempotent
  });
});

describe("maintenance-mcp sandbox", () => {
  it("prints URLs, MMS_* exports and demo credentials on stdout; serves until stopped", async () => {
    let out = "";
    let served = 0;
    const code = await runSandboxCommand(["--port", "0", "--faults", "--state", join(dir, "cli.json")], {
      stdout: (t) => {
        out += t;
      },
      until: async (sb) => {
        served = (await fetch(`${sb.url}/__faults`)).status;
      },
    });
    expect(code).toBe(0);
    expect(served).toBe(200);
    expect(out).toMatch(/export MMS_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\n/);
    expect(out).toMatch(/export MMS_AUTH_URL=http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).toMatch(/export MMS_HUB_URL=/);
    expect(out).toContain("export MMS_CLIENT_ID=demo-client");
    expect(out).toContain("readonly-client / readonly-secret");
    expect(out).toContain("demo-hawk-key");
    expect(out).toContain("sandbox stopped");
  });

  it("stops cleanly on SIGTERM", async () => {
    let out = "";
    const running = runSandboxCommand(["--port", "0"], {
      stdout: (t) => {
        out += t;
      },
    });
    await new Promise((r) => setTimeout(r, 100));
    const url = /main API\s+(\S+)/.exec(out)![1]!;
    expect((await fetch(`${url}/wo_budget`)).status).toBe(401);
    process.emit("SIGTERM");
    await expect(running).resolves.toBe(0);
    await expect(fetch(`${url}/wo_budget`)).rejects.toThrow();
  });

  it("unknown flag → message on stderr, exit code 2; --help → 0", async () => {
    let err = "";
    const code = await runSandboxCommand(["--bogus"], { stderr: (t) => (err += t), stdout: () => {} });
    expect(code).toBe(2);
    expect(err).toMatch(/Unknown option '--bogus'/);
    expect(err).toContain("Usage: maintenance-mcp sandbox");
    expect(await runSandboxCommand(["--port", "x"], { stderr: () => {} })).toBe(2);
    let help = "";
    expect(await runSandboxCommand(["--help"], { stdout: (t) => (help += t) })).toBe(0);
    expect(help).toContain("--state FILE");
  });

  it("a corrupt state file → exit code 2 with the reason on stderr", async () => {
    const file = join(dir, "cli-corrupt.json");
    writeFileSync(file, "nope");
    let err = "";
    expect(await runSandboxCommand(["--port", "0", "--state", file], { stderr: (t) => (err += t) })).toBe(2);
    expect(err).toMatch(/corrupt/);
  });

  it('"warehouses":[null] → exit code 2 naming the JSON path; the file is left untouched', async () => {
    const seeded = join(dir, "cli-seeded.json");
    const sb = await startSandbox({ stateFile: seeded });
    await sb.close();
    const state = JSON.parse(readFileSync(seeded, "utf8")) as Record<string, unknown>;
    const file = join(dir, "cli-null.json");
    const text = JSON.stringify({ ...state, warehouses: [null] });
    writeFileSync(file, text);
    const { code, err } = await runQuietly(["--port", "0", "--state", file]);
    expect(code).toBe(2);
    expect(err).toContain(
      `Sandbox state file ${file} is corrupt ($.warehouses[0]: Invalid input: expected object`,
    );
    expect(err).toContain("left untouched");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(readdirSync(dir).filter((f) => f.startsWith("cli-null.json"))).toEqual(["cli-null.json"]);
  });

  it("--state in a missing folder → exit code 2 naming the folder and the fix", async () => {
    const missing = join(dir, "no", "such");
    const { code, err } = await runQuietly(["--port", "0", "--state", join(missing, "state.json")]);
    expect(code).toBe(2);
    expect(err).toContain(`the folder ${missing} does not exist`);
    expect(err).toContain(`mkdir -p "${missing}"`);
    expect(err).not.toMatch(/ENOENT|\.tmp/);
  });

  it("a state file in use by another sandbox → exit code 2 naming the file and the holder's pid", async () => {
    const file = join(dir, "cli-locked.json");
    const holder = await startSandbox({ stateFile: file });
    try {
      const { code, err } = await runQuietly(["--port", "0", "--state", file]);
      expect(code).toBe(2);
      expect(err).toContain(
        `Sandbox state file ${file} is in use by another sandbox (process ${process.pid},`,
      );
      expect(err).toContain("use another --state file");
    } finally {
      await holder.close();
    }
  });
});
