/**
 * The exclusive lock of a sandbox state file: `FILE.lock`, created with O_EXCL and holding
 * `{pid, host, since}`. A second sandbox on the same file is refused, naming the holder. A lock
 * whose pid is dead on this host (a `kill -9`, a crash) is stale and taken over. The lock is
 * released on close and, as a last resort, when the process exits.
 * Limit: two instances taking over the same stale lock in the same instant may both succeed.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { StateFileError } from "./state-errors.js";

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

export interface StateLock {
  readonly path: string;
  /** A stale lock that was taken over (its holder was dead), for a log line. */
  readonly tookOver?: LockInfo;
  /** Remove the lock file if it is still ours; idempotent. */
  release(): void;
}

function readLock(path: string): LockInfo | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<LockInfo>;
    if (typeof v.pid === "number" && typeof v.host === "string") {
      return { pid: v.pid, host: v.host, since: String(v.since ?? "") };
    }
  } catch {
    // unreadable or half-written: treated as held by an unknown process
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function create(path: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, `${JSON.stringify(info)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Take the lock of `stateFile` or throw a StateFileError naming the file and the holder. */
export function acquireLock(stateFile: string): StateLock {
  const path = `${stateFile}.lock`;
  const mine: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let tookOver: LockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (create(path, mine)) {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        if (readLock(path)?.pid !== mine.pid) return;
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return { path, tookOver, release };
    }
    const holder = readLock(path);
    if (holder === undefined) {
      throw new StateFileError(
        `Sandbox state file ${stateFile} is locked (${path} exists but does not name its holder). ` +
          `If no other sandbox uses this file, delete ${path} and start again.`,
      );
    }
    if (holder.host !== mine.host || isAlive(holder.pid)) {
      const who =
        holder.host === mine.host ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
      throw new StateFileError(
        `Sandbox state file ${stateFile} is in use by another sandbox (${who}, since ${holder.since}). ` +
          `Stop that sandbox, or use another --state file. If ${who} is not a sandbox, delete ${path}.`,
      );
    }
    // IMPORTANT: re-read just before removing, so a lock re-created meanwhile is not deleted.
    if (readLock(path)?.pid === holder.pid) {
      try {
        unlinkSync(path);
      } catch {
        // someone else removed it first; try to create ours again
      }
      tookOver = holder;
    }
  }
  throw new StateFileError(
    `Sandbox state file ${stateFile}: could not take the lock ${path} (other sandboxes keep taking it).`,
  );
}
