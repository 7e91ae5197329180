/**
 * The last steps of serve(): run one transport until a signal (HTTP) or the end of stdin (stdio),
 * then drain. The transports' modules load here, on demand: a stdio start never loads node:http.
 */
import type { Config } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { budgetHealth } from "../hosting/rate-budgets.js";
import type { Tenant } from "../hosting/tenants.js";
import type { Logger } from "../telemetry/logger.js";
import type { Served } from "./build.js";
import type { ServePlan } from "./cli.js";
import { type OpenResources, parentGone, StartRefused, waitForSignal } from "./exit.js";

type HttpTransport = typeof import("../mcp/transports/http.js");

/** Serve Streamable HTTP until SIGINT/SIGTERM, then stop taking requests, drain, and close everything. */
export async function runHttp(
  http: HttpTransport,
  plan: ServePlan,
  settings: {
    httpToken: Config["httpToken"];
    tenants: Tenant[] | undefined;
    tenantMaxInFlight: Config["tenantMaxInFlight"];
  },
  served: Served,
  logger: Logger,
  open: OpenResources,
): Promise<number> {
  let handle: Awaited<ReturnType<HttpTransport["startHttp"]>>;
  try {
    handle = await http.startHttp(served.serverSet.makeServer, {
      host: plan.host,
      port: plan.port,
      token: settings.httpToken,
      ...(settings.tenants === undefined
        ? {}
        : {
            tenantOf: await tenantResolver(settings.tenants),
            ...(settings.tenantMaxInFlight === undefined
              ? {}
              : { tenantMaxInFlight: settings.tenantMaxInFlight }),
          }),
      logger,
      version: VERSION,
      abandon: () => served.stopping.abort(),
      storeHealth: () => served.backends.health(),
      healthExtra: () => budgetHealth(served.budgets, served.serverSet.budgetUses()),
    });
  } catch (error) {
    throw listenProblem(error, plan) ?? error;
  }
  process.stderr.write(
    `maintenance-mcp ${VERSION} listening on ${handle.url}${plan.sandbox ? " (sandbox)" : ""}\n`,
  );
  // A single upstream warms up now; tenants each on their first request (src/hosting/servers.ts).
  served.serverSet.clients.warm();
  const signal = await Promise.race([waitForSignal(), parentGone(process.env)]);
  logger.info("shutting down", { signal });
  await handle.close();
  await open.closeAll();
  return 0;
}

/** Serve stdio until stdin ends or a signal; exit 1 when the transport itself broke (stdout closed). */
export async function runStdio(served: Served, logger: Logger, open: OpenResources): Promise<number> {
  const { serveStdio } = await import("../mcp/transports/stdio.js");
  const stopped = Promise.race([serveStdio(served.serverSet.makeServer, logger), waitForSignal()]);
  served.serverSet.clients.warm();
  const end = await stopped;
  await open.closeAll();
  if (typeof end === "object" && end.reason === "error") {
    logger.error("stdio transport cannot go on; exiting", { error: end.error.message });
    return 1;
  }
  return 0;
}

/** The tenant a bearer token belongs to (MCP_TENANTS_FILE), by name; undefined for none. */
async function tenantResolver(tenants: Tenant[]): Promise<(token: string | undefined) => string | undefined> {
  const { resolveTenant } = await import("../hosting/tenants.js");
  return (token) => resolveTenant(tenants, token)?.name;
}

/** The user's fix for a port or address the server cannot listen on. */
function listenProblem(error: unknown, plan: ServePlan): StartRefused | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new StartRefused(
      `--port: ${plan.port} is already in use; choose another port (0 picks a free one)`,
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EACCES")
    return new StartRefused(`--host/--port: cannot listen on ${plan.host}:${plan.port} (${code})`);
  return undefined;
}
