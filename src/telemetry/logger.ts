/**
 * The only writer of log output: one JSON object per line on stderr (stdout belongs to the
 * stdio transport). Every record passes through `redact()`, so a secret cannot be logged even
 * when a caller passes it by mistake.
 */
import type { LogLevel } from "../config/config.js";
import { redact } from "../errors/redact.js";

export type { LogLevel };

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every record. */
  child(bindings: LogFields): Logger;
  isLevelEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to process.stderr. Tests pass a collector. */
  sink?: (line: string) => void;
  bindings?: LogFields;
}

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

const stderrSink = (line: string) => {
  process.stderr.write(line);
};

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? "info"];
  const sink = options.sink ?? stderrSink;
  const bindings = options.bindings ?? {};

  const write = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[level] > threshold) return;
    const record = redact({ time: new Date().toISOString(), level, msg, ...bindings, ...fields });
    let line: string;
    try {
      line = JSON.stringify(record);
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level, msg: "unserialisable log record" });
    }
    sink(`${line}\n`);
  };

  return {
    error: (msg, fields) => write("error", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    debug: (msg, fields) => write("debug", msg, fields),
    child: (extra) =>
      createLogger({ level: options.level ?? "info", sink, bindings: { ...bindings, ...extra } }),
    isLevelEnabled: (level) => RANK[level] <= threshold,
  };
}

/** A logger that drops everything (library use, benchmarks). */
export const silentLogger: Logger = createLogger({ level: "error", sink: () => {} });
