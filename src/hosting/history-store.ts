/**
 * Where review history lives (interface.md §6e). With REDIS_URL: one key per tenant and filter key
 * (`mms:history:<name>`) and a set per tenant listing them, so every replica sees the same history.
 * Otherwise files in MMS_STATE_DIR (by default the user's state directory), one per tenant and filter
 * key, mode 0600, written to a temporary file and renamed (a reader never sees half a file). A
 * directory that cannot be made or written turns history off with the reason, and the server starts.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { HistoryBackend, ProcessHistory } from "../domain/review/history.js";
import type { Logger } from "../telemetry/logger.js";

const SUFFIX = ".history";

/** The user's state directory for this server, per platform (interface.md §6e). */
export function defaultStateDir(env: NodeJS.ProcessEnv, platform = process.platform): string {
  const home = env.HOME || homedir();
  if (platform === "win32")
    return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "maintenance-mcp");
  if (platform === "darwin") return join(home, "Library", "Application Support", "maintenance-mcp");
  return join(env.XDG_STATE_HOME || join(home, ".local", "state"), "maintenance-mcp");
}

export class FileHistory implements HistoryBackend {
  readonly where: string;
  constructor(readonly dir: string) {
    this.where = `files in ${dir}`;
  }

  async read(name: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.#path(name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  async write(name: string, data: Buffer): Promise<void> {
    const temp = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    try {
      await writeFile(temp, data, { mode: 0o600 });
      await rename(temp, this.#path(name));
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  async list(prefix: string): Promise<{ name: string; bytes: number }[]> {
    const names = (await readdir(this.dir)).filter((f) => f.startsWith(prefix) && f.endsWith(SUFFIX));
    const out: { name: string; bytes: number }[] = [];
    for (const file of names) {
      const size = await stat(join(this.dir, file)).then(
        (s) => s.size,
        () => undefined,
      );
      if (size !== undefined) out.push({ name: file.slice(0, -SUFFIX.length), bytes: size });
    }
    return out;
  }

  async remove(name: string): Promise<void> {
    await rm(this.#path(name), { force: true });
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

/** The directory made (0700) and checked writable, or why it cannot be used. */
async function usableDir(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await access(dir, constants.W_OK | constants.R_OK);
    const probe = join(dir, `.probe.${process.pid}.${randomBytes(4).toString("hex")}`);
    await writeFile(probe, "", { mode: 0o600 });
    await rm(probe, { force: true });
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `${dir} cannot be written (${code ?? (e as Error).message}); set MMS_STATE_DIR to a writable directory`;
  }
}

export interface HistoryStoreSettings {
  /** MMS_REVIEW_HISTORY_DAYS: 0 turns history off. */
  days: number;
  /** MMS_REVIEW_HISTORY_MB per tenant. */
  mb: number;
  /** MMS_STATE_DIR, or undefined for the user's state directory. */
  stateDir: string | undefined;
  redisUrl: string | undefined;
  redisTimeoutMs: number;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/** The process's review history: Redis, files, or off with the reason (logged once, said in results). */
export async function openHistory(settings: HistoryStoreSettings): Promise<ProcessHistory> {
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
  const dir = settings.stateDir ?? defaultStateDir(settings.env ?? process.env);
  const why = await usableDir(dir);
  if (why !== undefined) {
    log.warn("review history is off", { reason: why });
    return { on: false, why };
  }
  return { on: true, backend: new FileHistory(dir), settings: limits };
}
