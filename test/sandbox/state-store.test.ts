/**
 * The state file's store (in process): one sandbox per file (lock, stale-lock takeover), every
 * answered write already on disk, journal replay (torn line, stale generation, corrupt line),
 * compaction, deep validation after replay, and a write cost that does not grow with the state.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type SandboxHandle, type SandboxState, startSandbox } from "../../src/sandbox/index.js";
import { createSeedState } from "../../src/sandbox/seed-state.js";
import { applyOps, JournalWriter, trackMutations } from "../../src/sandbox/state-journal.js";
import { journalPath, openStateStore } from "../../src/sandbox/state-store.js";
import { createLogger } from "../../src/telemetry/logger.js";
import { bearer, type Envelope, token } from "./helpers.js";

// dated-tests: skip (its dated seeds are state files the sandbox loads; no clock reads them)
const dir = mkdtempSync(join(tmpdir(), "sandbox-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (document: string) => ({
  movement_type: 1,
  document,
  code_user: "HR-001",
  items: [{ code: "SP-1003", qty: 1, unit_cost: 2 }],
});

async function post(sb: SandboxHandle, tok: string, document: string) {
  return bearer<Envelope<{ id: number; folio_target: string }>>(
    sb,
    tok,
    "POST",
    "/api/warehouse_entries_orders/WH-MAIN",
    entry(document),
  );
}

function captureLogs() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: "info", sink: (l: string) => lines.push(l) }) };
}

describe("one sandbox per state file", () => {
  it("a second instance is refused naming the file and the pid; the first keeps every entry", async () => {
    const file = join(dir, "two.json");
    const a = await startSandbox({ stateFile: file });
    const tok = await token(a);
    expect((await post(a, tok, "A-1")).status).toBe(200);
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      `Sandbox state file ${file} is in use by another sandbox (process ${process.pid},`,
    );
    expect((await post(a, tok, "A-2")).status).toBe(200);
    await a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);

    const b = await startSandbox({ stateFile: file });
    try {
      const docs = b.state.movements.map((m) => m.movement.document);
      expect(docs).toEqual(["A-1", "A-2"]);
      const next = await post(b, await token(b), "B-1");
      const ids = b.state.movements.map((m) => m.movement.id);
      expect(new Set(ids).size).toBe(3); // no id handed out twice
      expect(next.body.data.id).toBe(Math.max(...ids));
    } finally {
      await b.close();
    }
  });

  it("a lock left by a dead process is taken over, with a warning", async () => {
    const file = join(dir, "stale.json");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    const pid = Number(dead.stdout.toString());
    writeFileSync(`${file}.lock`, JSON.stringify({ pid, host: hostname(), since: "2020-01-01T00:00:00Z" }));
    const { lines, logger } = captureLogs();
    const sb = await startSandbox({ stateFile: file, logger });
    try {
      expect(JSON.parse(readFileSync(`${file}.lock`, "utf8")).pid).toBe(process.pid);
      expect(lines.join("\n")).toMatch(/lock was stale.*"pid":\d+/);
    } finally {
      await sb.close();
    }
  });

  it("a lock held on another host is never taken over", async () => {
    const file = join(dir, "remote.json");
    writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, host: "elsewhere.example", since: "x" }));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      "in use by another sandbox (process 1 on elsewhere.example, since x)",
    );
    writeFileSync(`${file}.lock`, "");
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      `If no other sandbox uses this file, delete ${file}.lock`,
    );
  });
});

describe("durability", () => {
  it.runIf(existsSync("/dev/full"))(
    "a journal that cannot be written fails every wait, never resolves it",
    async () => {
      const writer = new JournalWriter(await open("/dev/full", "a"));
      writer.record('["s",["x"],1]');
      await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
      writer.record('["s",["x"],2]');
      await expect(writer.durable()).rejects.toThrow(/ENOSPC/);
      expect(writer.error?.message).toMatch(/ENOSPC/);
      await writer.close();
    },
  );

  it("every write answered 200 is already on disk (a copy of the files taken then holds it)", async () => {
    const file = join(dir, "durable.json");
    const sb = await startSandbox({ stateFile: file });
    const tok = await token(sb);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(sb, tok, `D-${i}`)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // What a crash at this instant would leave: the snapshot and the journal (the lock is not needed).
    const crash = join(dir, "durable-crash.json");
    copyFileSync(file, crash);
    copyFileSync(journalPath(file), journalPath(crash));
    await sb.close();

    const after = await startSandbox({ stateFile: crash });
    try {
      const docs = new Set(after.state.movements.map((m) => m.movement.document));
      for (let i = 0; i < 40; i++) expect(docs.has(`D-${i}`)).toBe(true);
      expect(after.state.counters.movement).toBe(sb.state.counters.movement);
      expect(after.state.warehouses).toEqual(sb.state.warehouses);
    } finally {
      await after.close();
    }
    expect(existsSync(journalPath(crash))).toBe(false); // the replayed journal was folded in at close
  });
});

describe("write cost", () => {
  it("the bytes appended per write do not depend on the size of the state", async () => {
    const small = join(dir, "small.json");
    const large = join(dir, "large.json");
    const seeded = await startSandbox({ stateFile: small });
    await seeded.close();
    const state = JSON.parse(readFileSync(small, "utf8")) as SandboxState;
    const filler = state.budgets[0]!;
    for (let i = 0; i < 20_000; i++)
      state.budgets.push({ ...filler, record: { ...filler.record, id: 100_000 + i } });
    writeFileSync(large, JSON.stringify(state));

    const appended = async (file: string) => {
      const sb = await startSandbox({ stateFile: file });
      try {
        const tok = await token(sb);
        const mark = statSync(journalPath(file)).size;
        expect((await post(sb, tok, "COST-1")).status).toBe(200);
        return statSync(journalPath(file)).size - mark;
      } finally {
        await sb.close();
      }
    };
    const s = await appended(small);
    const l = await appended(large);
    expect(statSync(large).size - statSync(small).size).toBeGreaterThan(10_000_000);
    expect(s).toBeGreaterThan(100);
    expect(s).toBeLessThan(4_096);
    // Same change, same journal line (give or take the digits of ids and stock figures).
    expect(Math.abs(l - s)).toBeLessThan(16);
  });
});

describe("journal replay", () => {
  const cases: Array<[string, (s: SandboxState) => void]> = [
    [
      "push onto an array",
      (s) => void s.dags.push({ companyId: 1, dag_id: "x", description: "d", last_run: "r" }),
    ],
    [
      "nested set",
      (s) => {
        s.warehouses[0]!.stock["SP-1003"] = 5;
      },
    ],
    [
      "new key",
      (s) => {
        s.warehouses[0]!.serials["TL-1001"] = ["A", "B"];
      },
    ],
    ["delete a key", (s) => void delete s.warehouses[0]!.stock["TL-1002"]],
    [
      "set to undefined",
      (s) => {
        (s.items[0] as { averageCost: unknown }).averageCost = undefined;
      },
    ],
    ["splice in the middle", (s) => void s.taxes.splice(1, 1)],
    ["sort in place", (s) => void s.currencies.sort((a, b) => b.id - a.id)],
    [
      "an object moved, then changed through the old reference (stored as a copy: no effect)",
      (s) => {
        const moved = s.taskPlans.shift()!;
        s.taskPlans.push(moved);
        moved.description = "changed after the move";
      },
    ],
    [
      "an object moved, then changed through the state",
      (s) => {
        s.taskPlans.push(s.taskPlans.shift()!);
        s.taskPlans.at(-1)!.description = "changed after the move";
      },
    ],
    [
      "increment",
      (s) => {
        s.counters.movement += 3;
      },
    ],
  ];
  it.each(cases)("%s: replaying the ops gives the same state", (_name, mutate) => {
    const base = JSON.parse(JSON.stringify(createSeedState(1, Date.UTC(2025, 0, 1)))) as SandboxState;
    const live = JSON.parse(JSON.stringify(base)) as SandboxState;
    const ops: string[] = [];
    mutate(trackMutations(live, (op) => ops.push(op)));
    expect(ops.length).toBeGreaterThan(0);
    const replayed = JSON.parse(JSON.stringify(base)) as SandboxState;
    applyOps(replayed, JSON.parse(`[${ops.join(",")}]`));
    expect(replayed).toEqual(JSON.parse(JSON.stringify(live)));
  });

  async function withJournal(name: string, lines: (generation: number) => string) {
    const file = join(dir, name);
    const sb = await startSandbox({ stateFile: file });
    await sb.close();
    const generation = (JSON.parse(readFileSync(file, "utf8")) as { journalGeneration: number })
      .journalGeneration;
    writeFileSync(journalPath(file), lines(generation));
    return file;
  }
  const setStock = (n: number) => JSON.stringify({ ops: [["s", ["warehouses", 0, "stock", "SP-1003"], n]] });

  it("a torn last line (a crash mid-append, never answered) is dropped with a warning", async () => {
    const file = await withJournal(
      "torn.json",
      (g) => `{"generation":${g}}\n${setStock(111)}\n{"ops":[["s",["war`,
    );
    const { lines, logger } = captureLogs();
    const sb = await startSandbox({ stateFile: file, logger });
    try {
      expect(sb.state.warehouses[0]!.stock["SP-1003"]).toBe(111);
      expect(lines.join("\n")).toContain("dropped a torn last line");
    } finally {
      await sb.close();
    }
  });

  it("after a torn tail is cut, later writes append cleanly and replay", async () => {
    const file = await withJournal("torn-append.json", (g) => `{"generation":${g}}\n${setStock(7)}\n{"op`);
    const seed = () => createSeedState(1, Date.UTC(2025, 0, 1));
    const store = await openStateStore(file, seed, createLogger({ level: "error" }));
    store.state.warehouses[1]!.stock["SP-1003"] = 8;
    await store.durable();
    expect(readFileSync(journalPath(file), "utf8")).not.toContain('{"op\n');
    const crash = join(dir, "torn-append-crash.json");
    copyFileSync(file, crash);
    copyFileSync(journalPath(file), journalPath(crash));
    await store.close();
    const again = await openStateStore(crash, seed, createLogger({ level: "error" }));
    try {
      expect(again.state.warehouses[0]!.stock["SP-1003"]).toBe(7);
      expect(again.state.warehouses[1]!.stock["SP-1003"]).toBe(8);
    } finally {
      await again.close();
    }
  });

  it("a journal of another generation (a crash mid-compaction) is ignored", async () => {
    const file = await withJournal("stale-gen.json", (g) => `{"generation":${g - 1}}\n${setStock(222)}\n`);
    const sb = await startSandbox({ stateFile: file });
    try {
      expect(sb.state.warehouses[0]!.stock["SP-1003"]).toBe(80);
    } finally {
      await sb.close();
    }
  });

  it("a corrupt line in the middle is refused naming the journal and the line; nothing is written", async () => {
    const file = await withJournal("bad-line.json", (g) => `{"generation":${g}}\nnot json\n${setStock(1)}\n`);
    const before = readFileSync(file, "utf8");
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      `Sandbox state journal ${journalPath(file)} is corrupt at line 2 (not valid JSON)`,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("a journal that leaves a bad value is refused with the JSON path", async () => {
    const file = await withJournal(
      "bad-value.json",
      (g) => `{"generation":${g}}\n${JSON.stringify({ ops: [["s", ["warehouses", 1], null]] })}\n`,
    );
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      /corrupt after replaying 1 line\(s\) of .*\.journal \(\$\.warehouses\[1\]: Invalid input: expected object, received null\)/,
    );
  });

  it("a journal without its snapshot is refused", async () => {
    const file = join(dir, "orphan.json");
    writeFileSync(journalPath(file), '{"generation":1}\n');
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      `Sandbox state file ${file} is missing but its journal ${journalPath(file)} exists`,
    );
  });

  it("counters below an id in use are refused (they would hand that id out twice)", async () => {
    const file = join(dir, "counters.json");
    const sb = await startSandbox({ stateFile: file });
    await post(sb, await token(sb), "C-1");
    await sb.close();
    const state = JSON.parse(readFileSync(file, "utf8")) as SandboxState;
    state.counters.movement = 1;
    writeFileSync(file, JSON.stringify(state));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(
      /\$\.counters\.movement: 1 is below the highest id in use \(901\)/,
    );
  });
});

describe("compaction", () => {
  it("a state too large to rewrite at every stop keeps its journal at close, replayed next start", async () => {
    const file = join(dir, "keep.json");
    const seed = () => createSeedState(1, Date.UTC(2025, 0, 1));
    const logger = createLogger({ level: "error" });
    const store = await openStateStore(file, seed, logger, { compactMinBytes: 1 });
    const snapshot = readFileSync(file, "utf8");
    store.state.counters.movementFolio += 5;
    const expected = store.state.counters.movementFolio;
    await store.close();
    expect(readFileSync(file, "utf8")).toBe(snapshot);
    expect(readFileSync(journalPath(file), "utf8").split("\n")).toHaveLength(3); // header, one line, ""
    expect(existsSync(`${file}.lock`)).toBe(false);
    const again = await openStateStore(file, seed, logger);
    try {
      expect(again.state.counters.movementFolio).toBe(expected);
    } finally {
      await again.close();
    }
    expect(existsSync(journalPath(file))).toBe(false);
  });

  it("a journal past its size bound is folded into a new snapshot while running", async () => {
    const file = join(dir, "compact.json");
    const seed = () => createSeedState(1, Date.UTC(2025, 0, 1));
    const store = await openStateStore(file, seed, createLogger({ level: "error" }), { compactMinBytes: 1 });
    const snapshotGeneration = () =>
      (JSON.parse(readFileSync(file, "utf8")) as { journalGeneration: number }).journalGeneration;
    const first = snapshotGeneration();
    const big = "x".repeat(4096);
    // The bound is max(compactMinBytes, snapshot size): write past the snapshot's size.
    const rounds = Math.ceil(statSync(file).size / 4096) + 5;
    for (let i = 0; i < rounds; i++) {
      store.state.dags.push({ companyId: 1, dag_id: `d${i}`, description: big, last_run: "" });
      await store.durable();
    }
    expect(snapshotGeneration()).toBeGreaterThan(first);
    expect(statSync(journalPath(file)).size).toBeLessThan(statSync(file).size);
    const dags = store.state.dags.length;
    await store.close();

    const again = await openStateStore(file, seed, createLogger({ level: "error" }));
    try {
      expect(again.state.dags).toHaveLength(dags);
    } finally {
      await again.close();
    }
  });
});
