/**
 * Review history in Redis (interface.md §6e), shared by every replica: the record of a tenant and
 * filter key at `mms:history:<name>`, and the names of a tenant's records in the set
 * `mms:history-index:<tenant hash>` (for its MMS_REVIEW_HISTORY_MB). Loaded only with REDIS_URL.
 * Each command has a deadline (MCP_REDIS_TIMEOUT_MS, and more for a large record); a Redis that does
 * not answer makes the history unavailable for that call (a note), never a failed review.
 */
import { createClient, RESP_TYPES } from "@redis/client";
import type { HistoryBackend } from "../domain/review/history.js";
import type { Logger } from "../telemetry/logger.js";

const KEY = "mms:history:";
const INDEX = "mms:history-index:";
const ASIDE = "mms:history-unreadable:";

function newClient(url: string, timeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}
type Client = ReturnType<typeof newClient>;

/** The tenant part of a name (names are `<tenant hash>-<filters hash>`). */
const tenantOf = (name: string) => name.slice(0, name.indexOf("-"));

export class RedisHistory implements HistoryBackend {
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

  async write(name: string, data: Buffer): Promise<void> {
    await this.#run(
      (c) =>
        c
          .multi()
          .set(KEY + name, data)
          .sAdd(INDEX + tenantOf(name), name)
          .exec(),
      data.length,
    );
  }

  list(prefix: string): Promise<{ name: string; bytes: number }[]> {
    return this.#run(async (c) => {
      const names = (await c.sMembers(INDEX + tenantOf(prefix)))
        .map(String)
        .filter((n) => n.startsWith(prefix));
      const sizes = await Promise.all(names.map((n) => c.strLen(KEY + n)));
      return names.map((name, i) => ({ name, bytes: Number(sizes[i]) })).filter((r) => r.bytes > 0);
    });
  }

  async remove(name: string): Promise<void> {
    await this.#run((c) =>
      c
        .multi()
        .del(KEY + name)
        .sRem(INDEX + tenantOf(name), name)
        .exec(),
    );
  }

  async setAside(name: string): Promise<string> {
    const aside = `${ASIDE}${name}:${new Date().toISOString()}`;
    await this.#run((c) =>
      c
        .multi()
        .rename(KEY + name, aside)
        .sRem(INDEX + tenantOf(name), name)
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
