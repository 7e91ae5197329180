/**
 * The connections themselves (interface.md §9 "Connections are bounded", §9b "A body that trickles
 * cannot hold the door"): at most `max` open at once per process; a connection that has sent no
 * request within `silentMs` (5 s) is closed. A connection whose request was answered before its body
 * arrived (a refusal, /healthz, a 408) is not waited for: the server ends its side and closes it
 * `lingerMs` later (the pause lets the client read the answer instead of a reset).
 * When the cap is reached, the connection that has waited longest without a request in progress
 * (silent, idle between requests, or answered-but-unfinished) is closed to make room. When every
 * open connection has a request in progress, the new one waits, unread, for the first to close (at
 * most `maxWaiting` of them, each at most `waitMs`): request bodies are bounded in time (body.ts),
 * so a slot frees within that bound.
 * A connection has spoken once a request's headers have arrived (the server's "request" event: Node's
 * parser reads the socket directly, so a socket "data" event is not a reliable signal).
 * IMPORTANT: the server is set to pause sockets on connect (node:http attaches its parser, but no
 * byte is read until this module resumes the socket): that is how a connection can wait unread.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionBounds {
  /** Open connections at most (default 512, under a typical 1024 file-descriptor limit). */
  max: number;
  /** How long a connection may stay open without sending a request (default 5000 ms). */
  silentMs: number;
  /** Connections held unread beyond the cap, waiting for a free slot (default 128). */
  maxWaiting?: number;
  /** How long one of them waits before it is closed (default 20 s: twice the body limit). */
  waitMs?: number;
  /** How long an answered connection whose request body is still arriving stays after our side ended (default 1 s). */
  lingerMs?: number;
}

export interface ConnectionStats {
  open: number;
  /** Held unread beyond the cap, waiting for a free slot. */
  waiting: number;
  /** Closed for sending nothing in time. */
  silentClosed: number;
  /** Closed to make room for a new one (the oldest without a request in progress). */
  evicted: number;
  /** Closed at once: the cap reached, every connection busy and the waiting room full. */
  refused: number;
  /** Closed after waiting `waitMs` without a slot freeing. */
  waitedOut: number;
  /** Answered before their request body arrived, so ended without waiting for it. */
  unfinished: number;
}

type State = "waiting" | "silent" | "active" | "idle" | "answered";

export function boundConnections(server: Server, bounds: ConnectionBounds): () => ConnectionStats {
  const maxWaiting = bounds.maxWaiting ?? 128;
  const waitMs = bounds.waitMs ?? 20_000;
  const lingerMs = bounds.lingerMs ?? 1_000;
  const state = new WeakMap<Socket, State>();
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  /** Admitted connections without a request in progress, longest first (a Set keeps insertion order). */
  const evictable = new Set<Socket>();
  const waiting = new Set<Socket>();
  let open = 0;
  const stats = { silentClosed: 0, evicted: 0, refused: 0, waitedOut: 0, unfinished: 0 };

  const timer = (socket: Socket, ms: number, then: () => void) => {
    clearTimeout(timers.get(socket));
    const t = setTimeout(then, ms);
    t.unref();
    timers.set(socket, t);
  };
  const setState = (socket: Socket, next: State) => {
    state.set(socket, next);
    evictable.delete(socket);
    if (next === "silent" || next === "idle" || next === "answered") evictable.add(socket);
  };
  const evictOldest = (): boolean => {
    const oldest = evictable.values().next().value;
    if (oldest === undefined) return false;
    evictable.delete(oldest);
    stats.evicted++;
    oldest.destroy();
    return true;
  };
  const admit = (socket: Socket) => {
    open++;
    setState(socket, "silent");
    timer(socket, bounds.silentMs, () => {
      if (state.get(socket) !== "silent") return;
      stats.silentClosed++;
      socket.destroy();
    });
    socket.resume();
  };
  const admitWaiting = () => {
    while (open < bounds.max) {
      const next = waiting.values().next().value;
      if (next === undefined) return;
      waiting.delete(next);
      admit(next);
    }
  };
  const wait = (socket: Socket) => {
    setState(socket, "waiting");
    waiting.add(socket);
    timer(socket, waitMs, () => {
      if (!waiting.delete(socket)) return;
      stats.waitedOut++;
      socket.destroy();
    });
  };

  // No byte is read from a new connection until `admit` resumes it.
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  server.on("connection", (socket: Socket) => {
    socket.once("close", () => {
      clearTimeout(timers.get(socket));
      evictable.delete(socket);
      waiting.delete(socket);
      const was = state.get(socket);
      // Refused and waiting connections never counted as open.
      if (was === undefined || was === "waiting") return;
      open--;
      admitWaiting();
    });
    if (open < bounds.max || evictOldest()) admit(socket);
    else if (waiting.size < maxWaiting) wait(socket);
    else {
      stats.refused++;
      socket.destroy();
    }
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    clearTimeout(timers.get(socket));
    setState(socket, "active");
    res.once("close", () => answered(socket, req));
  });

  /** The response is done: the connection is idle, or, when the body never came, ended. */
  const answered = (socket: Socket, req: IncomingMessage) => {
    if (socket.destroyed || state.get(socket) !== "active") return;
    if (req.complete) {
      setState(socket, "idle");
      // A connection waits for a slot: an idle keep-alive one makes room for it now.
      if (waiting.size > 0) evictOldest();
      return;
    }
    // Answered before its body arrived: the body is not waited for (the answer needs none).
    stats.unfinished++;
    setState(socket, "answered");
    socket.end();
    timer(socket, lingerMs, () => socket.destroy());
    if (waiting.size > 0) evictOldest();
  };

  return () => ({ open, waiting: waiting.size, ...stats });
}
