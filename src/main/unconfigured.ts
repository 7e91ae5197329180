/**
 * A stdio start whose configuration is unusable (interface.md §1). Hosts hide a server's stderr and
 * show only "disconnected", so instead of exiting the server answers `initialize` and `tools/list`
 * (the tools it would serve), every tool call returns the problem and where to fix it (for the MCP
 * Bundle: its settings in the host; otherwise the client's `env`/`args`), and it exits 2 when stdin
 * ends. At a terminal (stdin is a TTY, so no MCP host) it exits 2 at once.
 * IMPORTANT: nothing here reaches the upstream, and the problem text never holds a value.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { ALL_TOOLS } from "../../tools/index.js";
import { VERSION } from "../config/version.js";
import { scrubText } from "../errors/redact.js";
import { createUnconfiguredServer, selectTools } from "../mcp/server.js";
import type { Logger } from "../telemetry/logger.js";
import { fail, USAGE_EXIT, waitForSignal } from "./exit.js";

/** What is known of the tools to list: the flags, when argv could be parsed. */
export interface ToolChoice {
  readOnly: boolean;
  tools: string[] | undefined;
}

/** The MCP Bundle this binary runs from, when it does: manifest.json sits two folders above dist/bin/. */
interface BundleInfo {
  displayName: string;
  /** Variable → the title of the setting that fills it, from the manifest's mcp_config.env. */
  titles: Map<string, string>;
}

/** The bundle's manifest beside the running binary (`argv1`), or undefined outside a bundle. */
export function bundleInfo(argv1: string | undefined): BundleInfo | undefined {
  if (argv1 === undefined) return undefined;
  try {
    const path = join(dirname(realpathSync(argv1)), "..", "..", "manifest.json");
    if (!existsSync(path)) return undefined;
    const manifest = JSON.parse(readFileSync(path, "utf8")) as {
      name?: unknown;
      display_name?: unknown;
      server?: { mcp_config?: { env?: Record<string, string> } };
      user_config?: Record<string, { title?: string }>;
    };
    const env = manifest.server?.mcp_config?.env;
    if (manifest.name !== "maintenance-mcp" || env === undefined) return undefined;
    const titles = new Map<string, string>();
    for (const [variable, value] of Object.entries(env)) {
      const key = /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1];
      const title = key === undefined ? undefined : manifest.user_config?.[key]?.title;
      if (title !== undefined) titles.set(variable, title);
    }
    const displayName = typeof manifest.display_name === "string" ? manifest.display_name : "maintenance-mcp";
    return { displayName, titles };
  } catch {
    return undefined;
  }
}

/** Where the user fixes the problem: the bundle's settings (by title), or the client's server entry. */
export function whereToFix(problem: string, bundle: BundleInfo | undefined): string {
  if (bundle !== undefined) {
    const named = [...new Set(problem.match(/\b(?:MMS|MCP)_[A-Z0-9_]*[A-Z0-9]/g) ?? [])];
    const settings = named.flatMap((v) => (bundle.titles.has(v) ? [`"${bundle.titles.get(v)}"`] : []));
    // The bundle's own way to try the tools without an account, by the title its settings show.
    const sandbox = bundle.titles.get("MMS_SANDBOX");
    const demo =
      sandbox === undefined
        ? ""
        : ` To try the tools on demo data without an account, turn on "${sandbox}" instead.`;
    return `Fix this in the extension's settings in your MCP host (Claude Desktop: Settings > Extensions > ${bundle.displayName} > Configure${settings.length > 0 ? `: ${settings.join(", ")}` : ""}), then restart the extension.${demo}`;
  }
  return 'Fix this in this server\'s entry in your MCP client\'s configuration ("env" for variables, "args" for flags; e.g. claude_desktop_config.json, .vscode/mcp.json, .cursor/mcp.json), then restart the server. `maintenance-mcp --check` tests a configuration; "--sandbox" in "args" tries the tools on demo data.';
}

/**
 * Serve the problem over stdio until stdin ends (or a signal), then give exit code 2. Prints the
 * problem on stderr first, as a refused start does.
 */
export async function serveUnconfigured(
  problem: string,
  choice: ToolChoice,
  logger: Logger,
): Promise<number> {
  fail(problem);
  if (process.stdin.isTTY) return USAGE_EXIT;
  const message = scrubText(`${problem}\n${whereToFix(problem, bundleInfo(process.argv[1]))}`);
  // The tools it would serve: --read-only and the known names of --tools; the hub's are listed too.
  const known = choice.tools?.filter((name) => ALL_TOOLS.some((t) => t.name === name));
  const { tools } = selectTools({
    readOnly: choice.readOnly,
    only: known !== undefined && known.length > 0 ? known : undefined,
    hubAvailable: true,
  });
  logger.warn(
    "not configured: serving over stdio so that the MCP host can show the problem; every tool call answers with it, and the server exits with code 2 when stdin closes",
  );
  const { serveStdio } = await import("../mcp/transports/stdio.js");
  await Promise.race([
    serveStdio(() => createUnconfiguredServer({ version: VERSION, tools, problem: message }), logger),
    waitForSignal(),
  ]);
  return USAGE_EXIT;
}
