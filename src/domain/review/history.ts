/**
 * The history of reviews (interface.md §6e): per tenant and filter set, the reviews taken, each
 * compact (history-codec.ts), kept MMS_REVIEW_HISTORY_DAYS and within MMS_REVIEW_HISTORY_MB per
 * tenant, oldest dropped first. Where it lives is a backend's business (files or Redis:
 * src/hosting/history-store.ts); names derive from hashes of the tenant and of the filter key, so
 * one tenant's history is never read for another and a name shows neither. A record (file or key)
 * that does not parse is set aside under another name and reported, never a crash.
 */
import { createHash } from "node:crypto";

/** Where records are kept: a directory of files, or Redis. */
export interface HistoryBackend {
  /** In words, for notes and logs ("files in /home/u/.local/state/maintenance-mcp", "Redis"). */
  readonly where: string;
  read(name: string): Promise<Buffer | undefined>;
  /** Replace the record atomically (a reader sees the old one or the new one). */
  write(name: string, data: Buffer): Promise<void>;
  /** The records whose name starts with `prefix`, and their sizes. */
  list(prefix: string): Promise<{ name: string; bytes: number }[]>;
  remove(name: string): Promise<void>;
  /** Move an unreadable record out of the way; returns its new name. */
  setAside(name: string): Promise<string>;
  close?(): Promise<void>;
}

/** One stored review: when it was read (epoch ms), whether whole, its budgets' rows (gzipped). */
export interface Entry {
  at: number;
  complete: boolean;
  count: number;
  blob: Buffer;
}

interface Header {
  v: 1;
  key: string;
  entries: { at: number; complete: boolean; count: number; bytes: number }[];
}

const MAGIC = "MMSH1\n";
const DAY_MS = 86_400_000;

const hex = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 24);

/** A record: the filter key it belongs to (checked: a hash collision is no match) and its entries, oldest first. */
export interface HistoryRecord {
  key: string;
  entries: Entry[];
}

export function packRecord(record: HistoryRecord): Buffer {
  const header: Header = {
    v: 1,
    key: record.key,
    entries: record.entries.map(({ at, complete, count, blob }) => ({
      at,
      complete,
      count,
      bytes: blob.length,
    })),
  };
  return Buffer.concat([
    Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`),
    ...record.entries.map((e) => e.blob),
  ]);
}

/** The record in `data`; throws when it is not one packRecord wrote. */
export function unpackRecord(data: Buffer): HistoryRecord {
  if (data.subarray(0, MAGIC.length).toString() !== MAGIC) throw new Error("not a history record");
  const end = data.indexOf(0x0a, MAGIC.length);
  if (end === -1) throw new Error("no header");
  const header = JSON.parse(data.subarray(MAGIC.length, end).toString("utf8")) as Header;
  if (header.v !== 1 || typeof header.key !== "string" || !Array.isArray(header.entries))
    throw new Error("not a version 1 header");
  let at = end + 1;
  const entries = header.entries.map((e) => {
    if (!Number.isFinite(e.at) || !Number.isInteger(e.bytes) || e.bytes < 0) throw new Error("a bad entry");
    const blob = data.subarray(at, at + e.bytes);
    at += e.bytes;
    if (blob.length !== e.bytes) throw new Error("cut short");
    return { at: e.at, complete: e.complete === true, count: e.count, blob };
  });
  if (at !== data.length) throw new Error("trailing bytes");
  return { key: header.key, entries };
}

export interface HistorySettings {
  /** MMS_REVIEW_HISTORY_DAYS (> 0). */
  days: number;
  /** MMS_REVIEW_HISTORY_MB, in bytes, per tenant. */
  maxBytes: number;
}

/** What the tenant's record of a filter key holds, or why it could not be read. */
export type Loaded =
  | { kind: "none" }
  | { kind: "record"; record: HistoryRecord }
  | { kind: "unreadable"; why: string; setAsideAs: string | undefined };

export class TenantHistory {
  readonly #prefix: string;
  /** Writes of one name run one after another in this process. */
  readonly #queue = new Map<string, Promise<unknown>>();

  constructor(
    readonly backend: HistoryBackend,
    readonly settings: HistorySettings,
    tenant: string,
  ) {
    this.#prefix = `${hex(`tenant:${tenant}`)}-`;
  }

  nameOf(key: string): string {
    return `${this.#prefix}${hex(`filters:${key}`)}`;
  }

  /** The record of `key`; one that does not parse (or holds another key) is set aside and said. */
  async load(key: string): Promise<Loaded> {
    const name = this.nameOf(key);
    const data = await this.backend.read(name);
    if (data === undefined) return { kind: "none" };
    try {
      const record = unpackRecord(data);
      if (record.key !== key) throw new Error("it belongs to other filters");
      return { kind: "record", record };
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      const setAsideAs = await this.backend.setAside(name).catch(() => undefined);
      return { kind: "unreadable", why, setAsideAs };
    }
  }

  /** Add `entry` to the record of `key` (given as loaded), drop what is past the days, then keep the tenant within its bytes. */
  async add(
    key: string,
    loaded: HistoryRecord | undefined,
    entry: Entry,
    now: number,
  ): Promise<{ kept: boolean }> {
    const name = this.nameOf(key);
    return this.#serial(name, async () => {
      const oldest = now - this.settings.days * DAY_MS;
      const entries = [...(loaded?.entries ?? []).filter((e) => e.at >= oldest && e.at !== entry.at), entry];
      entries.sort((a, b) => a.at - b.at);
      await this.backend.write(name, packRecord({ key, entries }));
      const dropped = await this.#withinBytes();
      return { kept: !dropped.has(`${name}@${entry.at}`) };
    });
  }

  /** Oldest entries of every record of the tenant out until its records fit MMS_REVIEW_HISTORY_MB. */
  async #withinBytes(): Promise<Set<string>> {
    const dropped = new Set<string>();
    const listed = await this.backend.list(this.#prefix);
    let total = listed.reduce((n, r) => n + r.bytes, 0);
    if (total <= this.settings.maxBytes) return dropped;
    const records = new Map<string, HistoryRecord>();
    for (const { name } of listed) {
      const data = await this.backend.read(name);
      if (data === undefined) continue;
      try {
        records.set(name, unpackRecord(data));
      } catch {
        // Set aside when its own filters are next reviewed; it still counts here.
      }
    }
    const all = [...records].flatMap(([name, r]) => r.entries.map((e) => ({ name, e })));
    all.sort((a, b) => a.e.at - b.e.at);
    const touched = new Set<string>();
    for (const { name, e } of all) {
      if (total <= this.settings.maxBytes) break;
      const r = records.get(name)!;
      r.entries = r.entries.filter((x) => x !== e);
      total -= e.blob.length;
      dropped.add(`${name}@${e.at}`);
      touched.add(name);
    }
    for (const name of touched) {
      const r = records.get(name)!;
      if (r.entries.length === 0) await this.backend.remove(name);
      else await this.backend.write(name, packRecord(r));
    }
    return dropped;
  }

  #serial<T>(name: string, task: () => Promise<T>): Promise<T> {
    const before = this.#queue.get(name) ?? Promise.resolve();
    const run = before.then(task, task);
    const settled = run.catch(() => {});
    this.#queue.set(name, settled);
    void settled.then(() => {
      if (this.#queue.get(name) === settled) this.#queue.delete(name);
    });
    return run;
  }
}

/** The history of every tenant of a process, or why there is none. */
export type ProcessHistory =
  | { on: true; backend: HistoryBackend; settings: HistorySettings }
  | { on: false; why: string };

/** A tenant's history, or why it is off. */
export type HistoryOf = { on: true; history: TenantHistory } | { on: false; why: string };

export function historyFor(process: ProcessHistory | undefined, tenant: string): HistoryOf {
  if (process === undefined) return { on: false, why: "this server keeps no review history" };
  if (!process.on) return process;
  return { on: true, history: new TenantHistory(process.backend, process.settings, tenant) };
}

/** The latest entry asked for: "previous" (before `now`), or taken at or before `notAfter`. */
export function pickEntry(entries: readonly Entry[], notAfter: number): Entry | undefined {
  let best: Entry | undefined;
  for (const e of entries) if (e.at <= notAfter && (best === undefined || e.at > best.at)) best = e;
  return best;
}
