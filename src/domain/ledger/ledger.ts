/**
 * A tenant's ledger of budgets seen (interface.md §6f): one record per tenant (a file, or a Redis key
 * with a TTL), named by a hash of the tenant, so one tenant's ledger is never read for another and
 * its name shows neither. A review reads one record, never a listing of records: its cost does not
 * grow with what other tenants keep. Writes are read-merge-write under the tenant's lock (in this
 * process and across processes or replicas): two reviews at once both land, or the one that could
 * not get the lock says it was not stored. Retention applies on every read; the sweep runs on write.
 */
import { createHash } from "node:crypto";
import { inflate, type Ledger, unpack } from "./format.js";
import { Versions } from "./versions.js";

/** Where ledgers are kept: a directory of files, or Redis. */
export interface LedgerBackend {
  /** In words, for notes and logs ("files in /home/u/.local/state/maintenance-mcp", "Redis"). */
  readonly where: string;
  read(name: string): Promise<Buffer | undefined>;
  /**
   * Under the record's lock: `change` gets the record as it is and gives the new one (undefined:
   * leave it). False when the lock could not be had in time: nothing was written.
   */
  update(
    name: string,
    change: (current: Buffer | undefined) => Buffer | undefined,
    ttlMs: number,
  ): Promise<boolean>;
  /** Move an unreadable record out of the way; returns its new name. */
  setAside(name: string): Promise<string>;
  close?(): Promise<void>;
}

export interface LedgerSettings {
  /** MMS_REVIEW_HISTORY_DAYS (> 0). */
  days: number;
  /** MMS_REVIEW_HISTORY_MB, in bytes, per tenant. */
  maxBytes: number;
}

export const DAY_MS = 86_400_000;

const hex = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 24);

/** What the tenant's ledger holds, or why it could not be read. */
export type Loaded =
  | { kind: "none" }
  | { kind: "ledger"; ledger: Ledger; bytes: Buffer; versions: Versions }
  | { kind: "unreadable"; why: string; setAsideAs: string | undefined };

/** Decoded ledgers this process wrote or read last, by record name (a few: each is a tenant's whole ledger). */
const recent = new Map<string, { bytes: Buffer; versions: Versions }>();
const RECENT_MAX = 4;

export class TenantLedger {
  readonly name: string;

  constructor(
    readonly backend: LedgerBackend,
    readonly settings: LedgerSettings,
    tenant: string,
  ) {
    this.name = `ledger-${hex(`tenant:${tenant}`)}`;
  }

  get retentionMs(): number {
    return this.settings.days * DAY_MS;
  }

  /** The ledger, decoded; one that does not parse is set aside and said. */
  async load(): Promise<Loaded> {
    let data: Buffer | undefined;
    try {
      data = await this.backend.read(this.name);
    } catch (e) {
      // Not a regular file, or larger than any ledger of ours: out of the way, never opened again.
      if ((e as { unsafe?: boolean }).unsafe !== true) throw e;
      return this.#aside((e as Error).message);
    }
    if (data === undefined) return { kind: "none" };
    try {
      const ledger = unpack(data);
      return {
        kind: "ledger",
        ledger,
        bytes: data,
        versions: Versions.decode(inflate(ledger), ledger.header.n),
      };
    } catch (e) {
      return this.#aside(e instanceof Error ? e.message : String(e));
    }
  }

  async #aside(why: string): Promise<Loaded> {
    const setAsideAs = await this.backend.setAside(this.name).catch(() => undefined);
    return { kind: "unreadable", why, setAsideAs };
  }

  /** Keep `decoded` as this tenant's latest (a few tenants at most, the oldest out). */
  remember(decoded: { bytes: Buffer; versions: Versions }): void {
    recent.delete(this.name);
    recent.set(this.name, decoded);
    while (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  }

  update(change: (current: Buffer | undefined) => Buffer | undefined): Promise<boolean> {
    return this.backend.update(this.name, change, this.retentionMs);
  }
}

/** The ledgers of every tenant of a process, or why there are none. */
export type ProcessLedger =
  | { on: true; backend: LedgerBackend; settings: LedgerSettings }
  | { on: false; why: string };

/** A tenant's ledger, or why it is off. */
export type LedgerOf = { on: true; ledger: TenantLedger } | { on: false; why: string };

export function ledgerFor(process: ProcessLedger | undefined, tenant: string): LedgerOf {
  if (process === undefined) return { on: false, why: "this server keeps no review history" };
  if (!process.on) return process;
  return { on: true, ledger: new TenantLedger(process.backend, process.settings, tenant) };
}

/** An error a backend throws for a record it refuses to open (not a regular file, far too large). */
export function unsafeRecord(message: string): Error {
  return Object.assign(new Error(message), { unsafe: true });
}
