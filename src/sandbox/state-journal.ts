/**
 * The write-ahead journal of a state file (`FILE.journal`): every mutation of the live state is
 * recorded as an absolute operation (`["s", path, value]` set, `["d", path]` delete) by a proxy
 * around the state, so routes need no persistence code. Operations are appended as JSON lines,
 * several requests per line when they arrive together (group commit), each line written and
 * fsync'd before `durable()` resolves. A write therefore costs the size of what changed, never the
 * size of the whole state. The first line names the journal's generation (see state-store.ts).
 */
import type { FileHandle } from "node:fs/promises";
import { jsonPath } from "./state-schema.js";

export type PathKey = string | number;
interface Node {
  proxy: object;
  parent: object | undefined;
  key: PathKey;
}

/**
 * A proxy over `root` that reports every set and delete, at any depth, as one serialised op.
 * IMPORTANT: the state must be plain, unaliased JSON data. A value stored through the proxy is
 * stored as a copy of what was journaled, so a reference kept aside no longer changes the state;
 * a write through a proxy whose object left the state (detached) changes neither state nor journal.
 */
export function trackMutations<T extends object>(root: T, record: (op: string) => void): T {
  const nodes = new WeakMap<object, Node>();
  const targets = new WeakMap<object, object>();

  /** Where `target` is in the state now; undefined when it is no longer part of it (detached). */
  const pathOf = (target: object): PathKey[] | undefined => {
    const path: PathKey[] = [];
    let child = target;
    for (let n = nodes.get(child); n?.parent !== undefined; n = nodes.get(child)) {
      if (Reflect.get(n.parent, n.key) !== child) return undefined;
      path.push(n.key);
      child = n.parent;
    }
    return child === root ? path.reverse() : undefined;
  };
  const keyOf = (target: object, key: string): PathKey =>
    Array.isArray(target) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
  const unwrap = (v: unknown): unknown => (typeof v === "object" && v !== null ? (targets.get(v) ?? v) : v);

  const handler: ProxyHandler<object> = {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof key === "symbol" || typeof value !== "object" || value === null) return value;
      const k = keyOf(target, key);
      const known = nodes.get(value);
      if (known && known.parent === target && known.key === k) return known.proxy;
      return wrap(value, target, k);
    },
    set(target, key, value) {
      if (typeof key === "symbol") return Reflect.set(target, key, value);
      const raw = unwrap(value);
      const at = pathOf(target);
      // A detached object (replaced or removed meanwhile) is no longer the state: nothing to journal.
      if (at === undefined) return Reflect.set(target, key, raw);
      const path = [...at, keyOf(target, key)];
      if (raw === undefined && !Array.isArray(target)) {
        // JSON has no undefined: such a property is absent from the snapshot, so it is a delete.
        return handler.deleteProperty!(target, key);
      }
      if (typeof raw !== "object" || raw === null) {
        if (Object.is(Reflect.get(target, key), raw)) return true;
        const op = JSON.stringify(["s", path, raw ?? null]);
        if (!Reflect.set(target, key, raw ?? null)) return false;
        record(op);
        return true;
      }
      // Store a copy of exactly what was journaled: memory and disk cannot differ (no aliasing,
      // no values JSON cannot hold), and a reference kept aside cannot change the state unseen.
      const json = JSON.stringify(raw);
      if (!Reflect.set(target, key, JSON.parse(json))) return false;
      record(`["s",${JSON.stringify(path)},${json}]`);
      return true;
    },
    deleteProperty(target, key) {
      const had = typeof key !== "symbol" && Object.hasOwn(target, key);
      const at = had ? pathOf(target) : undefined;
      if (!Reflect.deleteProperty(target, key)) return false;
      if (at !== undefined) record(JSON.stringify(["d", [...at, keyOf(target, key as string)]]));
      return true;
    },
    defineProperty(target, key, desc) {
      if (typeof key === "symbol" || !("value" in desc)) return Reflect.defineProperty(target, key, desc);
      return handler.set!(target, key, desc.value, target);
    },
  };

  function wrap(target: object, parent: object | undefined, key: PathKey): object {
    const proxy = new Proxy(target, handler);
    nodes.set(target, { proxy, parent, key });
    targets.set(proxy, target);
    return proxy;
  }
  return wrap(root, undefined, "") as T;
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Apply one journal line's ops to `state`; throws an Error naming the bad path. */
export function applyOps(state: object, ops: unknown): void {
  if (!Array.isArray(ops)) throw new Error('"ops" is not an array');
  for (const op of ops as unknown[]) {
    if (
      !Array.isArray(op) ||
      (op[0] !== "s" && op[0] !== "d") ||
      !Array.isArray(op[1]) ||
      op[1].length === 0
    ) {
      throw new Error(`malformed operation ${JSON.stringify(op)?.slice(0, 200)}`);
    }
    const path = op[1] as unknown[];
    if (!path.every((k) => (typeof k === "string" && !FORBIDDEN_KEYS.has(k)) || Number.isInteger(k))) {
      throw new Error(`malformed path ${JSON.stringify(path).slice(0, 200)}`);
    }
    let parent: unknown = state;
    for (const k of path.slice(0, -1)) {
      parent = (parent as Record<PathKey, unknown>)[k as PathKey];
      if (typeof parent !== "object" || parent === null) {
        throw new Error(`${jsonPath(path as PathKey[])} does not exist in the state`);
      }
    }
    const last = path.at(-1) as PathKey;
    if (op[0] === "s") (parent as Record<PathKey, unknown>)[last] = op[2];
    else delete (parent as Record<PathKey, unknown>)[last];
  }
}

/** Appends recorded ops to the journal file; `durable()` resolves once everything recorded so far is fsync'd. */
export class JournalWriter {
  #fh: FileHandle;
  #pending: string[] = [];
  #recorded = 0;
  #written = 0;
  #flushing: Promise<void> | undefined;
  #scheduled = false;
  #error: Error | undefined;
  #onFlushed: (bytes: number) => void;
  /** Bytes appended since this writer was opened. */
  bytes = 0;

  constructor(fh: FileHandle, onFlushed: (bytes: number) => void = () => {}) {
    this.#fh = fh;
    this.#onFlushed = onFlushed;
  }

  /** The error that broke the journal, if any; after it nothing more is written. */
  get error(): Error | undefined {
    return this.#error;
  }

  record(op: string): void {
    if (this.#error) return;
    this.#pending.push(op);
    this.#recorded += 1;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        void this.durable().catch(() => {});
      });
    }
  }

  /** Resolves when every op recorded before this call is on disk (written and fsync'd); rejects if that failed. */
  async durable(): Promise<void> {
    const target = this.#recorded;
    while (this.#written < target) {
      if (this.#error) throw this.#error;
      if (!this.#flushing) this.#flushing = this.#flush().finally(() => (this.#flushing = undefined));
      await this.#flushing;
    }
    if (this.#error) throw this.#error;
  }

  async #flush(): Promise<void> {
    if (this.#error || this.#pending.length === 0) return;
    const ops = this.#pending;
    const upTo = this.#recorded;
    this.#pending = [];
    const line = Buffer.from(`{"ops":[${ops.join(",")}]}\n`);
    try {
      await this.#fh.write(line);
      await this.#fh.datasync();
    } catch (err) {
      this.#error = err as Error;
      throw err;
    }
    this.#written = Math.max(this.#written, upTo);
    this.bytes += line.length;
    this.#onFlushed(line.length);
  }

  /**
   * Everything recorded so far was saved another way (in a new snapshot): drop what is pending and
   * resolve every waiter. A write already under way finishes into the old, replaced file.
   */
  retire(): void {
    this.#pending = [];
    this.#written = this.#recorded;
  }

  async close(): Promise<void> {
    await this.durable().catch(() => {});
    await this.#fh.close();
  }
}
