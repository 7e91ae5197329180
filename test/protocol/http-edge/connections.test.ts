/**
 * Connections are bounded (interface.md §9): a silent connection is closed after its time, and at the
 * cap the oldest silent connection makes room for a new one, so a flood of silent sockets cannot
 * keep a legitimate request out. Every wait is on an event (a socket's close, a connection arriving).
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { boundConnections, type ConnectionBounds } from "../../../src/mcp/transports/http/connections.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function serve(bounds: ConnectionBounds) {
  // GET /hold is never answered: its connection stays in use.
  server = createServer((req, res) => {
    if (req.url !== "/hold") res.end("ok");
  });
  const stats = boundConnections(server, bounds);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  /** A connection the server has accepted (counted), sending nothing. */
  const silentSocket = async (): Promise<Socket> => {
    const accepted = once(server!, "connection");
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    await accepted;
    return socket;
  };
  return { stats, port, silentSocket };
}

describe("HTTP edge: connections", () => {
  it("closes a connection that sends no request within its time", async () => {
    const { stats, silentSocket } = await serve({ max: 10, silentMs: 50 });
    const socket = await silentSocket();
    await once(socket, "close");
    expect(stats()).toMatchObject({ silentClosed: 1, evicted: 0 });
  });

  it("at the cap, the oldest silent connection makes room: a legitimate request still gets its answer", async () => {
    const { stats, port, silentSocket } = await serve({ max: 3, silentMs: 600_000 });
    const sockets = [await silentSocket(), await silentSocket(), await silentSocket()];
    const oldestClosed = once(sockets[0]!, "close");
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe("ok");
    await oldestClosed;
    expect(stats()).toMatchObject({ evicted: 1, refused: 0, silentClosed: 0 });
    expect(sockets[1]!.destroyed || sockets[2]!.destroyed).toBe(false);
  });

  it("at the cap with no silent connection, the new one is closed at once", async () => {
    const { stats, silentSocket } = await serve({ max: 1, silentMs: 600_000 });
    const busy = await silentSocket();
    // A request whose answer is held: the connection has spoken and is in use.
    const held = once(server!, "request");
    busy.write("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await held;
    const extra = connect((server!.address() as AddressInfo).port, "127.0.0.1");
    extra.on("error", () => {});
    await once(extra, "close");
    expect(stats()).toMatchObject({ refused: 1, evicted: 0 });
    expect(busy.destroyed).toBe(false);
  });
});
