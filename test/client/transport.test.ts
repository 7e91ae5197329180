/**
 * `Transport` (src/client/transport.ts), undici's dispatch API with a body-collecting handler,
 * against a purpose-built loopback HTTP server: the text is what undici's own `body.text()` gives
 * for the same bytes (byte order mark, bytes split across chunks, bad UTF-8, empty bodies),
 * headers are flattened, and a timeout or a cancellation settles at once, even for a request still
 * waiting for a connection.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transport, TransportFailure } from "../../src/client/transport.js";

/** Bodies served at /body/<name>, each as a list of chunks written one by one. */
const BODIES: Record<string, Buffer[]> = {
  plain: [Buffer.from('{"ok":true}')],
  bom: [Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":"bom"}')],
  // "Añil ✓" with the two- and three-byte characters cut across chunk boundaries.
  split: (() => {
    const bytes = Buffer.from('{"name":"Añil ✓"}');
    const cut = bytes.indexOf(0xc3) + 1;
    return [bytes.subarray(0, cut), bytes.subarray(cut, cut + 8), bytes.subarray(cut + 8)];
  })(),
  invalid: [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  empty: [],
};

let server: Server;
let origin: string;
const hung = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/";
    if (path.startsWith("/body/")) {
      const chunks = BODIES[path.slice("/body/".length)]!;
      res.writeHead(chunks.length === 0 ? 204 : 200, { "content-type": "application/json" });
      const write = (i: number) => {
        if (i === chunks.length) return void res.end();
        res.write(chunks[i]);
        setTimeout(() => write(i + 1), 2);
      };
      write(0);
      return;
    }
    if (path === "/headers") {
      res.setHeader("X-Twice", ["one", "two"]);
      res.setHeader("Content-Type", "text/plain");
      return void res.end("h");
    }
    if (path === "/big") return void res.end("x".repeat(4096));
    // /hang: headers never come (until the test ends).
    hung.add(res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hung) res.destroy();
  server.closeAllConnections();
  server.close();
});

const get = (transport: Transport, path: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  transport.send({
    origin,
    path,
    method: "GET",
    headers: {},
    timeoutMs: extra.timeoutMs ?? 5_000,
    signal: extra.signal,
  });

/** The same failure as `send` rejects with, or a test failure. */
async function failure(promise: Promise<unknown>): Promise<TransportFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransportFailure);
  return error as TransportFailure;
}

describe("Transport", () => {
  it.each(Object.keys(BODIES))("reads the %s body as undici's body.text() does", async (name) => {
    const transport = new Transport();
    try {
      const ours = await get(transport, `/body/${name}`);
      const theirs = await request(`${origin}/body/${name}`);
      expect(ours.status).toBe(theirs.statusCode);
      expect(ours.text).toBe(await theirs.body.text());
    } finally {
      await transport.close();
    }
  });

  it("flattens headers: lower-case names, repeated values joined with a comma", async () => {
    const transport = new Transport();
    try {
      const res = await get(transport, "/headers");
      expect(res.headers["x-twice"]).toBe("one, two");
      expect(res.headers["content-type"]).toBe("text/plain");
    } finally {
      await transport.close();
    }
  });

  it("fails TIMEOUT when no answer comes within the attempt's time", async () => {
    const transport = new Transport();
    try {
      const e = await failure(get(transport, "/hang", { timeoutMs: 100 }));
      expect(e.code).toBe("TIMEOUT");
      expect(e.message).toBe("no answer within 100 ms");
    } finally {
      await transport.close();
    }
  });

  it("fails CANCELLED as soon as the caller aborts, and the pool stays usable", async () => {
    const transport = new Transport();
    try {
      const controller = new AbortController();
      const pending = get(transport, "/hang", { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      expect((await failure(pending)).code).toBe("CANCELLED");
      expect((await get(transport, "/body/plain")).text).toBe('{"ok":true}');
    } finally {
      await transport.close();
    }
  });

  it("settles a request still waiting for a connection at once when it is cancelled", async () => {
    // One connection, held by a request that never gets an answer: the second one waits in the queue.
    const transport = new Transport({ connections: 1 });
    try {
      const holder = get(transport, "/hang", { timeoutMs: 1_000 }).catch((e: unknown) => e);
      const controller = new AbortController();
      const queued = get(transport, "/body/plain", { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      controller.abort();
      expect((await failure(queued)).code).toBe("CANCELLED");
      expect(performance.now() - started).toBeLessThan(500);
      expect(await holder).toMatchObject({ code: "TIMEOUT" });
    } finally {
      await transport.close();
    }
  });

  it("refuses a body over the size limit", async () => {
    const transport = new Transport({ maxBodyBytes: 1024 });
    try {
      expect((await failure(get(transport, "/big"))).code).toBe("UND_ERR_RES_EXCEEDED_MAX_SIZE");
    } finally {
      await transport.close();
    }
  });

  it("fails CANCELLED before sending when the caller has already aborted", async () => {
    const transport = new Transport();
    try {
      const e = await failure(get(transport, "/body/plain", { signal: AbortSignal.abort() }));
      expect(e).toMatchObject({ code: "CANCELLED", message: "aborted before sending" });
    } finally {
      await transport.close();
    }
  });
});
