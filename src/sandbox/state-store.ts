/**
 * The state file behind `--state FILE`: a snapshot (`FILE`), a journal of the writes since
 * (`FILE.journal`) and a lock (`FILE.lock`) while a sandbox runs.
 *
 * - Start: take the lock, read the snapshot, replay the journal on top (a torn last line, from a
 *   crash mid-append, is cut), validate the result deeply; nothing is written when it is unusable.
 * - Each write: its operations are appended to the journal and fsync'd before the answer goes out
 *   (`durable()`), so an answered write survives `kill -9`; the cost follows the size of the change.
 * - Compaction, when the journal outgrows max(64 MiB, the snapshot): the snapshot is rewritten
 *   atomically (temp + fsync + rename) under the next generation number, then a new journal of that
 *   generation replaces the old one. A journal whose generation is not the snapshot's is stale (a
 *   crash mid-compaction) and ignored. The rewrite costs the whole state, at most once per that
 *   much journal, so the cost per write stays proportional to the write.
 * - Close: when snapshot + journal fit in 64 MiB, the journal is folded in and removed (a stopped
 *   sandbox leaves one file); a larger state keeps its journal rather than being rewritten at each stop.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Logger } from "../telemetry/logger.js";
import { type SandboxState, STATE_VERSION } from "./state.js";
import { StateFileError } from "./state-errors.js";
import { applyOps, JournalWriter, trackMutations } from "./state-journal.js";
import { acquireLock, type StateLock } from "./state-lock.js";
import { stateProblems } from "./state-schema.js";

/** The journal is compacted into the snapshot once it passes max(this, the snapshot's size). */
export const COMPACT_MIN_BYTES = 64 * 1024 * 1024;

export interface StateStore {
  /** The live state; every change made through it is journaled. */
  readonly state: SandboxState;
  /** Resolves when every change made so far is on disk; rejects when the journal could not be written. */
  durable(): Promise<void>;
  /** Flush, write the final snapshot, remove the journal and release the lock. */
  close(): Promise<void>;
}

export const journalPath = (file: string) => `${file}.journal`;

const UNTOUCHED = "The files were left untouched: fix or delete them to start from fresh seed data.";

function fsError(file: string, what: string, err: unknown): StateFileError {
  const e = err as NodeJS.ErrnoException;
  const fix =
    e.code === "EACCES" || e.code === "EPERM" || e.code === "EROFS"
      ? " Choose a --state path in a folder this user can write to."
      : "";
  return new StateFileError(`Sandbox state file ${file}: cannot ${what} (${e.code ?? e.message}).${fix}`);
}

/** The folder must exist and FILE, when present, must be a regular file. */
function checkPlace(file: string): void {
  const dir = dirname(resolve(file));
  const dirStat = statSync(dir, { throwIfNoEntry: false });
  if (!dirStat?.isDirectory()) {
    throw new StateFileError(
      `Sandbox state file ${file}: the folder ${dir} does not exist. ` +
        `Create it first (mkdir -p "${dir}") or choose a --state path in an existing folder.`,
    );
  }
  const st = statSync(file, { throwIfNoEntry: false });
  if (st && !st.isFile()) {
    throw new StateFileError(
      `Sandbox state file ${file} is not a regular file. Choose a file path for --state.`,
    );
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported on every platform (Windows); the rename itself is still atomic
  }
}

/** Write `data` to `path` atomically and durably: temp file beside it, fsync, rename, fsync the folder. */
function writeAtomic(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // the temp file may not exist
    }
    throw err;
  }
  fsyncDir(dirname(resolve(path)));
}

interface Loaded {
  state: SandboxState;
  generation: number;
  /** No snapshot yet: the state comes from the seed. */
  fresh: boolean;
  /** Journal lines applied on top of the snapshot. */
  replayed: number;
  /** The journal to keep appending to (its complete lines), or undefined when there is none to keep. */
  journal?: { bytes: number; opsBytes: number };
  notes: string[];
}

function corrupt(file: string, reason: string): StateFileError {
  return new StateFileError(`Sandbox state file ${file} is corrupt (${reason}). ${UNTOUCHED}`);
}

function readSnapshot(file: string): { state: SandboxState; generation: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (err instanceof SyntaxError) throw corrupt(file, `not valid JSON: ${err.message}`);
    throw fsError(file, "read it", err);
  }
  let generation = 0;
  if (parsed !== null && typeof parsed === "object" && "journalGeneration" in parsed) {
    const g = (parsed as { journalGeneration: unknown }).journalGeneration;
    if (!Number.isSafeInteger(g) || (g as number) < 0)
      throw corrupt(file, "$.journalGeneration: not a count");
    generation = g as number;
    delete (parsed as { journalGeneration?: unknown }).journalGeneration;
  }
  return { state: parsed as SandboxState, generation };
}

/** Replay `FILE.journal` onto the snapshot. A torn last line (a crash mid-append, never answered) is dropped. */
function replay(file: string, loaded: Loaded): void {
  const jpath = journalPath(file);
  let text: string;
  try {
    text = readFileSync(jpath, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw fsError(jpath, "read it", err);
  }
  const lines = text.split("\n");
  const complete = text.endsWith("\n") ? lines.slice(0, -1) : lines;
  if (!text.endsWith("\n") && text !== "") loaded.notes.push(`dropped a torn last line of ${jpath}`);
  const header = complete[0] === undefined ? undefined : safeParse(complete[0]);
  const generation = (header as { generation?: unknown } | undefined)?.generation;
  if (generation !== loaded.generation) {
    loaded.notes.push(
      `ignored ${jpath}: generation ${String(generation)} is not the snapshot's ${loaded.generation}`,
    );
    return;
  }
  const last = text.endsWith("\n") ? complete.length : complete.length - 1;
  for (let i = 1; i < last; i++) {
    const record = safeParse(complete[i]!) as { ops?: unknown } | undefined;
    try {
      if (record === undefined) throw new Error("not valid JSON");
      applyOps(loaded.state, record.ops);
    } catch (err) {
      throw new StateFileError(
        `Sandbox state journal ${jpath} is corrupt at line ${i + 1} (${(err as Error).message}). ${UNTOUCHED}`,
      );
    }
    loaded.replayed += 1;
  }
  const bytes = Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1));
  loaded.journal = { bytes, opsBytes: bytes - Buffer.byteLength(`${complete[0]}\n`) };
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function load(file: string, seed: () => SandboxState): Loaded {
  if (!existsSync(file)) {
    if (existsSync(journalPath(file))) {
      throw new StateFileError(
        `Sandbox state file ${file} is missing but its journal ${journalPath(file)} exists. ` +
          `Restore ${file}, or delete ${journalPath(file)} to start from fresh seed data.`,
      );
    }
    // A JSON round trip makes the seed plain, unaliased data, exactly as it will be read back.
    return { state: JSON.parse(JSON.stringify(seed())), generation: 0, fresh: true, replayed: 0, notes: [] };
  }
  const loaded: Loaded = { ...readSnapshot(file), fresh: false, replayed: 0, notes: [] };
  const shapeFirst = stateProblems(loaded.state, STATE_VERSION);
  if (shapeFirst.length > 0) throw corrupt(file, shapeFirst.join("; "));
  replay(file, loaded);
  if (loaded.replayed > 0) {
    const problems = stateProblems(loaded.state, STATE_VERSION);
    if (problems.length > 0) {
      throw new StateFileError(
        `Sandbox state file ${file} is corrupt after replaying ${loaded.replayed} line(s) of ` +
          `${journalPath(file)} (${problems.join("; ")}). ${UNTOUCHED}`,
      );
    }
  }
  return loaded;
}

/**
 * Open (or create from `seed()`) the state file. Throws a StateFileError, with the file, the reason
 * and the fix, when the folder is missing, another sandbox holds the file, or its content is unusable.
 */
export async function openStateStore(
  file: string,
  seed: () => SandboxState,
  logger: Logger,
  options: { compactMinBytes?: number } = {},
): Promise<StateStore> {
  checkPlace(file);
  let lock: StateLock;
  try {
    lock = acquireLock(file);
  } catch (err) {
    if (err instanceof StateFileError) throw err;
    throw fsError(file, `create its lock ${file}.lock`, err);
  }
  try {
    if (lock.tookOver) {
      logger.warn("sandbox state lock was stale (its process is gone); taken over", {
        file,
        pid: lock.tookOver.pid,
      });
    }
    const loaded = load(file, seed);
    for (const note of loaded.notes) logger.warn(`sandbox state: ${note}`, { file });
    if (loaded.replayed > 0) logger.info("sandbox state journal replayed", { file, lines: loaded.replayed });
    return await startStore(file, loaded, lock, logger, options.compactMinBytes ?? COMPACT_MIN_BYTES);
  } catch (err) {
    lock.release();
    if (err instanceof StateFileError) throw err;
    throw fsError(file, "write it", err);
  }
}

interface NextJournal {
  path: string;
  fh: FileHandle;
}

async function startStore(
  file: string,
  loaded: Loaded,
  lock: StateLock,
  logger: Logger,
  compactMinBytes: number,
): Promise<StateStore> {
  const raw = loaded.state;
  const jpath = journalPath(file);
  let generation = loaded.generation;
  let snapshotBytes = 0;
  let closed = false;
  let compactWanted = false;

  /** Snapshot of the current state under the next generation (synchronous: nothing changes meanwhile). */
  const writeSnapshot = () => {
    generation += 1;
    // The generation goes first in the file; JSON.stringify(raw) always starts with "{".
    const text = `{"journalGeneration":${generation},${JSON.stringify(raw).slice(1)}`;
    writeAtomic(file, text);
    snapshotBytes = Buffer.byteLength(text);
  };
  /** Opened ahead (asynchronously), so switching journals below needs no await. */
  const prepare = async (): Promise<NextJournal> => {
    const path = `${jpath}.${process.pid}.${randomBytes(4).toString("hex")}.next`;
    return { path, fh: await open(path, "wx", 0o600) };
  };
  const discard = async (next: NextJournal) => {
    await next.fh.close().catch(() => {});
    try {
      unlinkSync(next.path);
    } catch {
      // already renamed or gone
    }
  };
  const onFlushed = () => {
    if (writer.bytes > Math.max(compactMinBytes, snapshotBytes)) compactWanted = true;
  };
  /** Make `next` the journal of the current generation (synchronous). */
  const install = (next: NextJournal): JournalWriter => {
    writeSync(next.fh.fd, `${JSON.stringify({ generation })}\n`);
    fsyncSync(next.fh.fd);
    renameSync(next.path, jpath);
    fsyncDir(dirname(resolve(jpath)));
    return new JournalWriter(next.fh, onFlushed);
  };

  let writer: JournalWriter;
  if (loaded.fresh) writeSnapshot();
  else snapshotBytes = statSync(file).size;
  if (loaded.journal) {
    // Keep appending to the replayed journal; a torn tail is cut first so the next line starts clean.
    truncateSync(jpath, loaded.journal.bytes);
    writer = new JournalWriter(await open(jpath, "a", 0o600), onFlushed);
    writer.bytes = loaded.journal.opsBytes;
  } else {
    const first = await prepare();
    try {
      writer = install(first);
    } catch (err) {
      await discard(first);
      throw err;
    }
  }
  const state = trackMutations(raw, (op) => {
    if (!closed) writer.record(op);
  });

  /** Fold the journal into a new snapshot; the old writer's pending ops are in that snapshot. */
  const compact = async () => {
    compactWanted = false;
    const next = await prepare();
    const old = writer;
    try {
      writeSnapshot();
      writer = install(next);
    } catch (err) {
      await discard(next);
      throw err;
    }
    old.retire();
    await old.close();
  };

  let compacting: Promise<void> | undefined;
  if (writer.bytes > Math.max(compactMinBytes, snapshotBytes)) await compact();
  return {
    state,
    async durable() {
      await writer.durable();
      if (compactWanted && !compacting && !closed) {
        compacting = compact()
          .catch((err) => logger.error("sandbox state compaction failed", { file, error: err }))
          .finally(() => (compacting = undefined));
      }
      await compacting;
    },
    async close() {
      if (closed) return;
      await compacting;
      closed = true;
      try {
        await writer.durable();
      } catch {
        // the final snapshot below holds everything that is in memory
      }
      try {
        if (writer.bytes === 0) {
          unlinkSync(jpath); // nothing since the snapshot
        } else if (snapshotBytes + writer.bytes <= compactMinBytes || writer.error) {
          writeSnapshot();
          writer.retire();
          unlinkSync(jpath);
        } else {
          // A large state is not rewritten at every stop: the journal stays and is replayed next start.
          logger.info("sandbox state journal kept beside the state file", { file, bytes: writer.bytes });
        }
      } catch (err) {
        logger.error("sandbox state could not be saved at close; the journal was kept", { file, error: err });
      } finally {
        await writer.close();
        lock.release();
      }
    },
  };
}
