/**
 * Connections are bounded (interface.md §9, §9b): a silent connection is closed after its time; at
 * the cap the connection that has waited longest without a request in progress (silent, idle, or
 * answered while its body still trickles) makes room for a new one; when every connection is busy the
 * new one waits, unread, for the first to close. An answered request's unread body is not waited
 * for. Every wait is on an event (a socket's close, a connection arriving, an answer).
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
  // GET /hold is never answered: its connection stays in use. /refuse answers without reading the body.
  server = createServer((req, res) => {
    if (req.url === "/hold") return;
    if (req.url === "/refuse") {
      res.writeHead(401).end("no");
      return;
    }
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  const stats = boundConnections(server, bounds);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  /**
   * A connection the server has accepted (counted or waiting), sending nothing. `halfOpen`: as an
   * attacker's, the server's FIN does not end its side (it "closes" only when the server destroys it).
   */
  const silentSocket = async (halfOpen = false): Promise<Socket> => {
    const accepted = once(server!, "connection");
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: halfOpen });
    socket.on("error", () => {});
    await accepted;
    return socket;
  };
  /** A connection whose request has reached the handler (headers in), sending `head`. */
  /** `ended`: the server's FIN arrived (listened from the start: it may come before the caller looks). */
  const speaking = async (head: string, halfOpen = false) => {
    const socket = await silentSocket(halfOpen);
    let received = "";
    socket.on("data", (d) => (received += d)); // flowing, so "end" can come
    const ended = once(socket, "end").then(() => received);
    const arrived = once(server!, "request");
    socket.write(head);
    await arrived;
    return Object.assign(socket, { ended });
  };
  return { stats, port, silentSocket, speaking };
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

  it("a request answered before its body arrived: the answer says the connection ends, and the server ends it instead of waiting for the body", async () => {
    const { stats, speaking } = await serve({ max: 10, silentMs: 600_000, lingerMs: 600_000 });
    const socket = await speaking(
      "POST /refuse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nabc",
      true,
    );
    // The server's FIN after its answer: it will read no more of this request.
    const answer = await socket.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(stats()).toMatchObject({ evicted: 0, refused: 0 });
  });

  it("at the cap, connections answered while their bodies still trickle do not keep a new client out (the red team's POST /healthz flood)", async () => {
    const { stats, port, speaking } = await serve({ max: 2, silentMs: 600_000, lingerMs: 600_000 });
    const head = "POST /refuse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nabc";
    const tricklers = [await speaking(head, true), await speaking(head, true)];
    // The server's FIN ends the answer; the trickler keeps its side open (and would keep sending).
    await Promise.all(tricklers.map((t) => t.ended));
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe("ok");
    expect(stats()).toMatchObject({ refused: 0, waiting: 0 });
  });

  it("a keep-alive request without a body, answered at once, keeps its connection", async () => {
    const { speaking } = await serve({ max: 10, silentMs: 600_000 });
    const socket = await speaking("GET /refuse HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await once(socket, "data");
    const second = once(server!, "request");
    socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await second; // the same connection carried a second request
  });

  it("at the cap, an idle keep-alive connection makes room", async () => {
    const { stats, port, speaking } = await serve({ max: 1, silentMs: 600_000 });
    const idle = await speaking("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await once(idle, "data"); // answered: the connection is idle (keep-alive)
    const closed = once(idle, "close");
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.text()).toBe("ok");
    await closed;
    expect(stats()).toMatchObject({ evicted: 1, refused: 0 });
  });

  it("at the cap with every connection busy, a new one waits unread and is served when one closes", async () => {
    const { stats, port, speaking } = await serve({ max: 1, silentMs: 600_000 });
    const busy = await speaking("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const queued = once(server!, "connection");
    const answer = fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
    await queued;
    expect(stats()).toMatchObject({ open: 1, waiting: 1 });
    busy.destroy(); // the busy request ends (in the server: its body limit's 408)
    expect(await answer).toBe("ok");
    expect(stats()).toMatchObject({ waiting: 0, refused: 0 });
  });

  it("beyond the waiting room, a new connection is closed at once; a waiting one gives up after its time", async () => {
    const { stats, speaking, silentSocket } = await serve({
      max: 1,
      silentMs: 600_000,
      maxWaiting: 1,
      waitMs: 50,
    });
    await speaking("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const waiting = await silentSocket();
    const extra = await silentSocket();
    await once(extra, "close");
    expect(stats()).toMatchObject({ refused: 1, waiting: 1 });
    await once(waiting, "close");
    expect(stats()).toMatchObject({ waitedOut: 1, waiting: 0, open: 1 });
  });
});
