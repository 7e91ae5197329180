/**
 * argv (and the flag variables MMS_SANDBOX, MMS_READ_ONLY, MMS_CONFIRM_WRITES) → what to run
 * (interface.md §1). Pure: returns a plan or throws ConfigError naming the flag; `src/main/index.ts`
 * prints it and exits 2. A flag on the command line wins over its variable.
 */
import { parseArgs } from "node:util";
import { closest } from "../config/suggest.js";
import { VARIABLES, type VariableGroup } from "../config/variables.js";
import { ConfigError, type ConfigProblem } from "../errors/api-error.js";

/** What a `maintenance-mcp [--http]` start serves. */
export interface ServePlan {
  command: "serve";
  http: boolean;
  host: string;
  port: number;
  sandbox: boolean;
  readOnly: boolean;
  tools: string[] | undefined;
  confirmWrites: boolean;
  /** --rate-limit N with --sandbox: the simulator plays the platform's limit (N requests per minute per company). */
  sandboxRateLimit?: number | undefined;
}

export type CliPlan =
  | { command: "help" }
  | { command: "version" }
  | { command: "sandbox"; argv: string[] }
  /** --check: test the configuration `plan` would serve with (src/main/check.ts). */
  | { command: "check"; plan: ServePlan }
  | ServePlan;

const GROUP_TITLES: Record<VariableGroup, string> = {
  upstream: "The upstream (required unless --sandbox)",
  switches: "Switches (true/false, the variable form of the flags, for MCP Bundles)",
  http: "HTTP and hosting (with --http)",
  tracing: "Tracing (OpenTelemetry, OTLP/HTTP)",
  logging: "Logging",
};

/** Every variable of src/config/variables.ts, grouped, one line each: --help cannot drift from what is read. */
function environmentHelp(): string {
  const width = Math.max(...VARIABLES.map((v) => v.name.length)) + 2;
  return (Object.keys(GROUP_TITLES) as VariableGroup[])
    .map((group) => {
      const lines = VARIABLES.filter((v) => v.group === group).map(
        (v) => `  ${v.name.padEnd(width)}${v.summary}`,
      );
      return `${GROUP_TITLES[group]}:\n${lines.join("\n")}`;
    })
    .join("\n\n");
}

export const USAGE = `maintenance-mcp: MCP server for a maintenance-management (CMMS) API

Usage:
  maintenance-mcp [options]              MCP over stdio, upstream from MMS_* variables
  maintenance-mcp --http [options]       MCP over Streamable HTTP at /mcp (and GET /healthz)
  maintenance-mcp --check [options]      check the configuration before wiring a client: fetch a
                                         token, read one page of the API and the hub; exit 0 when
                                         every step passed (1: a step failed, 2: bad configuration)
  maintenance-mcp sandbox [--host H] [--port P] [--state FILE] [--faults]
                                         run the API simulator alone (see its --help)

Options:
  --http               serve Streamable HTTP instead of stdio
  --host <host>        HTTP bind address (default 127.0.0.1; any other needs MCP_HTTP_TOKEN)
  --port <port>        HTTP port (default 3333; 0 picks a free one)
  --sandbox            use the embedded simulator instead of a real upstream (demo data)
  --rate-limit <n>     with --sandbox: the simulator allows n requests per minute per company
                       and answers 406 past it, like the platform (its limit is 200)
  --read-only          register only tools that do not write upstream
  --tools <a,b>        register only these tools
  --confirm-writes     ask the user (MCP elicitation) before every write
  --check              check the configuration instead of serving (see above)
  -h, --help           show this help
  -v, --version        print the version

Environment (every variable the server reads; see README, "Configuration"):

${environmentHelp()}`;

const OPTIONS = {
  http: { type: "boolean" },
  host: { type: "string" },
  port: { type: "string" },
  sandbox: { type: "boolean" },
  "read-only": { type: "boolean" },
  tools: { type: "string" },
  "confirm-writes": { type: "boolean" },
  "rate-limit": { type: "string" },
  check: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

/** The boolean flags a variable can also set (an MCP Bundle passes user settings as variables). */
export const FLAG_VARIABLES = {
  sandbox: "MMS_SANDBOX",
  "read-only": "MMS_READ_ONLY",
  "confirm-writes": "MMS_CONFIRM_WRITES",
} as const;

export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): CliPlan {
  if (argv[0] === "sandbox") return { command: "sandbox", argv: argv.slice(1) };
  const unknown = unknownFlagProblem(argv);
  if (unknown) throw new ConfigError([unknown]);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConfigError([{ variable: "arguments", expected: `${(error as Error).message}; see --help` }]);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "help" };
  if (values.version) return { command: "version" };

  const problems: ConfigProblem[] = [];
  const flag = (name: keyof typeof FLAG_VARIABLES): boolean => {
    if (values[name]) return true;
    const variable = FLAG_VARIABLES[name];
    const raw = env[variable]?.trim().toLowerCase() ?? "";
    if (["", "false", "0", "no"].includes(raw)) return false;
    if (["true", "1", "yes"].includes(raw)) return true;
    problems.push({ variable, expected: `true or false (the variable form of --${name})` });
    return false;
  };
  const sandbox = flag("sandbox");
  const readOnly = flag("read-only");
  const confirmWrites = flag("confirm-writes");
  if (positionals.length > 0) {
    problems.push({ variable: "arguments", expected: `unexpected "${positionals.join(" ")}"; see --help` });
  }
  if (!values.http && (values.host !== undefined || values.port !== undefined)) {
    problems.push({
      variable: values.host !== undefined ? "--host" : "--port",
      expected: "only applies with --http",
    });
  }
  let port = 3333;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535) {
      problems.push({ variable: "--port", expected: "a port number from 0 to 65535" });
    }
  }
  let tools: string[] | undefined;
  if (values.tools !== undefined) {
    tools = values.tools
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
    if (tools.length === 0)
      problems.push({ variable: "--tools", expected: "a comma-separated list of tool names" });
  }
  const sandboxRateLimit = rateLimitFlag(values["rate-limit"], sandbox, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const plan: ServePlan = {
    command: "serve",
    http: values.http ?? false,
    host: values.host ?? "127.0.0.1",
    port,
    sandbox,
    readOnly,
    tools,
    confirmWrites,
    ...(sandboxRateLimit === undefined ? {} : { sandboxRateLimit }),
  };
  return values.check ? { command: "check", plan } : plan;
}

/** `--rate-limit N`: a whole number from 1 to 1,000,000, and only with --sandbox. */
function rateLimitFlag(
  raw: string | undefined,
  sandbox: boolean,
  problems: ConfigProblem[],
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > 1_000_000) {
    problems.push({
      variable: "--rate-limit",
      expected: "a whole number of requests per minute from 1 to 1000000 (the platform's is 200)",
    });
    return undefined;
  }
  if (!sandbox) {
    problems.push({
      variable: "--rate-limit",
      expected:
        "only applies with --sandbox (the simulator plays the limit); a real upstream's budget is MMS_RATE_LIMIT",
    });
    return undefined;
  }
  return n;
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: true, options: OPTIONS });
}

/**
 * The first unknown flag, with the closest known one. node:util's own message advises `--`
 * (for positionals starting with "-"), which is never what a user of this CLI needs.
 */
function unknownFlagProblem(argv: string[]): ConfigProblem | undefined {
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: OPTIONS,
  });
  const known = Object.keys(OPTIONS).map((name) => `--${name}`);
  for (const token of tokens) {
    if (token.kind !== "option" || token.name in OPTIONS) continue;
    const guess = closest(token.rawName, known);
    return {
      variable: token.rawName,
      expected: `unknown flag${guess ? `; did you mean ${guess}?` : ""} (see --help)`,
    };
  }
  return undefined;
}
