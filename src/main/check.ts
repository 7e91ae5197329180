/**
 * `maintenance-mcp --check` (interface.md §1): the configuration a start with the same flags would
 * use, tested step by step before a client is wired: the environment's names, the settings, an OAuth
 * token, one page of the main API (one warehouse classification) and the hub's DAG list. One line per
 * step on stdout (no transport runs), then a summary; exit 0 only when every step passed, 2 when the
 * configuration itself is refused, 1 when a step against the upstream failed.
 * IMPORTANT: lines show URLs and variable names, never a value of a secret (every text is scrubbed).
 */
import { createClients } from "../client/index.js";
import {
  type Config,
  checkEnvironment,
  type Env,
  type ResourceServerConfig,
  secretValues,
} from "../config/config.js";
import { VERSION } from "../config/version.js";
import { ConfigError } from "../errors/api-error.js";
import { formatError } from "../errors/format.js";
import { scrubText } from "../errors/redact.js";
import { Secret } from "../errors/secret.js";
import { createLogger, type Logger } from "../telemetry/logger.js";
import type { ServePlan } from "./cli.js";
import { OpenResources, StartRefused, USAGE_EXIT } from "./exit.js";
import { hostingSettings, loadServeConfig, requireTokenOffLoopback, upstreamEnv } from "./settings.js";

type Outcome = "ok" | "FAIL" | "skip" | "warn";

/** The lines printed so far and whether any step failed. */
class Report {
  #passed = 0;
  #failed = 0;
  constructor(private readonly print: (line: string) => void) {}

  line(outcome: Outcome, step: string, text: string): void {
    if (outcome === "ok") this.#passed++;
    if (outcome === "FAIL") this.#failed++;
    this.print(`  ${outcome.padEnd(5)} ${step}: ${scrubText(text.replace(/\s*\n\s*/g, " "))}`);
  }

  /** The summary line; the exit code (`refused`: the configuration itself is unusable). */
  finish(refused = false): number {
    const total = this.#passed + this.#failed;
    if (this.#failed === 0) {
      this.print(
        `All ${total} checks passed: the server is ready; connect your MCP client (README, "Connect your client (stdio)").`,
      );
      return 0;
    }
    this.print(`${this.#failed} of ${total} checks failed: fix them and run maintenance-mcp --check again.`);
    return refused ? USAGE_EXIT : 1;
  }
}

interface Target {
  /** The tenant's name (MCP_TENANTS_FILE), or undefined for the one upstream. */
  tenant: string | undefined;
  config: Config;
}

export async function runCheck(plan: ServePlan, env: Env, print: (line: string) => void): Promise<number> {
  for (const value of secretValues(env)) new Secret(value);
  const report = new Report(print);
  const flags = [plan.sandbox && "--sandbox", plan.http && "--http"].filter(Boolean).join(" ");
  print(`maintenance-mcp ${VERSION}: checking the configuration of a start${flags ? ` with ${flags}` : ""}`);
  // The steps report every failure themselves; the server's own log lines would only repeat them.
  const logger = createLogger({ level: "error", sink: () => {} });
  const open = new OpenResources();
  try {
    const targets = await configurationSteps(plan, env, logger, open, report);
    if (targets === undefined) return report.finish(true);
    for (const target of targets) await upstreamSteps(target, logger, report);
    return report.finish();
  } finally {
    await open.closeAll();
  }
}

/** The environment's names and the settings; the upstreams to test, or undefined when refused. */
async function configurationSteps(
  plan: ServePlan,
  env: Env,
  logger: Logger,
  open: OpenResources,
  report: Report,
): Promise<Target[] | undefined> {
  const names = checkEnvironment(env, { caseInsensitive: process.platform === "win32" });
  for (const warning of names.warnings) report.line("warn", "environment", warning);
  for (const p of names.problems) report.line("FAIL", "environment", `${p.variable}: ${p.expected}`);
  if (names.problems.length > 0) return undefined;
  report.line("ok", "environment", "no misspelt safety variable (MMS_READ_ONLY, MCP_HTTP_TOKEN...)");
  // What the settings step would log as a warning at start (an ignored variable) is a line here.
  const settingsLog = createLogger({
    level: "warn",
    sink: (line) => {
      const { msg } = JSON.parse(line) as { msg: string };
      if (!msg.startsWith("SANDBOX MODE")) report.line("warn", "settings", msg);
    },
  });
  try {
    const effectiveEnv = await upstreamEnv(plan, env, logger, open);
    if (plan.sandbox)
      report.line("ok", "sandbox", `the embedded simulator answers at ${effectiveEnv.MMS_BASE_URL}`);
    const http = plan.http ? await import("../mcp/transports/http.js") : undefined;
    const hosting = hostingSettings(env, plan, settingsLog);
    const { config, tenants } = await loadServeConfig(env, effectiveEnv, hosting.tenantsFile);
    if (http) requireTokenOffLoopback(plan, config, tenants, http.isLoopbackHost, hosting.oauth);
    if (hosting.oauth) await issuerStep(hosting.oauth, report);
    if (tenants !== undefined) {
      report.line("ok", "configuration", `${tenants.length} tenants in ${hosting.tenantsFile}`);
      return tenants.map((t) => ({ tenant: t.name, config: t.config }));
    }
    report.line("ok", "configuration", describe(config));
    if (plan.http)
      report.line(
        "ok",
        "http",
        `--http on ${plan.host}:${plan.port}, ${hosting.oauth ? `clients send an OAuth access token from ${hosting.oauth.issuer}${config.httpToken ? " or MCP_HTTP_TOKEN" : ""}` : config.httpToken ? "clients send Authorization: Bearer <MCP_HTTP_TOKEN>" : "no MCP_HTTP_TOKEN: any local process may call it"}`,
      );
    return [{ tenant: undefined, config }];
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const p of error.problems) report.line("FAIL", "configuration", `${p.variable}: ${p.expected}`);
      return undefined;
    }
    if (error instanceof StartRefused) {
      report.line("FAIL", "configuration", error.message);
      return undefined;
    }
    throw error;
  }
}

/**
 * MCP_OAUTH_ISSUER (interface.md §7c): its metadata (RFC 8414 or OpenID discovery) and its JWKS,
 * fetched as the server will, and what they say: the endpoints hosts will use, and whether it offers
 * dynamic registration, client ID metadata documents and PKCE S256.
 */
async function issuerStep(oauth: ResourceServerConfig, report: Report): Promise<void> {
  const { fetchIssuerMetadata, metadataUrl } = await import("../mcp/transports/http/oauth/index.js");
  let metadata: Awaited<ReturnType<typeof fetchIssuerMetadata>>;
  try {
    metadata = await fetchIssuerMetadata(oauth.issuer);
  } catch (error) {
    report.line("FAIL", "oauth issuer", (error as Error).message);
    return;
  }
  const m = metadata.metadata;
  const offers = [
    m.registration_endpoint
      ? "dynamic client registration"
      : "no dynamic client registration (register hosts by hand: docs/remote.md)",
    m.client_id_metadata_document_supported ? "client ID metadata documents" : undefined,
    m.code_challenge_methods_supported?.includes("S256") ? "PKCE S256" : "PKCE S256 not advertised",
    m.introspection_endpoint ? "introspection" : undefined,
  ].filter(Boolean);
  report.line(
    "ok",
    "oauth issuer",
    `${metadata.url}: ${offers.join(", ")}; resource ${oauth.publicUrl}, metadata ${metadataUrl(oauth.publicUrl)}`,
  );
  if (m.jwks_uri === undefined) {
    report.line(
      "FAIL",
      "oauth keys",
      "the issuer's metadata has no jwks_uri: JWT access tokens cannot be verified",
    );
    return;
  }
  try {
    const res = await fetch(m.jwks_uri, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { keys?: { kid?: string; alg?: string; kty?: string }[] };
    if (!res.ok || !Array.isArray(body.keys)) throw new Error(`HTTP ${res.status}, no "keys" array`);
    const kinds = body.keys.map((k) => `${k.kid ?? "(no kid)"} ${k.alg ?? k.kty ?? ""}`.trim());
    report.line("ok", "oauth keys", `${body.keys.length} signing keys at ${m.jwks_uri}: ${kinds.join(", ")}`);
  } catch (error) {
    report.line("FAIL", "oauth keys", `cannot read ${m.jwks_uri}: ${(error as Error).message}`);
  }
}

function describe(config: Config): string {
  const parts = [`main API ${config.baseUrl} (${config.auth === "oauth" ? "OAuth" : "Hawk"})`];
  if (config.oauth) parts.push(`token endpoint ${config.oauth.authUrl}/oauth/token`);
  parts.push(config.hubUrl ? `hub ${config.hubUrl}` : "no hub (it needs OAuth)");
  return parts.join(", ");
}

/** Token, one page of the main API, the hub: each a line. No retries, so a failure shows at once. */
async function upstreamSteps(target: Target, logger: Logger, report: Report): Promise<void> {
  const config = { ...target.config, maxRetries: 0 };
  const step = (name: string) => (target.tenant === undefined ? name : `tenant ${target.tenant}: ${name}`);
  const clients = createClients(config, { logger });
  try {
    let token = false;
    if (clients.accessToken === undefined) {
      report.line(
        "skip",
        step("token"),
        "no OAuth credentials (MMS_CLIENT_ID, MMS_CLIENT_SECRET, MMS_AUTH_URL)",
      );
    } else {
      try {
        const { expiresAt } = await clients.accessToken();
        const seconds = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
        report.line(
          "ok",
          step("token"),
          `fetched from ${config.oauth?.authUrl}/oauth/token, valid ${seconds} s`,
        );
        token = true;
      } catch (error) {
        report.line("FAIL", step("token"), formatError(error).text);
      }
    }
    if (config.auth === "oauth" && !token) {
      report.line("skip", step("main API"), "needs the token");
    } else {
      try {
        const page = await clients.api.listWarehouseGroups1({ limit: 1 });
        report.line(
          "ok",
          step("main API"),
          `read ${page.data.length} of ${page.total} warehouse classifications from ${config.baseUrl} (${config.auth === "oauth" ? "OAuth" : "Hawk"})`,
        );
      } catch (error) {
        report.line("FAIL", step("main API"), formatError(error).text);
      }
    }
    if (clients.hub === undefined) {
      report.line("skip", step("hub"), "the ETL hub needs OAuth; list_dags is not served without it");
    } else if (!token) {
      report.line("skip", step("hub"), "needs the token");
    } else {
      try {
        const list = await clients.hub.listDags();
        report.line("ok", step("hub"), `read the DAG list (${list.total} DAGs) from ${config.hubUrl}`);
      } catch (error) {
        report.line("FAIL", step("hub"), formatError(error).text);
      }
    }
  } finally {
    await clients.close();
  }
}
