/**
 * The request pipeline of the sandbox: fault decision, body (1 MiB cap), routing
 * (token endpoint, main API, hub, fault control), authentication, handler, and the answer
 * (signed with `Server-Authorization` for Hawk-authenticated requests).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import Hawk from "hawk";
import type { Logger } from "../telemetry/logger.js";
import type { AuthService, Principal } from "./auth.js";
import type { FaultResponse, Faults } from "./faults.js";
import type { SandboxRateLimit } from "./rate-limit.js";
import { errorItem, json, oauthError, problem, type Reply } from "./responses.js";
import { Router } from "./router.js";
import { listBudgets } from "./routes/budgets.js";
import type { Env } from "./routes/common.js";
import { listDags } from "./routes/hub.js";
import { createTaskResources } from "./routes/tasks.js";
import { createWarehouseEntry } from "./routes/warehouse-entries.js";
import { listWarehouseGroups1 } from "./routes/warehouse-groups.js";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface PipelineDeps {
  env: Env;
  auth: AuthService;
  faults: Faults;
  logger: Logger;
  /** Expose `/__faults` over HTTP. */
  faultRoute: boolean;
  isClosed: () => boolean;
  /** With a state file: resolves when every change so far is on disk (awaited before each answer). */
  durable?: () => Promise<void>;
  /** The platform's request limit (off when undefined): headers on every answer, 406 past it. */
  rateLimit?: SandboxRateLimit | undefined;
}

function mainRouter(env: Env): Router<Principal> {
  return new Router<Principal>()
    .add("POST", "/api/group_tasks/:id_group_task/tasks/:id_task/resources", createTaskResources(env))
    .add("POST", "/api/warehouse_entries_orders/:warehouse_code", createWarehouseEntry(env))
    .add("GET", "/api/wo_budget", listBudgets(env))
    .add("GET", "/api/wo_budget/:id", listBudgets(env))
    .add("GET", "/api/warehouses_groups_1", listWarehouseGroups1(env));
}

async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  // Drain the whole body even when it is too large, so the client reads our 413 cleanly.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  }
  return { text: tooLarge ? "" : Buffer.concat(chunks).toString("utf8"), tooLarge };
}

function faultReply(r: FaultResponse): Reply {
  const isText = typeof r.body === "string" || r.body === undefined;
  return {
    status: r.status,
    body: r.body === undefined ? "" : typeof r.body === "string" ? r.body : JSON.stringify(r.body),
    contentType: r.contentType ?? (isText ? "text/plain; charset=utf-8" : "application/json"),
    headers: r.headers,
  };
}

function write(res: ServerResponse, reply: Reply, principal?: Principal): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string> = { ...reply.headers, "Content-Type": reply.contentType };
  if (principal?.hawk) {
    headers["Server-Authorization"] = Hawk.server.header(
      principal.hawk.credentials,
      principal.hawk.artifacts,
      {
        payload: reply.body,
        contentType: reply.contentType,
      },
    );
  }
  headers["Content-Length"] = String(Buffer.byteLength(reply.body));
  res.writeHead(reply.status, headers);
  res.end(reply.body);
}

/** Write headers and half a body, then reset the connection (fault `resetNext`). */
function resetMidBody(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  const partial = '{"success":true,"message":"200","data":[{"id":';
  socket.write(
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n${partial}`,
    () => {
      setTimeout(() => {
        const s = socket as typeof socket & { resetAndDestroy?: () => void };
        if (typeof s.resetAndDestroy === "function") s.resetAndDestroy();
        else socket.destroy();
      }, 20);
    },
  );
}

export function createPipeline(deps: PipelineDeps) {
  const { env, auth, faults, logger } = deps;
  const api = mainRouter(env);
  const hub = new Router<Principal>().add("GET", "/hub/api/v1/dags", listDags(env));
  /** Headers the rate limit puts on the answer being built (set by `limited`, read by `handle`). */
  const limitHeaders = new WeakMap<IncomingMessage, Record<string, string>>();

  /** Count the request against its company: the 406 to send, or undefined when it may run. */
  function limited(req: IncomingMessage, principal: Principal, refusal: () => Reply): Reply | undefined {
    if (deps.rateLimit === undefined) return undefined;
    const admission = deps.rateLimit.admit(principal);
    limitHeaders.set(req, admission.headers);
    return admission.admitted ? undefined : refusal();
  }

  /** The answer with the rate-limit headers of its request (the limit alone when it counted against no company). */
  function withLimitHeaders(req: IncomingMessage, reply: Reply): Reply {
    if (deps.rateLimit === undefined) return reply;
    const headers = limitHeaders.get(req) ?? deps.rateLimit.announce();
    return { ...reply, headers: { ...reply.headers, ...headers } };
  }

  async function dispatch(
    req: IncomingMessage,
    method: string,
    url: URL,
    body: string,
  ): Promise<{ reply: Reply; principal?: Principal }> {
    const path = url.pathname;
    if (path === "/oauth/token") {
      if (method !== "POST")
        return { reply: oauthError(405, "invalid_request", "Use POST for /oauth/token") };
      const reply = auth.token(req, body);
      if (reply.status === 200) env.changed();
      return { reply };
    }
    if (path.startsWith("/hub/")) {
      const m = hub.match(method, path);
      if (m.kind === "not-found")
        return { reply: problem(404, "NOT_FOUND", `No hub route ${method} ${path}`) };
      if (m.kind === "method-not-allowed") {
        return { reply: problem(405, "METHOD_NOT_ALLOWED", `Use ${m.allow.join(", ")} for ${path}`) };
      }
      const a = auth.hub(req);
      if (!a.ok) return { reply: a.reply };
      const refused = limited(req, a.principal, () =>
        problem(
          406,
          "TOO_MANY_REQUESTS",
          "Requests per minute exceeded for this company; wait for the reset",
        ),
      );
      if (refused) return { reply: refused };
      const reply = await m.handler({
        req,
        params: m.params,
        query: url.searchParams,
        rawBody: body,
        auth: a.principal,
      });
      return { reply };
    }
    const m = api.match(method, path);
    if (m.kind === "not-found") return { reply: errorItem(404, `Unknown route ${method} ${path}`) };
    if (m.kind === "method-not-allowed") {
      const reply = errorItem(405, `Method ${method} is not allowed on ${path}`);
      reply.headers = { Allow: m.allow.join(", ") };
      return { reply };
    }
    const a = await auth.main(req, body);
    if (!a.ok) return { reply: a.reply };
    // upstream-notes: 406 is "requests per minute exceeded" on this platform; nothing is applied.
    const refused = limited(req, a.principal, () =>
      errorItem(406, "Requests per minute exceeded for this company; wait for the reset"),
    );
    if (refused) return { reply: refused, principal: a.principal };
    const ctx = { req, params: m.params, query: url.searchParams, rawBody: body, auth: a.principal };
    return { reply: await m.handler(ctx), principal: a.principal };
  }

  function control(method: string, body: string): Reply {
    if (method === "GET") return json(200, faults.describe());
    if (method === "DELETE") {
      faults.reset();
      return json(200, { ok: true });
    }
    if (method !== "POST") return json(405, { error: "Use GET, POST or DELETE" });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return json(400, { error: "body must be JSON: {action, ...args}" });
    }
    const error = faults.command(parsed);
    return error ? json(400, { error }) : json(200, { ok: true });
  }

  /**
   * IMPORTANT: nothing is answered before the changes made so far are on disk, so a 200 survives
   * `kill -9`. When they cannot be saved the answer is a 500 saying so, never a 200.
   */
  async function persisted(reply: Reply): Promise<Reply> {
    if (!deps.durable) return reply;
    try {
      await deps.durable();
      return reply;
    } catch (err) {
      logger.error("sandbox state could not be saved", { error: err });
      return errorItem(
        500,
        `The sandbox could not save its state file (${(err as Error).message}): changes since are in memory ` +
          "only and every request fails until the sandbox is restarted",
      );
    }
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const method = (req.method ?? "GET").toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://sandbox.invalid");
    } catch {
      return write(res, errorItem(400, "Malformed request URL"));
    }
    try {
      if (deps.faultRoute && url.pathname === "/__faults") {
        const { text } = await readBody(req);
        return write(res, await persisted(control(method, text)));
      }
      const decision = faults.decide(method, url.pathname);
      const body = await readBody(req);
      await faults.hold(decision);
      if (deps.isClosed()) return;
      if (decision.action.kind === "reset") return resetMidBody(res);
      if (decision.action.kind === "fail") return write(res, faultReply(decision.action.response));
      if (body.tooLarge) {
        return write(res, errorItem(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`));
      }
      const { reply, principal } = await dispatch(req, method, url, body.text);
      write(res, withLimitHeaders(req, await persisted(reply)), principal);
      logger.debug("sandbox request", {
        method,
        path: url.pathname,
        status: reply.status,
        ms: Date.now() - started,
      });
    } catch (err) {
      logger.error("sandbox handler failed", { method, path: url.pathname, error: err });
      write(res, errorItem(500, "Internal server error"));
    }
  };
}
