/**
 * A tiny scriptable upstream on a real loopback node:http server (port 0), for client tests.
 * Routes match method + pathname; a route added with `times` is consumed after that many hits,
 * so a test scripts "503, then 200" by adding the 503 route with times: 1 after the 200 route.
 * Every request is recorded (method, url, headers, body) for assertions. A handler that throws
 * answers 599 and its error is kept in `handlerErrors`: tests rethrow it (`assertHandlersOk`) so
 * a failed check inside a handler surfaces as itself, not as an HTTP 599.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  pathname: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (
  req: Recorded,
  res: http.ServerResponse,
  raw: http.IncomingMessage,
) => void | Promise<void>;

interface Route {
  method: string;
  path: string | RegExp;
  handler: Handler;
  remaining: number;
}

export interface FakeUpstream {
  url: string;
  port: number;
  requests: Recorded[];
  /** Errors thrown by handlers, in order. */
  handlerErrors: unknown[];
  /** Throw the first handler error, if any (call it in afterEach and after a call under test). */
  assertHandlersOk(): void;
  /** Add a route; `times` (default unlimited) hits before it is used up. Later routes win. */
  on(method: string, path: string | RegExp, handler: Handler, times?: number): FakeUpstream;
  count(method: string, pathname: string | RegExp): number;
  close(): Promise<void>;
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = "application/json",
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendText(
  res: http.ServerResponse,
  status: number,
  text: string,
  contentType = "text/html",
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An envelope answer (api-spec §1). */
export function envelope(
  res: http.ServerResponse,
  status: number,
  message: string,
  data: unknown,
  total?: number,
) {
  sendJson(res, status, {
    success: status < 300,
    message,
    data,
    total: total ?? (Array.isArray(data) ? data.length : 1),
  });
}

const matches = (route: Route, method: string, pathname: string) =>
  route.method === method &&
  (typeof route.path === "string" ? route.path === pathname : route.path.test(pathname));

export async function startFake(): Promise<FakeUpstream> {
  const routes: Route[] = [];
  const requests: Recorded[] = [];
  const handlerErrors: unknown[] = [];
  const server = http.createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const c of raw) chunks.push(c as Buffer);
    const url = raw.url ?? "/";
    const rec: Recorded = {
      method: raw.method ?? "GET",
      url,
      pathname: url.split("?")[0]!,
      headers: raw.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(rec);
    for (let i = routes.length - 1; i >= 0; i--) {
      const r = routes[i]!;
      if (r.remaining > 0 && matches(r, rec.method, rec.pathname)) {
        r.remaining -= 1;
        try {
          await r.handler(rec, res, raw);
        } catch (e) {
          handlerErrors.push(e);
          if (!res.headersSent) sendText(res, 599, `handler failed: ${String(e)}`, "text/plain");
        }
        return;
      }
    }
    sendJson(res, 404, {
      success: false,
      message: "404",
      data: [{ ERROR: `no fake route for ${rec.method} ${rec.pathname}` }],
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeUpstream = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handlerErrors,
    assertHandlersOk() {
      if (handlerErrors.length > 0) throw handlerErrors[0];
    },
    on(method, path, handler, times = Number.POSITIVE_INFINITY) {
      routes.push({ method, path, handler, remaining: times });
      return fake;
    },
    count(method, pathname) {
      return requests.filter(
        (r) =>
          r.method === method &&
          (typeof pathname === "string" ? r.pathname === pathname : pathname.test(r.pathname)),
      ).length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** A port with nothing listening (connection refused). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
