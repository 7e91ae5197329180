/**
 * Step 4 of the HTTP edge: the body. Read whole within a size (413) and a time bound (408), parsed
 * as JSON (400), one JSON-RPC message per HTTP request (a batch → 400, JSON-RPC -32600).
 * IMPORTANT: reading holds no admission slot: a slow sender holds a socket, never a slot.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../../telemetry/logger.js";
import { INVALID_REQUEST, PARSE_ERROR, rpcError, sendJson } from "./answers.js";

export class BodyTooLarge extends Error {}
export class BodyTooSlow extends Error {}

export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** The body as text; rejects past `max` bytes or when it is not complete within `timeoutMs`. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limits.maxBytes) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.pause();
      reject(error);
    };
    const timer = setTimeout(() => stop(new BodyTooSlow()), limits.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) stop(new BodyTooLarge());
      else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("error", (error) => stop(error));
    req.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

/** The body as JSON, or undefined after answering 413, 408 or 400 (not JSON, a batch). */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  limits: BodyLimits,
  log: Logger,
): Promise<{ body: unknown } | undefined> {
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req, limits));
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      sendJson(res, 413, rpcError(INVALID_REQUEST, `Request body larger than ${limits.maxBytes} bytes`), {
        connection: "close",
      });
    } else if (error instanceof BodyTooSlow) {
      log.warn("request body not received in time", { timeout_ms: limits.timeoutMs });
      sendJson(
        res,
        408,
        rpcError(INVALID_REQUEST, `Request body not received within ${limits.timeoutMs} ms`),
        { connection: "close" },
      );
    } else {
      sendJson(res, 400, rpcError(PARSE_ERROR, "Parse error: the body is not valid JSON"));
    }
    return undefined;
  }
  if (Array.isArray(body)) {
    // One HTTP request is one unit of admission: a batch would run many calls in one slot.
    sendJson(
      res,
      400,
      rpcError(
        INVALID_REQUEST,
        `JSON-RPC batches are not accepted (this body is an array of ${body.length}): send one JSON-RPC request per HTTP request`,
      ),
    );
    return undefined;
  }
  return { body };
}
