/**
 * `kill -9` of a sandbox process mid-load (the built binary, `dist/`): every entry answered 200
 * before the kill is present after a restart on the same state file, the lock named the running
 * process while it lived, and the lock it left behind is taken over as stale.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_CREDENTIALS, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv } from "../e2e/bin.js";
import { basic } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "sandbox-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORKERS = 12;
const KILL_AFTER_ANSWERS = 400;

describe("kill -9 mid-load", () => {
  it("loses no entry that was answered 200", { timeout: 60_000 }, async () => {
    const file = join(dir, "state.json");
    const child = spawn(process.execPath, [BIN, "sandbox", "--port", "0", "--state", file], {
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const exited = once(child, "exit");
    const origin = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sandbox not ready: ${out}`)), 15_000);
      child.stdout.on("data", () => {
        const m = /token\s+(\S+)\/oauth\/token/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });

    // While it runs, the lock names it.
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      `is in use by another sandbox (process ${child.pid},`,
    );

    const c = DEMO_CREDENTIALS.oauth.demo;
    const tokenRes = await fetch(`${origin}/oauth/token`, {
      method: "POST",
      headers: {
        Authorization: basic(c.clientId, c.clientSecret),
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    const tok = ((await tokenRes.json()) as { access_token: string }).access_token;

    const answered: string[] = [];
    let sent = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const document = `K-${sent++}`;
        try {
          const res = await fetch(`${origin}/api/warehouse_entries_orders/WH-MAIN`, {
            method: "POST",
            headers: { Authorization: `Bearer ${tok}`, "Content-Type": "application/json" },
            body: JSON.stringify({
              movement_type: 1,
              document,
              code_user: "HR-001",
              items: [{ code: "SP-1003", qty: 1, unit_cost: 2 }],
            }),
          });
          await res.text();
          if (res.status === 200) answered.push(document);
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    const deadline = Date.now() + 30_000;
    while (answered.length < KILL_AFTER_ANSWERS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGKILL"); // requests are in flight at this instant
    await exited;
    stop = true;
    await Promise.all(workers);
    expect(answered.length).toBeGreaterThanOrEqual(KILL_AFTER_ANSWERS);

    // The dead process's lock is stale: a restart takes it over and replays the journal.
    const sb = await startSandbox({ stateFile: file });
    try {
      const present = new Set(sb.state.movements.map((m) => m.movement.document));
      const lost = answered.filter((d) => !present.has(d));
      expect(lost).toEqual([]);
      expect(present.size).toBeLessThanOrEqual(sent);
      const ids = sb.state.movements.map((m) => m.movement.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(sb.state.counters.movement).toBe(Math.max(...ids));
    } finally {
      await sb.close();
    }
  });
});
