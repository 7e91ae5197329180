/**
 * MCP over stdin/stdout, both protocol eras. stdout carries only protocol messages; everything
 * else goes to stderr. Framing is ours (one JSON message per line) so that a bad line never ends
 * the connection silently: a line over the size limit is discarded and answered with a JSON-RPC
 * error (its id recovered when it can be), an unparsable line gets -32700, and only a broken
 * stdin/stdout ends serving, with an error the caller turns into a non-zero exit.
 */
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../../telemetry/logger.js";
import { type JSONRPCMessage, type ProtocolServer, parseMessage, serveStdioWire, type Wire } from "../sdk.js";

/** Default cap on one stdio message (the SDK's own read-buffer default). */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

const ID_AT_START = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;
const KEEP = 512;

/** The request id of a discarded line, read from its first or last bytes, when it is there. */
function sniffId(head: string, tail: string): string | number | null {
  const match = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail);
  if (!match) return null;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return null;
  }
}

interface Oversize {
  bytes: number;
  head: string;
  tail: string;
}

/** Newline-delimited JSON-RPC over a pair of streams, with a per-message size cap. */
export class LineWire implements Wire {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #chunks: Buffer[] = [];
  #size = 0;
  #oversize: Oversize | undefined;
  #closed = false;
  #fatal: Error | undefined;
  #ended!: (end: StdioEnd) => void;
  /** Settles when serving is over: stdin ended, or a stream broke (the transport cannot go on). */
  readonly ended = new Promise<StdioEnd>((resolve) => {
    this.#ended = resolve;
  });

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly log: Logger,
    private readonly maxBytes = MAX_STDIO_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("end", this.#onEnd);
    this.input.on("error", this.#onStreamError);
    this.output.on("error", this.#onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("stdio transport is closed"));
    return new Promise((resolve, reject) => {
      this.output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off("data", this.#onData);
    this.input.off("end", this.#onEnd);
    this.input.pause();
    this.#chunks = [];
    this.#ended(this.#fatal ? { reason: "error", error: this.#fatal } : { reason: "eof" });
    this.onclose?.();
  }

  #onEnd = () => void this.close();

  #onStreamError = (error: Error) => {
    this.#fatal ??= error;
    this.onerror?.(error);
    void this.close();
  };

  #onData = (chunk: Buffer) => {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      this.#append(piece);
      if (newline === -1) return;
      this.#endOfLine();
      start = newline + 1;
    }
  };

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    const over = this.#oversize;
    if (over) {
      over.bytes += piece.length;
      over.tail = (over.tail + piece.subarray(-KEEP).toString("utf8")).slice(-KEEP);
      return;
    }
    if (this.#size + piece.length <= this.maxBytes) {
      this.#chunks.push(piece);
      this.#size += piece.length;
      return;
    }
    const sofar = Buffer.concat([...this.#chunks, piece]);
    this.#oversize = {
      bytes: sofar.length,
      head: sofar.subarray(0, KEEP).toString("utf8"),
      tail: sofar.subarray(-KEEP).toString("utf8"),
    };
    this.#chunks = [];
    this.#size = 0;
  }

  #endOfLine(): void {
    const over = this.#oversize;
    const line = Buffer.concat(this.#chunks).toString("utf8").replace(/\r$/, "");
    this.#chunks = [];
    this.#size = 0;
    this.#oversize = undefined;
    if (over) {
      this.#refuseOversize(over);
      return;
    }
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.log.warn("stdio: a line on stdin is not valid JSON; answered -32700", { bytes: line.length });
      this.#reply(null, -32700, "Parse error: each stdin line must be one JSON-RPC message");
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseMessage(json);
    } catch {
      const id = (json as { id?: unknown } | null)?.id;
      this.log.warn("stdio: a message is not valid JSON-RPC 2.0; answered -32600");
      this.#reply(
        typeof id === "string" || typeof id === "number" ? id : null,
        -32600,
        "Invalid Request: not a JSON-RPC 2.0 message",
      );
      return;
    }
    this.onmessage?.(message);
  }

  #refuseOversize(over: Oversize): void {
    const id = sniffId(over.head, over.tail);
    const limit = `${Math.round(this.maxBytes / 1024 / 1024)} MiB`;
    this.log.error("stdio: message over the size limit discarded; the server goes on", {
      bytes: over.bytes,
      limit_bytes: this.maxBytes,
      id,
    });
    this.#reply(
      id,
      -32600,
      `Request too large: ${over.bytes} bytes; one stdio message may be at most ${limit}. Send less per call (smaller pages, fewer items).`,
    );
  }

  #reply(id: string | number | null, code: number, message: string): void {
    // A JSON-RPC error without an id is allowed only for parse errors and unknown ids (JSON-RPC 2.0 §5).
    this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage).catch(
      (error: unknown) => this.onerror?.(error as Error),
    );
  }
}

/** How serving over stdio ended: the client closed stdin, or the transport broke. */
export type StdioEnd = { reason: "eof" } | { reason: "error"; error: Error };

/** Serve until the client closes stdin (or a stream breaks); resolves then. */
export async function serveStdio(
  makeServer: () => ProtocolServer,
  logger: Logger,
  streams: { input: Readable; output: Writable } = { input: process.stdin, output: process.stdout },
): Promise<StdioEnd> {
  const log = logger.child({ transport: "stdio" });
  const wire = new LineWire(streams.input, streams.output, log);
  const handle = await serveStdioWire(makeServer, wire, (error) => {
    log.error("stdio transport error", { error: error.message });
  });
  log.info("serving MCP over stdio (protocol 2026-07-28 and 2025-11-25)");
  const end = await wire.ended;
  await handle.close();
  return end;
}
