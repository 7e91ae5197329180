/**
 * Where the ledger of budgets seen lives (interface.md §6e, §6f). With REDIS_URL: in Redis
 * (history-redis.ts), every replica sees it. Otherwise one file per tenant in MMS_STATE_DIR (by
 * default the user's state directory), mode 0600, written to a temporary file and renamed (a reader
 * never sees half a file), under a lock file (O_EXCL) that other processes respect. Hardened: only
 * regular files are opened (O_NOFOLLOW, O_NONBLOCK: a FIFO never hangs a review), a record larger
 * than any ledger is refused unread, and a directory that another user owns or others can write is
 * refused with a warning. A directory that cannot be used turns history off with the reason; the
 * server starts.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { type LedgerBackend, type ProcessLedger, unsafeRecord } from "../domain/ledger/ledger.js";
import type { Logger } from "../telemetry/logger.js";

const SUFFIX = ".ledger";
/** A lock older than this is from a process that died holding it. */
const STALE_LOCK_MS = 30_000;
const LOCK_TRIES = 100;
const LOCK_WAIT_MS = 25;

/**
 * How long a lock has been held, by the time its holder wrote in it (`pid ms`): the clock every process of
 * this machine reads alike, where the file's mtime is the file system's (another host's, on a network
 * share; the real one under a moved test clock, when every lock looked weeks old and was broken).
 * A lock without a readable time falls back to its mtime; one that cannot be read is not stale.
 */
async function lockAge(lock: string): Promise<number> {
  const stat = await lstat(lock).catch(() => undefined);
  if (stat === undefined) return 0;
  // Read only a regular file, never following a link nor waiting on a FIFO planted in its place.
  const text = stat.isFile()
    ? await readFile(lock, {
        encoding: "utf8",
        flag: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      }).catch(() => "")
    : "";
  const written = Number(text.split(" ")[1]);
  return Date.now() - (Number.isFinite(written) && written > 0 ? written : stat.mtimeMs);
}

/** The user's state directory for this server, per platform (interface.md §6e). */
export function defaultStateDir(env: NodeJS.ProcessEnv, platform = process.platform): string {
  const home = env.HOME || homedir();
  if (platform === "win32")
    return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "maintenance-mcp");
  if (platform === "darwin") return join(home, "Library", "Application Support", "maintenance-mcp");
  return join(env.XDG_STATE_HOME || join(home, ".local", "state"), "maintenance-mcp");
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FileHistory implements LedgerBackend {
  readonly where: string;
  /** Updates of one record run one after another in this process (the lock file orders processes). */
  readonly #queue = new Map<string, Promise<unknown>>();

  constructor(
    readonly dir: string,
    /** Larger than this, a record is not ours: refused unread (MMS_REVIEW_HISTORY_MB). */
    readonly maxBytes: number,
  ) {
    this.where = `files in ${dir}`;
  }

  async read(name: string): Promise<Buffer | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.#path(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return undefined;
      if (code === "ELOOP") throw unsafeRecord("it is a symbolic link");
      throw e;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw unsafeRecord("it is not a regular file");
      if (info.size > this.maxBytes) throw unsafeRecord(`${info.size} bytes, past MMS_REVIEW_HISTORY_MB`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  update(name: string, change: (current: Buffer | undefined) => Buffer | undefined): Promise<boolean> {
    const before = this.#queue.get(name) ?? Promise.resolve();
    const run = before.then(
      () => this.#locked(name, change),
      () => this.#locked(name, change),
    );
    const settled = run.catch(() => {});
    this.#queue.set(name, settled);
    void settled.then(() => {
      if (this.#queue.get(name) === settled) this.#queue.delete(name);
    });
    return run;
  }

  async #locked(name: string, change: (current: Buffer | undefined) => Buffer | undefined): Promise<boolean> {
    const lock = join(this.dir, `${name}.lock`);
    if (!(await this.#lock(lock))) return false;
    try {
      const next = change(await this.read(name));
      if (next !== undefined) await this.#write(name, next);
      return true;
    } finally {
      await rm(lock, { force: true });
    }
  }

  /** The lock file made (O_EXCL), waiting a little for another process's; a stale one is broken. */
  async #lock(lock: string): Promise<boolean> {
    for (let i = 0; i < LOCK_TRIES; i++) {
      try {
        await writeFile(lock, `${process.pid} ${Date.now()}`, { flag: "wx", mode: 0o600 });
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      if ((await lockAge(lock)) > STALE_LOCK_MS) await rm(lock, { force: true });
      else await pause(LOCK_WAIT_MS);
    }
    return false;
  }

  async #write(name: string, data: Buffer): Promise<void> {
    const temp = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    try {
      await writeFile(temp, data, { mode: 0o600, flag: "wx" });
      await rename(temp, this.#path(name));
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  async setAside(name: string): Promise<string> {
    const aside = `${name}${SUFFIX}.unreadable-${new Date().toISOString().replace(/[:.]/g, "")}`;
    await rename(this.#path(name), join(this.dir, aside));
    return join(this.dir, aside);
  }

  #path(name: string): string {
    return join(this.dir, `${name}${SUFFIX}`);
  }
}

/** The directory made (0700) and checked: ours, not writable by others, writable by us; or why not. */
async function usableDir(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const info = await lstat(dir);
    if (!info.isDirectory()) return `${dir} is not a directory`;
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid)
      return `${dir} belongs to another user (uid ${info.uid}); set MMS_STATE_DIR to a directory of your own`;
    if (process.platform !== "win32" && (info.mode & 0o022) !== 0)
      return `${dir} can be written by other users (mode ${(info.mode & 0o777).toString(8)}); chmod 700 it or set MMS_STATE_DIR`;
    const probe = join(dir, `.probe.${process.pid}.${randomBytes(4).toString("hex")}`);
    await writeFile(probe, "", { mode: 0o600, flag: "wx" });
    await rm(probe, { force: true });
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `${dir} cannot be written (${code ?? (e as Error).message}); set MMS_STATE_DIR to a writable directory`;
  }
}

/**
 * The embedded sandbox's directory: `sandbox-<random>` inside the user's state directory, made once
 * and found again at the next start (so its history survives a restart); never a name another user
 * could guess and plant first in a shared temporary directory.
 */
export async function sandboxStateDir(base: string): Promise<string> {
  await mkdir(base, { recursive: true, mode: 0o700 });
  const found = (await readdir(base).catch(() => [] as string[])).find((f) =>
    /^sandbox-[0-9a-f]{16}$/.test(f),
  );
  if (found !== undefined) return join(base, found);
  const dir = join(base, `sandbox-${randomBytes(8).toString("hex")}`);
  await mkdir(dir, { mode: 0o700 });
  return dir;
}

/**
 * The embedded sandbox's data is dated from one instant for 36 hours: the next morning's restart
 * meets the same budgets (its compare says what changed, not that every date moved), and the demo's
 * dates never drift far from today.
 */
const SEED_KEPT_MS = 36 * 3_600_000;

/**
 * When the embedded sandbox's seed is dated (kept in its directory, so its history compares like
 * with like across restarts, renewed after 36 hours); undefined (now) without history or where it
 * cannot be kept.
 */
export async function sandboxSeededAt(env: NodeJS.ProcessEnv, now = Date.now()): Promise<number | undefined> {
  if (env.MMS_REVIEW_HISTORY_DAYS === "0" || env.REDIS_URL) return undefined;
  try {
    const base = env.MMS_STATE_DIR || defaultStateDir(env);
    if ((await usableDir(base)) !== undefined) return undefined;
    const dir = env.MMS_STATE_DIR ? base : await sandboxStateDir(base);
    const file = join(dir, "sandbox-seeded-at");
    const kept = Number(await readFile(file, "utf8").catch(() => ""));
    if (Number.isSafeInteger(kept) && kept <= now && now - kept < SEED_KEPT_MS) return kept;
    await writeFile(`${file}.tmp`, String(now), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    return now;
  } catch {
    return undefined;
  }
}

/** Interface 6e's records (one file per tenant and filters) are not read into the ledger: moved aside, once. */
async function set6eAside(dir: string, log: Logger): Promise<void> {
  const old = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".history"));
  if (old.length === 0) return;
  const aside = join(dir, "6e-history");
  await mkdir(aside, { recursive: true, mode: 0o700 });
  for (const f of old) await rename(join(dir, f), join(aside, f)).catch(() => {});
  log.warn("review history: records of the earlier per-filter format are no longer read", {
    records: old.length,
    moved_to: aside,
    why: "reviews now keep a ledger of budgets seen, compared whatever the filters; the old records can be deleted",
  });
}

export interface HistoryStoreSettings {
  /** MMS_REVIEW_HISTORY_DAYS: 0 turns history off. */
  days: number;
  /** MMS_REVIEW_HISTORY_MB per tenant. */
  mb: number;
  /** MMS_STATE_DIR, or undefined for the user's state directory. */
  stateDir: string | undefined;
  /** The embedded sandbox: without MMS_STATE_DIR, its own directory (sandboxStateDir). */
  sandbox?: boolean;
  redisUrl: string | undefined;
  redisTimeoutMs: number;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/** The process's ledgers: Redis, files, or off with the reason (logged once, said in results). */
export async function openHistory(settings: HistoryStoreSettings): Promise<ProcessLedger> {
  const log = settings.logger.child({ component: "history" });
  if (settings.days === 0) return { on: false, why: "MMS_REVIEW_HISTORY_DAYS is 0" };
  const limits = { days: settings.days, maxBytes: settings.mb * 1024 * 1024 };
  if (settings.redisUrl !== undefined) {
    const { RedisHistory } = await import("./history-redis.js");
    return {
      on: true,
      backend: new RedisHistory(settings.redisUrl, settings.redisTimeoutMs, log),
      settings: limits,
    };
  }
  const base = settings.stateDir ?? defaultStateDir(settings.env ?? process.env);
  let dir = base;
  let why = await usableDir(base);
  if (why === undefined && settings.sandbox === true && settings.stateDir === undefined)
    dir = await sandboxStateDir(base).catch(() => base);
  if (why === undefined && dir !== base) why = await usableDir(dir);
  if (why !== undefined) {
    log.warn("review history is off", { reason: why });
    return { on: false, why };
  }
  await set6eAside(dir, log);
  return { on: true, backend: new FileHistory(dir, limits.maxBytes * 2), settings: limits };
}
