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

/** Whether a request's body has yet to arrive (one declared and not all read; none declared is none pending). */
function bodyPending(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

type State = "waiting" | "silent" | "active" | "idle" | "answered";

/** The connections of one server and their state; each event of the server is one method. */
class Connections {
  readonly #state = new WeakMap<Socket, State>();
  readonly #timers = new WeakMap<Socket, NodeJS.Timeout>();
  /** Admitted connections without a request in progress, longest first (a Set keeps insertion order). */
  readonly #evictable = new Set<Socket>();
  readonly #waiting = new Set<Socket>();
  #open = 0;
  readonly stats = { silentClosed: 0, evicted: 0, refused: 0, waitedOut: 0, unfinished: 0 };

  constructor(private readonly bounds: Required<ConnectionBounds>) {}

  snapshot(): ConnectionStats {
    return { open: this.#open, waiting: this.#waiting.size, ...this.stats };
  }

  /** A new connection: admitted, admitted in place of the oldest evictable one, made to wait, or refused. */
  connected(socket: Socket): void {
    socket.once("close", () => this.#closed(socket));
    if (this.#open < this.bounds.max || this.#evictOldest()) this.#admit(socket);
    else if (this.#waiting.size < this.bounds.maxWaiting) this.#wait(socket);
    else {
      this.stats.refused++;
      socket.destroy();
    }
  }

  /** A request's headers arrived: busy until its response is done. */
  request(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    clearTimeout(this.#timers.get(socket));
    this.#set(socket, "active");
    // An answer sent before the body has arrived (a refusal, /healthz) says the connection ends, so
    // a keep-alive client does not send its next request on a connection about to close.
    const writeHead = res.writeHead;
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      if (bodyPending(req) && !res.headersSent) res.setHeader("connection", "close");
      return writeHead.apply(res, args);
    }) as typeof writeHead;
    res.once("close", () => this.#answered(socket, req));
  }

  #closed(socket: Socket): void {
    clearTimeout(this.#timers.get(socket));
    this.#evictable.delete(socket);
    this.#waiting.delete(socket);
    const was = this.#state.get(socket);
    // Refused and waiting connections never counted as open.
    if (was === undefined || was === "waiting") return;
    this.#open--;
    while (this.#open < this.bounds.max && this.#waiting.size > 0) {
      const next = this.#waiting.values().next().value!;
      this.#waiting.delete(next);
      this.#admit(next);
    }
  }

  /** The response is done: the connection is idle, or, when the body never came, ended. */
  #answered(socket: Socket, req: IncomingMessage): void {
    if (socket.destroyed || this.#state.get(socket) !== "active") return;
    if (!bodyPending(req)) this.#set(socket, "idle");
    else {
      // Answered before its body arrived: the body is not waited for (the answer needs none).
      this.stats.unfinished++;
      this.#set(socket, "answered");
      socket.end();
      this.#timer(socket, this.bounds.lingerMs, () => socket.destroy());
    }
    // A connection waits for a slot: this one, now without a request, makes room for it.
    if (this.#waiting.size > 0) this.#evictOldest();
  }

  #admit(socket: Socket): void {
    this.#open++;
    this.#set(socket, "silent");
    this.#timer(socket, this.bounds.silentMs, () => {
      if (this.#state.get(socket) !== "silent") return;
      this.stats.silentClosed++;
      socket.destroy();
    });
    socket.resume();
  }

  #wait(socket: Socket): void {
    this.#set(socket, "waiting");
    this.#waiting.add(socket);
    this.#timer(socket, this.bounds.waitMs, () => {
      if (!this.#waiting.delete(socket)) return;
      this.stats.waitedOut++;
      socket.destroy();
    });
  }

  #evictOldest(): boolean {
    const oldest = this.#evictable.values().next().value;
    if (oldest === undefined) return false;
    this.#evictable.delete(oldest);
    this.stats.evicted++;
    oldest.destroy();
    return true;
  }

  #set(socket: Socket, next: State): void {
    this.#state.set(socket, next);
    this.#evictable.delete(socket);
    if (next === "silent" || next === "idle" || next === "answered") this.#evictable.add(socket);
  }

  #timer(socket: Socket, ms: number, then: () => void): void {
    clearTimeout(this.#timers.get(socket));
    const t = setTimeout(then, ms);
    t.unref();
    this.#timers.set(socket, t);
  }
}

export function boundConnections(server: Server, bounds: ConnectionBounds): () => ConnectionStats {
  const connections = new Connections({
    maxWaiting: 128,
    waitMs: 20_000,
    lingerMs: 1_000,
    ...bounds,
  });
  // No byte is read from a new connection until it is admitted (resumed).
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  server.on("connection", (socket: Socket) => connections.connected(socket));
  // Before the server's own handler: an answer it sends at once must already find the hook.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) =>
    connections.request(req, res),
  );
  return () => connections.snapshot();
}
