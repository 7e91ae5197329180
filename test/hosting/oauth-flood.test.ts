/**
 * Introspection under a flood (interface.md §9c), the red team's round-5 shape on loopback: one
 * client without credentials holds 480 requests with made-up opaque tokens (each answered request
 * sent again at once, as long as the users are signing in), while 8 users sign in with valid
 * tokens. The authorization server is a purpose-built one that holds the flood's introspections
 * until the users are done (an authorization server slowed down by the flood), so the queue is as
 * full as it can be. Every user is served; the flood is shed with 503 and Retry-After; no request
 * gets a 401 except for a token the authorization server said is not active.
 * Nothing waits on the clock: the flood starts, the users sign in once the flood is being shed and
 * the authorization server holds its calls, and the flood stops once the users are through.
 * FLOOD_FIGURES=1 prints what happened (users' time, the flood's answers) for a closing note.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Worker } from "node:worker_threads";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { Secret } from "../../src/errors/secret.js";
import { idempotencyBackends } from "../../src/hosting/idempotency.js";
import { createServerSet } from "../../src/hosting/servers.js";
import { createStateSigner } from "../../src/mcp/sdk.js";
import { selectTools } from "../../src/mcp/server.js";
import { oauthAuthentication } from "../../src/mcp/transports/http/oauth/index.js";
import { type HttpHandle, startHttp } from "../../src/mcp/transports/http.js";
import { captureLogger, useSandbox } from "../helpers/sandbox.js";

const fx = useSandbox();
const FLOOD = 480;
const USERS = 8;
/** A guard against a runaway loop, far above what a run sends. */
const MAX_FLOOD_SENDS = 50_000;

/** The authorization server: metadata, and introspection that knows the users' tokens and holds the rest. */
async function authorizationServer() {
  const valid = new Set<string>();
  const held: (() => void)[] = [];
  let holding = false;
  let answeredInactive = 0;
  let onHeld: (() => void) | undefined;
  const server: Server = createServer((req, res) => {
    const json = (body: unknown) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.url === "/.well-known/oauth-authorization-server")
      return json({ issuer, introspection_endpoint: `${issuer}/introspect` });
    if (req.url !== "/introspect") return res.writeHead(404).end();
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const token = new URLSearchParams(body).get("token") ?? "";
      if (valid.has(token))
        return json({ active: true, sub: `user-${token.slice(0, 6)}`, aud: audience, scope: "mms:read" });
      const answer = () => {
        answeredInactive++;
        json({ active: false });
      };
      if (!holding) return answer();
      held.push(answer);
      onHeld?.();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let audience = "";
  return {
    issuer,
    setAudience: (url: string) => {
      audience = url;
    },
    /** A user signs in: a new random token the server will call active. */
    signIn: () => {
      const token = randomBytes(32).toString("base64url");
      valid.add(token);
      return token;
    },
    hold: () => {
      holding = true;
    },
    /** Resolves once `n` calls are held. */
    heldAtLeast: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (held.length >= n) resolve();
        };
        onHeld = check;
        check();
      }),
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    answeredInactive: () => answeredInactive,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type AS = Awaited<ReturnType<typeof authorizationServer>>;

let as: AS;
let http: HttpHandle;
let closeAll: () => Promise<void>;
beforeAll(async () => {
  as = await authorizationServer();
  const { logger } = captureLogger("info");
  const tools = selectTools({ readOnly: false, hubAvailable: true }).tools;
  const backends = await idempotencyBackends({
    redisUrl: undefined,
    ttlMs: 60_000,
    redisTimeoutMs: 1000,
    tenants: undefined,
    logger,
  });
  const serverSet = createServerSet({
    config: loadConfig({ ...fx.sb.env({}), MMS_MAX_RETRIES: "0" }),
    tenants: undefined,
    tools,
    sandbox: true,
    confirmWrites: false,
    logger,
    backends,
    signer: createStateSigner(),
    stopping: new AbortController().signal,
  });
  http = await startHttp(serverSet.makeServer, {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    logger,
    version: "test",
    writerTools: new Set(tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name)),
    authenticator: (url) => {
      as.setAudience(url);
      return oauthAuthentication({
        config: {
          issuer: as.issuer,
          publicUrl: url,
          tenantClaim: undefined,
          introspection: { clientId: "mcp", clientSecret: new Secret("introspection-secret-0123456789") },
        },
      });
    },
  });
  closeAll = async () => {
    await http.close();
    await serverSet.clients.close();
    await backends.close();
    await as.close();
  };
});
afterAll(() => closeAll());

interface FloodAnswer {
  status: number;
  retryAfter: string | undefined;
  challenge: string | undefined;
}

/** The flood client (test/helpers/flood-client.mjs) in a worker thread, from `localAddress`. */
function startFlood(url: string, localAddress: string) {
  const worker = new Worker(new URL("../helpers/flood-client.mjs", import.meta.url), {
    workerData: { url, localAddress, holders: FLOOD, maxSends: MAX_FLOOD_SENDS },
  });
  let shedSeen!: () => void;
  const shed = new Promise<void>((resolve) => {
    shedSeen = resolve;
  });
  const done = new Promise<{ sent: number; answers: FloodAnswer[] }>((resolve, reject) => {
    worker.on("error", reject);
    worker.on("message", (m: { type: string; sent: number; answers: [number, string?, string?][] }) => {
      if (m.type === "shed") shedSeen();
      if (m.type === "done")
        resolve({
          sent: m.sent,
          answers: m.answers.map(([status, retryAfter, challenge]) => ({ status, retryAfter, challenge })),
        });
    });
  });
  return {
    shed,
    async stop() {
      worker.postMessage("stop");
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

/** A user signs in (a valid token), connects, lists the tools; the status of what failed, if anything. */
async function user(url: string): Promise<{ ok: boolean; error?: string }> {
  const client = new Client({ name: "user", version: "1" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${as.signIn()}` } },
      }),
    );
    const { tools } = await client.listTools();
    return { ok: tools.length > 0 };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  } finally {
    await client.close();
  }
}

describe.each([
  ["another address", "127.0.0.2"],
  ["the users' own address", "127.0.0.1"],
])("480 held requests with made-up tokens from %s, 8 users signing in meanwhile", (_where, address) => {
  it("every user is served; the flood is shed with 503 and Retry-After; a 401 only for a token found inactive", async () => {
    as.hold();
    const inactiveBefore = as.answeredInactive();
    const flood = startFlood(http.url, address);
    let result: { sent: number; answers: FloodAnswer[] };
    try {
      // The queue is full: calls are held at the authorization server and the flood is being shed.
      await Promise.all([flood.shed, as.heldAtLeast(6)]);
      const t0 = performance.now();
      const users = await Promise.all(Array.from({ length: USERS }, () => user(http.url)));
      if (process.env.FLOOD_FIGURES)
        process.stderr.write(
          `FIGURES ${address}: ${USERS} users signed in in ${Math.round(performance.now() - t0)} ms\n`,
        );
      expect(users).toEqual(Array.from({ length: USERS }, () => ({ ok: true })));
    } finally {
      const stopped = flood.stop();
      as.release();
      result = await stopped;
    }
    const { answers } = result;
    const shed = answers.filter((a) => a.status === 503);
    const refused = answers.filter((a) => a.status === 401);
    if (process.env.FLOOD_FIGURES)
      process.stderr.write(
        `FIGURES ${address}: flood sent ${result.sent}, shed ${shed.length} (503), refused ${refused.length} (401, inactive), other ${answers.length - shed.length - refused.length}\n`,
      );
    expect(shed.length + refused.length).toBe(answers.length);
    // 2 s when shed from the queue; 10 s for a call the authorization server held past its 5 s.
    expect(
      shed.every((a) => (a.retryAfter === "2" || a.retryAfter === "10") && a.challenge === undefined),
    ).toBe(true);
    expect(shed.filter((a) => a.retryAfter === "2").length).toBeGreaterThan(FLOOD);
    expect(refused.every((a) => a.challenge?.includes('error="invalid_token"'))).toBe(true);
    // A 401 only where the authorization server said "not active": never for congestion.
    expect(refused.length).toBeLessThanOrEqual(as.answeredInactive() - inactiveBefore);
  });
});
