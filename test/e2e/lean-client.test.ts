/**
 * What the shipped binary's first upstream requests load (scripts/build.mjs, scripts/undici-shims/):
 * the bundled undici runs without node:assert, node:zlib and its HTTP/2 client (node:http2, node:tls),
 * and still serves calls over OAuth, Hawk and HTTPS (node:tls then loads on demand); and the warm-up
 * after tools/list loads node:perf_hooks with undici, so the first call does not. Node's own list of
 * loaded built-in modules, written by a preload script (at exit, or when signalled), is the evidence.
 * What every start compiles is read from the bundle itself: zod's English messages only, and the SDK's
 * ajv run on its first validation (a confirmed write's form elicitation, test/e2e/eras.test.ts).
 */
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { BIN, cleanEnv } from "./bin.js";

let sb: SandboxHandle;
let work: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  work = mkdtempSync(join(tmpdir(), "maintenance-mcp-lean-"));
});
afterAll(async () => {
  await sb?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A preload script that writes the server's loaded modules (`process.moduleLoadList`) to `out` on `event`. */
function moduleListPreload(name: string, event: "exit" | "SIGUSR2", out: string): string {
  const preload = join(work, `preload-${name}.mjs`);
  writeFileSync(
    preload,
    `import { writeFileSync } from "node:fs";\nprocess.on(${JSON.stringify(event)}, () => writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`,
  );
  return preload;
}

/** Serve one call over stdio with `env`; returns the built-in modules the server had loaded at exit. */
async function builtinsAfterOneCall(name: string, env: Record<string, string>): Promise<string[]> {
  const out = join(work, `modules-${name}.txt`);
  const preload = moduleListPreload(name, "exit", out);
  const client = new Client({ name: "lean-client-test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--import", preload, BIN],
      env: cleanEnv(env),
      stderr: "pipe",
    }),
  );
  try {
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 2 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  } finally {
    await client.close();
  }
  return readFileSync(out, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("NativeModule "))
    .map((line) => line.slice("NativeModule ".length));
}

describe("the warm-up after tools/list", () => {
  it("loads node:perf_hooks with undici, before any call (the first call's clock would load it)", async () => {
    const out = join(work, "modules-warm.txt");
    const preload = moduleListPreload("warm", "SIGUSR2", out);
    writeFileSync(
      preload,
      `import { writeFileSync } from "node:fs";\nprocess.on("SIGUSR2", () => writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`,
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", preload, BIN],
      env: cleanEnv(sb.env()),
      stderr: "pipe",
    });
    const client = new Client({ name: "lean-client-test", version: "1" });
    await client.connect(transport);
    try {
      await client.listTools();
      // Poll the server's own list until the warm-up has loaded undici (it reads node:http).
      let loaded: string[] = [];
      for (let i = 0; i < 100 && !loaded.includes("NativeModule http"); i++) {
        await new Promise((r) => setTimeout(r, 100));
        process.kill(transport.pid!, "SIGUSR2");
        await new Promise((r) => setTimeout(r, 20));
        // Not written yet on a busy machine (the signal is handled later): poll again.
        loaded = existsSync(out) ? readFileSync(out, "utf8").split("\n") : [];
      }
      expect(loaded).toContain("NativeModule http");
      expect(loaded).toContain("NativeModule perf_hooks");
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("the bundled HTTP client", () => {
  it.each(["oauth", "hawk"] as const)(
    "answers a call over %s without node:assert, node:http2, node:tls or node:zlib",
    async (auth) => {
      const loaded = await builtinsAfterOneCall(auth, sb.env({ auth }));
      // undici loaded (it reads node:http's header size limit), so the list covers the request path.
      expect(loaded).toContain("http");
      // zlib: the review history's codec loads it when it reads or writes one (undici's fetch utilities,
      // which require it, are not loaded by our Agent and request).
      expect(loaded.filter((m) => ["assert", "http2", "tls", "zlib"].includes(m))).toEqual([]);
    },
    30_000,
  );

  it("reaches an HTTPS upstream: node:tls loads when needed, node:http2 never", async () => {
    // An HTTPS front for the sandbox, with the test certificate (test/fixtures/tls/README.md).
    const fixtures = join(import.meta.dirname, "..", "fixtures", "tls");
    const target = new URL(sb.url);
    const front: Server = createServer(
      {
        key: readFileSync(join(fixtures, "localhost-key.pem")),
        cert: readFileSync(join(fixtures, "localhost-cert.pem")),
      },
      (req, res) => {
        const upstream = request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(upstream);
      },
    );
    front.listen(0, "127.0.0.1");
    await once(front, "listening");
    const origin = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
    try {
      const loaded = await builtinsAfterOneCall("https", {
        ...sb.env(),
        MMS_BASE_URL: `${origin}/api`,
        MMS_AUTH_URL: origin,
        NODE_EXTRA_CA_CERTS: join(fixtures, "localhost-cert.pem"),
      });
      expect(loaded).toContain("tls");
      expect(loaded.filter((m) => ["assert", "http2"].includes(m))).toEqual([]);
    } finally {
      front.closeAllConnections();
      front.close();
    }
  }, 30_000);
});

describe("what every start compiles (scripts/build.mjs)", () => {
  const chunks = join(dirname(BIN), "chunks");
  const bundled = readdirSync(chunks).map((f) => readFileSync(join(chunks, f), "utf8"));

  it("holds zod's English messages and no other locale", () => {
    const locales = bundled.flatMap((text) =>
      [...text.matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/(\S+)$/gm)].map((m) => m[1]),
    );
    expect(locales.sort()).toEqual(["en.js", "index.js"]);
  });

  it("runs the SDK's ajv modules on the first validation, not when the SDK loads", () => {
    const sdk = bundled.filter((text) => text.includes("var AjvJsonSchemaValidator = class"));
    expect(sdk).toHaveLength(1);
    expect(sdk[0]).toContain("ajvLoaded().d2020.Ajv2020");
    expect(sdk[0]).not.toMatch(/^var import_ajv = require_ajv\(\);$/m);
  });
});
