/**
 * The ledger of budgets seen in Redis (interface.md §6f), shared by every replica: a tenant's ledger
 * at `mms:ledger:<name>` with a TTL of MMS_REVIEW_HISTORY_DAYS (renewed at each write), and its lock
 * at `mms:ledger-lock:<name>` (SET NX PX, released only by its holder), so two replicas' writes of
 * one tenant never lose each other's. Loaded only with REDIS_URL. Each command has a deadline
 * (MCP_REDIS_TIMEOUT_MS, and more for a large record); a Redis that does not answer makes the
 * history unavailable for that call (a note), never a failed review.
 */
import { randomBytes } from "node:crypto";
import { createClient, RESP_TYPES } from "@redis/client";
import type { LedgerBackend } from "../domain/ledger/ledger.js";
import type { Logger } from "../telemetry/logger.js";

const KEY = "mms:ledger:";
const LOCK = "mms:ledger-lock:";
const ASIDE = "mms:ledger-unreadable:";
const LOCK_MS = 30_000;
const LOCK_TRIES = 100;
const LOCK_WAIT_MS = 25;
/** Delete the lock only when it is still ours. */
const UNLOCK = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

function newClient(url: string, timeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}
type Client = ReturnType<typeof newClient>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RedisHistory implements LedgerBackend {
  readonly where = "Redis";
  #client: Promise<Client> | undefined;

  constructor(
    readonly url: string,
    readonly timeoutMs: number,
    readonly logger: Logger,
  ) {}

  read(name: string): Promise<Buffer | undefined> {
    return this.#run(async (c) => (await c.get(KEY + name)) ?? undefined);
  }

  async update(
    name: string,
    change: (current: Buffer | undefined) => Buffer | undefined,
    ttlMs: number,
  ): Promise<boolean> {
    const token = randomBytes(12).toString("hex");
    if (!(await this.#lock(name, token))) return false;
    try {
      const next = change(await this.read(name));
      if (next !== undefined)
        await this.#run(
          (c) => c.set(KEY + name, next, { expiration: { type: "PX", value: ttlMs } }),
          next.length,
        );
      return true;
    } finally {
      await this.#run((c) => c.eval(UNLOCK, { keys: [LOCK + name], arguments: [token] })).catch(() => {});
    }
  }

  async #lock(name: string, token: string): Promise<boolean> {
    for (let i = 0; i < LOCK_TRIES; i++) {
      const got = await this.#run((c) =>
        c.set(LOCK + name, token, { condition: "NX", expiration: { type: "PX", value: LOCK_MS } }),
      );
      if (got !== null) return true;
      await pause(LOCK_WAIT_MS);
    }
    return false;
  }

  async setAside(name: string): Promise<string> {
    const aside = `${ASIDE}${name}:${new Date().toISOString()}`;
    await this.#run((c) =>
      c
        .multi()
        .rename(KEY + name, aside)
        .pExpire(aside, 35 * 86_400_000)
        .exec(),
    );
    return aside;
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.then((c) => c.close()).catch(() => {});
  }

  /** One command under its deadline (one more ms for each 10 kB moved); a failure drops the connection. */
  async #run<T>(command: (c: Client) => Promise<T>, bytes = 0): Promise<T> {
    const deadline = this.timeoutMs + Math.ceil(bytes / 10_000);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${deadline} ms`)), deadline);
    });
    try {
      return await Promise.race([this.#connected().then(command), late]);
    } catch (e) {
      void this.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  #connected(): Promise<Client> {
    this.#client ??= (async () => {
      const client = newClient(this.url, this.timeoutMs);
      client.on("error", (e: Error) =>
        this.logger.warn("history: Redis connection failed", { error: e.message }),
      );
      await client.connect();
      return client;
    })();
    return this.#client;
  }
}
