/**
 * A loopback proxy in front of the sandbox that holds every request under `heldPath` until the
 * test releases it, so a test decides when each page arrives (no timing) and sees which requests a
 * client sent, which were answered and which the client gave up on (aborted while held).
 */
import { EventEmitter, once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Gate {
  /** Origin of the proxy: use `${url}/api` as MMS_BASE_URL and `url` as MMS_AUTH_URL. */
  url: string;
  /** Requests under heldPath received so far. */
  readonly received: number;
  /** Requests under heldPath the client closed before their answer. */
  readonly aborted: number;
  /** Requests under heldPath waiting for release. */
  readonly waiting: number;
  /** Requests under heldPath let through to the sandbox. */
  readonly forwarded: number;
  /** Let the next `count` held requests through (and any that arrive later, up to `count`). */
  release(count?: number): void;
  /** Stop holding: every held and later request goes through. */
  open(): void;
  /** Hold again: later requests wait for release (a test's starting state). */
  hold(): void;
  /** Resolves once `received` reaches n. */
  untilReceived(n: number): Promise<void>;
  /** Resolves once `aborted` reaches n. */
  untilAborted(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startGate(target: string, heldPath: string): Promise<Gate> {
  const events = new EventEmitter();
  const queue: (() => void)[] = [];
  let credit = 0;
  let opened = false;
  let received = 0;
  let aborted = 0;
  let forwarded = 0;

  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const upstream = http.request(
      `${target}${req.url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    upstream.end(body);
  };
  const drain = () => {
    while (queue.length > 0 && (opened || credit > 0)) {
      if (!opened) credit -= 1;
      queue.shift()!();
    }
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!req.url?.startsWith(heldPath)) {
      forward(req, res, body);
      return;
    }
    received += 1;
    let released = false;
    res.on("close", () => {
      if (!res.writableFinished && !released) {
        aborted += 1;
        const i = queue.indexOf(go);
        if (i >= 0) queue.splice(i, 1);
        events.emit("change");
      }
    });
    const go = () => {
      released = true;
      forwarded += 1;
      forward(req, res, body);
    };
    queue.push(go);
    events.emit("change");
    drain();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      const on = () => {
        if (!check()) return;
        events.off("change", on);
        resolve();
      };
      events.on("change", on);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get aborted() {
      return aborted;
    },
    get waiting() {
      return queue.length;
    },
    get forwarded() {
      return forwarded;
    },
    release(count = 1) {
      credit += count;
      drain();
    },
    open() {
      opened = true;
      drain();
    },
    hold() {
      opened = false;
      credit = 0;
    },
    untilReceived: (n) => until(() => received >= n),
    untilAborted: (n) => until(() => aborted >= n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
