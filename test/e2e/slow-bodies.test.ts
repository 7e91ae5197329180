/**
 * interface.md §9b "A body that trickles cannot hold the door", through the built binary on loopback:
 * the red team's reproduction (512 connections without a token send a request's headers with a large
 * Content-Length and trickle the body) no longer keeps a client out, and an authenticated client that
 * trickles its /mcp body is answered 408 within the body limit (MCP_HTTP_BODY_TIMEOUT_MS) while a new
 * client waits for the freed connection instead of being reset. Every wait is on an event: an
 * answer, the server's FIN, the binary's "listening" line.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv, startBin } from "./bin.js";

const TOKEN = "slow-bodies-token-0123456789abcdef";
const CAP = 512; // the process's connection cap (interface.md §9)

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

async function serve(bodyTimeoutMs: number) {
  const { child, match } = await startBin(
    ["--http", "--port", "0"],
    cleanEnv({ ...sb.env(), MCP_HTTP_TOKEN: TOKEN, MCP_HTTP_BODY_TIMEOUT_MS: String(bodyTimeoutMs) }),
    /listening on (http:\S+)/,
  );
  const url = new URL(match[1]!);
  return { child, url, port: Number(url.port) };
}

async function stop(child: ChildProcess) {
  child.kill("SIGTERM");
  await once(child, "exit");
}

/**
 * An attacker's connection: the headers of `path` with a Content-Length of 1 MB (under the size limit) and 3 bytes of
 * body, its side kept open (half-open allowed). `answer` resolves with what the server sent once it
 * ended its side (its FIN), i.e. once the server stopped waiting for this body.
 */
function trickle(port: number, path: string, headers = ""): { socket: Socket; answer: Promise<string> } {
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  socket.on("error", () => {});
  let received = "";
  socket.on("data", (d) => (received += d));
  // The server's FIN ends the answer; a reset (the server closed it with the body unread) too.
  const answer = new Promise<string>((resolve) => {
    socket.once("end", () => resolve(received));
    socket.once("error", () => resolve(received));
  });
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${headers}Content-Length: 1000000\r\n\r\n{"a`,
  );
  return { socket, answer };
}

/** A real client's first request: initialize with the token. */
async function initialize(url: URL): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
    }),
  });
}

describe("a body that trickles cannot hold the door (interface.md §9b)", () => {
  it(`${CAP} connections without a token trickling bodies to /healthz and /mcp: each is answered and let go, and a new client is served at once`, async () => {
    // A body limit of 60 s: whatever frees the door here, it is not the body limit.
    const { child, url, port } = await serve(60_000);
    const attackers: Socket[] = [];
    try {
      const answers: Promise<string>[] = [];
      for (let i = 0; i < CAP; i++) {
        const t = trickle(port, i % 2 === 0 ? "/healthz" : "/mcp");
        attackers.push(t.socket);
        answers.push(t.answer);
      }
      const seen = await Promise.all(answers);
      for (const [i, text] of seen.entries()) {
        if (i % 2 === 0) {
          // /healthz takes no body (GET): POST there is 404, and the answer says the connection ends.
          expect(text).toMatch(/^HTTP\/1\.1 404/);
          expect(text.toLowerCase()).toContain("connection: close");
        } else expect(text).toMatch(/^HTTP\/1\.1 401/);
      }
      // Every attacker still holds its side open; a real client gets its answer all the same.
      expect(attackers.every((s) => !s.destroyed)).toBe(true);
      const res = await initialize(url);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('"protocolVersion"');
    } finally {
      for (const s of attackers) s.destroy();
      await stop(child);
    }
  });

  it(`${CAP} authenticated clients trickling their /mcp body: each gets 408 within the body limit, and a client beyond the cap waits and is served`, async () => {
    const { child, url, port } = await serve(2_000);
    const attackers: Socket[] = [];
    try {
      const answers: Promise<string>[] = [];
      for (let i = 0; i < CAP; i++) {
        const t = trickle(port, "/mcp", `Authorization: Bearer ${TOKEN}\r\n`);
        attackers.push(t.socket);
        answers.push(t.answer);
      }
      // The cap is reached: this client's connection waits, unread, for the first 408 to free one.
      const res = await initialize(url);
      expect(res.status).toBe(200);
      const seen = await Promise.all(answers);
      // Each was answered 408 in our words; the one closed to make room for the waiting client may
      // have been reset before its reader saw the answer.
      const reset = seen.filter((text) => text === "");
      expect(reset.length).toBeLessThanOrEqual(1);
      for (const text of seen.filter((t) => t !== "")) {
        expect(text).toMatch(/^HTTP\/1\.1 408/);
        expect(text).toContain("Request body not received within 2000 ms");
      }
    } finally {
      for (const s of attackers) s.destroy();
      await stop(child);
    }
  });
});
