/**
 * The connections themselves (interface.md §9, "Connections are bounded"): at most `max` open at once
 * per process, and a connection that has sent no request within `silentMs` (default 5 s) is closed.
 * When the cap is reached, the oldest connection that has still sent nothing is closed to make room:
 * a flood of silent sockets cannot keep a legitimate client out (the red team saw 1,100 of them turn
 * a new request into ECONNRESET). When every open connection has sent something, the new one is
 * closed at once (Node's maxConnections behaviour).
 * A connection has spoken once a request's headers have arrived (the server's "request" event: Node's
 * parser reads the socket directly, so a socket "data" event is not a reliable signal).
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionBounds {
  /** Open connections at most (default 512, under a typical 1024 file-descriptor limit). */
  max: number;
  /** How long a connection may stay open without sending a byte (default 5000 ms). */
  silentMs: number;
}

export interface ConnectionStats {
  open: number;
  /** Closed for sending nothing in time. */
  silentClosed: number;
  /** Closed to make room (the oldest silent one) or refused (none silent). */
  evicted: number;
  refused: number;
}

export function boundConnections(server: Server, bounds: ConnectionBounds): () => ConnectionStats {
  /** Open connections that have sent nothing yet, oldest first (a Set keeps insertion order). */
  const silent = new Set<Socket>();
  const stats = { open: 0, silentClosed: 0, evicted: 0, refused: 0 };
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const spoke = (socket: Socket) => {
    clearTimeout(timers.get(socket));
    silent.delete(socket);
  };
  server.on("connection", (socket: Socket) => {
    if (stats.open >= bounds.max) {
      const oldest = silent.values().next().value;
      if (oldest === undefined) {
        stats.refused++;
        socket.destroy();
        return;
      }
      stats.evicted++;
      silent.delete(oldest);
      oldest.destroy();
    }
    stats.open++;
    silent.add(socket);
    const timer = setTimeout(() => {
      if (!silent.delete(socket)) return;
      stats.silentClosed++;
      socket.destroy();
    }, bounds.silentMs);
    timer.unref();
    timers.set(socket, timer);
    socket.once("close", () => {
      spoke(socket);
      stats.open--;
    });
  });
  server.on("request", (req: { socket: Socket }) => spoke(req.socket));
  return () => ({ ...stats });
}
