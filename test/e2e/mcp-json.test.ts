/**
 * The client files are safe to paste: mcp.json (the `mcpServers` form every client reads) and one file per client
 * in examples/clients/, each in its own client's format. No entry runs a name from the npm registry (the package
 * is unpublished: whoever publishes the name first would get the user's credentials); the docs mark those forms
 * "once published". Every stdio entry starts and answers with its variables resolved as its client resolves
 * them, every HTTP entry connects with its Authorization header, and, when a `claude` binary is at hand, Claude
 * Code's own CLI reads its file and connects to each server. The tarball entry is started by package.test.ts.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCli } from "../../src/main/cli.js";
import { type SandboxHandle, startSandbox } from "../../src/sandbox/index.js";
import { cleanEnv, startBin } from "./bin.js";

interface Entry {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}
type Vars = Record<string, string>;

/** How each client reads its file: where the entries are, what an entry may hold, how `${...}` expands. */
interface ClientForm {
  file: string;
  /** Top-level keys the client reads. */
  keys: string[];
  entries: "mcpServers" | "servers";
  /** Every entry must say `type` (stdio or http). */
  typed: boolean;
  http: boolean;
  /** The client's variable syntax, resolved against `vars`; null: the client expands nothing. */
  variable: RegExp | null;
}

const FORMS: Record<string, ClientForm> = {
  root: {
    file: "mcp.json",
    keys: ["mcpServers"],
    entries: "mcpServers",
    typed: false,
    http: false,
    variable: null,
  },
  "claude-desktop": {
    file: "examples/clients/claude_desktop_config.json",
    keys: ["mcpServers"],
    entries: "mcpServers",
    typed: false,
    http: false,
    variable: null,
  },
  // Claude Code: ${VAR} or ${VAR:-default}; an unset VAR without a default makes it reject the whole file.
  "claude-code": {
    file: "examples/clients/claude-code.mcp.json",
    keys: ["mcpServers"],
    entries: "mcpServers",
    typed: true,
    http: true,
    variable: /\$\{([A-Z_][A-Z0-9_]*)(:-[^}]*)?\}/g,
  },
  vscode: {
    file: "examples/clients/vscode.mcp.json",
    keys: ["inputs", "servers"],
    entries: "servers",
    typed: true,
    http: true,
    variable: /\$\{input:([a-z0-9-]+)\}/g,
  },
  cursor: {
    file: "examples/clients/cursor.mcp.json",
    keys: ["mcpServers"],
    entries: "mcpServers",
    typed: false,
    http: true,
    variable: /\$\{env:([A-Z_][A-Z0-9_]*)\}/g,
  },
};

const PLACEHOLDER = "/ABSOLUTE/PATH/TO/maintenance-mcp";
const BUILT_BIN = `${PLACEHOLDER}/dist/bin/maintenance-mcp.js`;
const TOKEN = "mcp-json-token-0123456789abcdef";

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
const entriesOf = (form: ClientForm) => read(form.file)[form.entries] as Record<string, Entry>;
const isHttp = (entry: Entry) => entry.url !== undefined;

/**
 * `text` with the client's variables replaced from `vars` (inputs by id for VS Code), as that client would.
 * `unset: "empty"` is a user who has none of them: Cursor passes an unset variable as empty, VS Code an empty
 * input; Claude Code takes the `:-` default.
 */
function expand(form: ClientForm, text: string, vars: Vars, unset: "throw" | "empty" = "throw"): string {
  if (form.variable === null) return text;
  return text.replace(form.variable, (...match: unknown[]) => {
    const name = match[1] as string;
    // Only Claude Code's syntax has a second group (`:-default`); elsewhere it is the match offset.
    const fallback = typeof match[2] === "string" ? match[2] : undefined;
    const value = vars[name] ?? fallback?.slice(2) ?? (unset === "empty" ? "" : undefined);
    if (value === undefined) throw new Error(`${form.file}: ${name} is unset and has no default`);
    return value;
  });
}

/** The values a user would put in: the sandbox's URLs and credentials, this checkout as the clone. */
function userValues(sb: SandboxHandle, auth: "oauth" | "hawk"): Vars {
  const real = sb.env({ auth });
  return {
    ...real,
    "mms-client-secret": real.MMS_CLIENT_SECRET!,
    MCP_HTTP_TOKEN: TOKEN,
    "maintenance-http-token": TOKEN,
  };
}

/** A stdio entry as its client would spawn it, pointed at this checkout and the sandbox. */
function resolveStdio(form: ClientForm, entry: Entry, sb: SandboxHandle) {
  const auth = entry.env?.MMS_AUTH === "hawk" ? "hawk" : "oauth";
  const vars = userValues(sb, auth);
  const env = Object.fromEntries(
    Object.entries(entry.env ?? {}).map(([k, v]) => [
      k,
      // A literal placeholder ("your-client-id") is what the user replaces; a variable the client expands.
      v.includes("${") ? expand(form, v, vars) : (vars[k] ?? v),
    ]),
  );
  const args = entry.args!.map((a) => a.replace(PLACEHOLDER, resolve(".")));
  return { command: entry.command!, args, env, auth };
}

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

async function stdioTools(command: string, args: string[], env: Vars): Promise<string[]> {
  const client = new Client({ name: "mcp-json", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: command === "node" ? process.execPath : command,
      args,
      env: cleanEnv(env),
      stderr: "pipe",
    }),
  );
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool({ name: "list_warehouse_groups_1", arguments: { limit: 1 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return names;
  } finally {
    await client.close();
  }
}

async function httpTools(url: URL, headers: Vars): Promise<number> {
  const client = new Client({ name: "mcp-json-http", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  try {
    return (await client.listTools()).tools.length;
  } finally {
    await client.close();
  }
}

describe("client files", () => {
  it("each file has exactly its client's shape", () => {
    expect(readdirSync("examples/clients").sort()).toEqual(
      Object.values(FORMS)
        .map((f) => f.file)
        .filter((f) => f.startsWith("examples/clients/"))
        .map((f) => f.slice("examples/clients/".length))
        .sort(),
    );
    for (const [name, form] of Object.entries(FORMS)) {
      const file = read(form.file);
      expect(Object.keys(file).sort(), name).toEqual(form.keys);
      const entries = entriesOf(form);
      expect(Object.keys(entries), name).toContain("maintenance-sandbox");
      expect(Object.keys(entries), name).toContain("maintenance");
      for (const [key, entry] of Object.entries(entries)) {
        const where = `${form.file} ${key}`;
        if (form.typed) expect(["stdio", "http"], where).toContain(entry.type);
        else expect(entry.type, where).toBeUndefined();
        if (isHttp(entry)) {
          expect(form.http, where).toBe(true);
          expect(Object.keys(entry).sort(), where).toEqual(
            form.typed ? ["headers", "type", "url"] : ["headers", "url"],
          );
        } else {
          const allowed = ["args", "command", "env", ...(form.typed ? ["type"] : [])];
          for (const k of Object.keys(entry)) expect(allowed, where).toContain(k);
        }
      }
      // Only the client's own variable syntax: another client's would reach the server as literal text.
      const text = readFileSync(form.file, "utf8");
      const stray = text.replace(form.variable ?? /$^/g, "").match(/\$\{[^}]*\}/g);
      expect(stray, form.file).toBeNull();
    }
  });

  it("runs the clone's built binary or the packed tarball, never a name from the npm registry", () => {
    for (const form of Object.values(FORMS)) {
      for (const [key, entry] of Object.entries(entriesOf(form))) {
        if (isHttp(entry)) continue;
        const where = `${form.file} ${key}`;
        if (entry.command === "node") {
          expect(entry.args![0], where).toBe(BUILT_BIN);
        } else {
          expect(entry.command, where).toBe("npx");
          const pkg = entry.args![entry.args!.indexOf("--package") + 1];
          expect(pkg, where).toMatch(/^\/ABSOLUTE\/PATH\/TO\/maintenance-mcp-\d+\.\d+\.\d+\.tgz$/);
        }
        const flags = entry.args!.filter((a) => a.startsWith("--") && a !== "--package");
        expect(parseCli(flags).command, where).toBe("serve");
      }
    }
  });

  it("keeps the registry forms in the docs only, marked 'once published'", () => {
    const docs = [
      "README.md",
      ...readdirSync("docs")
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    let forms = 0;
    for (const doc of docs) {
      const lines = readFileSync(doc, "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!/npx -y maintenance-mcp|"-y", "maintenance-mcp"/.test(line)) return;
        forms += 1;
        const before = lines.slice(Math.max(0, i - 12), i + 1).join(" ");
        expect(before, `${doc}:${i + 1}`).toMatch(/once (the package is )?published/i);
      });
    }
    expect(forms).toBeGreaterThan(0);
  });

  it("gives VS Code its secrets through password inputs", () => {
    const file = read(FORMS.vscode!.file) as { inputs: { id: string; type: string; password?: boolean }[] };
    const used = [...readFileSync(FORMS.vscode!.file, "utf8").matchAll(/\$\{input:([a-z0-9-]+)\}/g)].map(
      (m) => m[1],
    );
    expect(file.inputs.map((i) => i.id).sort()).toEqual([...new Set(used)].sort());
    for (const input of file.inputs) expect(input).toMatchObject({ type: "promptString", password: true });
  });

  it("every stdio entry starts and answers, its variables resolved as its client would", async () => {
    const started = new Map<string, number>();
    for (const form of Object.values(FORMS)) {
      for (const entry of Object.values(entriesOf(form))) {
        if (isHttp(entry) || entry.command !== "node") continue;
        const run = resolveStdio(form, entry, sb);
        const id = JSON.stringify(run);
        if (!started.has(id)) started.set(id, (await stdioTools(run.command, run.args, run.env)).length);
        const readOnly = entry.args!.includes("--read-only");
        expect(started.get(id), form.file).toBe(run.auth === "hawk" ? 2 : readOnly ? 3 : 5);
      }
    }
    // The sandbox, OAuth, and read-only Hawk entries: every distinct spawn ran once.
    expect(started.size).toBe(3);
  }, 60_000);

  it("every HTTP entry connects with its Authorization header, and an unset token is harmless", async () => {
    const withToken = await startBin(
      ["--http", "--port", "0", "--sandbox"],
      cleanEnv({ MCP_HTTP_TOKEN: TOKEN }),
      /listening on (http:\S+)/,
    );
    const without = await startBin(
      ["--http", "--port", "0", "--sandbox"],
      cleanEnv(),
      /listening on (http:\S+)/,
    );
    try {
      let connected = 0;
      for (const form of Object.values(FORMS)) {
        for (const entry of Object.values(entriesOf(form))) {
          if (!isHttp(entry)) continue;
          for (const [server, vars] of [
            [withToken, userValues(sb, "oauth")],
            // A user without a token: Claude Code's `:-` default, Cursor's unset env, VS Code's empty input.
            [without, {}],
          ] as const) {
            const url = new URL(entry.url!);
            url.port = new URL(server.match[1]!).port;
            const headers = {
              Authorization: expand(form, entry.headers!.Authorization!, vars, "empty").trimEnd(),
            };
            expect(await httpTools(url, headers), form.file).toBe(5);
            connected += 1;
          }
        }
      }
      expect(connected).toBe(6);
    } finally {
      for (const { child } of [withToken, without]) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    }
  }, 60_000);
});

/** A `claude` binary: CLAUDE_BIN, else one on the PATH. Not a dependency (400 MB, its own licence). */
function findClaude(): string | undefined {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const bin = join(dir, process.platform === "win32" ? "claude.exe" : "claude");
    if (dir && existsSync(bin)) return bin;
  }
  return undefined;
}
const claude = findClaude();

describe.skipIf(claude === undefined)("Claude Code's own CLI (CLAUDE_BIN or claude on the PATH)", () => {
  it("reads examples/clients/claude-code.mcp.json as a project's .mcp.json and connects to every server", async () => {
    const work = mkdtempSync(join(tmpdir(), "maintenance-mcp-claude-"));
    const http = await startBin(
      ["--http", "--port", "0", "--sandbox"],
      cleanEnv({ MCP_HTTP_TOKEN: TOKEN }),
      /listening on (http:\S+)/,
    );
    try {
      const project = join(work, "project");
      const home = join(work, "home");
      mkdirSync(project);
      mkdirSync(home);
      const port = new URL(http.match[1]!).port;
      const text = readFileSync(FORMS["claude-code"]!.file, "utf8")
        .replaceAll(PLACEHOLDER, resolve("."))
        .replace("http://127.0.0.1:3333/mcp", `http://127.0.0.1:${port}/mcp`);
      writeFileSync(join(project, ".mcp.json"), text);
      const names = Object.keys(JSON.parse(text).mcpServers);
      // A fresh HOME that has approved this project's servers, as the first `claude` run would ask.
      writeFileSync(
        join(home, ".claude.json"),
        JSON.stringify({
          projects: { [project]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: names } },
        }),
      );
      const real = sb.env();
      const out = execFileSync(claude!, ["mcp", "list"], {
        cwd: project,
        env: cleanEnv({
          HOME: home,
          USERPROFILE: home,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          // What the user exports before starting claude; the file's URLs stay as pasted.
          MMS_CLIENT_ID: real.MMS_CLIENT_ID!,
          MMS_CLIENT_SECRET: real.MMS_CLIENT_SECRET!,
          MCP_HTTP_TOKEN: TOKEN,
        }),
        timeout: 90_000,
      }).toString();
      for (const name of names) expect(out, out).toMatch(new RegExp(`^${name}: .*Connected`, "m"));
    } finally {
      http.child.kill("SIGTERM");
      await once(http.child, "exit");
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
