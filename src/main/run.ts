/**
 * The last steps of serve(): run one transport until a signal (HTTP) or the end of stdin (stdio),
 * then drain. The transports' modules load here, on demand: a stdio start never loads node:http.
 */
import type { Config, ResourceServerConfig } from "../config/config.js";
import { VERSION } from "../config/version.js";
import { budgetHealth } from "../hosting/rate-budgets.js";
import type { Tenant } from "../hosting/tenants.js";
import type { Authenticator } from "../mcp/transports/http.js";
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
    oauth: ResourceServerConfig | undefined;
    writerTools: ReadonlySet<string>;
    bodyTimeoutMs?: number | undefined;
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
      authenticator: plan.oauthDemo
        ? await demoAuthenticator(plan, open, logger)
        : await authenticatorFor(http, settings, logger),
      writerTools: settings.writerTools,
      ...(settings.tenants === undefined || settings.tenantMaxInFlight === undefined
        ? {}
        : { tenantMaxInFlight: settings.tenantMaxInFlight }),
      logger,
      version: VERSION,
      abandon: () => served.stopping.abort(),
      storeHealth: () => served.backends.health(),
      bodyTimeoutMs: settings.bodyTimeoutMs,
      // /healthz: a tenant's token reads its own company's budget only (undefined: the operator, all).
      healthExtra: (tenant) => budgetHealth(served.budgets, served.serverSet.budgetUses(), tenant),
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

/**
 * How clients authenticate: the tenants' tokens (MCP_TENANTS_FILE) or MCP_HTTP_TOKEN, and OAuth
 * access tokens beside them when MCP_OAUTH_ISSUER is set (its 401 then leads hosts to sign in).
 * Neither: none (a loopback bind only; settings.ts refuses any other).
 */
async function authenticatorFor(
  http: HttpTransport,
  settings: {
    httpToken: Config["httpToken"];
    tenants: Tenant[] | undefined;
    oauth: ResourceServerConfig | undefined;
  },
  logger: Logger,
): Promise<Authenticator> {
  const schemes: Authenticator[] = [];
  const { tenants, oauth } = settings;
  if (tenants !== undefined) {
    const { resolveTenant } = await import("../hosting/tenants.js");
    schemes.push(http.tenantTokenAuthentication((token) => resolveTenant(tenants, token)?.name));
  } else if (settings.httpToken) schemes.push(http.staticTokenAuthentication(settings.httpToken));
  if (oauth !== undefined) {
    const { oauthAuthentication } = await import("../mcp/transports/http/oauth/index.js");
    const { tenantByClaim } = await import("../hosting/tenants.js");
    schemes.push(
      oauthAuthentication({
        config: oauth,
        // Said at start, not only by --check (interface.md §9c); the server still starts.
        onIssuerUnreachable: (message) => logger.warn(message),
        ...(tenants === undefined
          ? {}
          : { tenantByClaim: (value: string) => tenantByClaim(tenants, value)?.name }),
      }),
    );
  }
  return schemes.length === 0 ? http.noAuthentication() : http.firstOf(...schemes);
}

/**
 * --oauth-demo: a demo authorization server on loopback (src/sandbox/oauth-demo.ts, oidc-provider)
 * whose one resource is this endpoint; OAuth is then the only way in. Refused off loopback.
 */
async function demoAuthenticator(
  plan: ServePlan,
  open: OpenResources,
  logger: Logger,
): Promise<(url: string) => Authenticator> {
  const { isLoopbackHost } = await import("../mcp/transports/http.js");
  if (!isLoopbackHost(plan.host))
    throw new StartRefused(
      `--oauth-demo: only on a loopback host (--host 127.0.0.1 or localhost), not ${plan.host}: the demo's one user signs in with any password`,
    );
  const [{ startDemoAuthorizationServer, DEMO_USER }, { oauthAuthentication }] = await Promise.all([
    import("../sandbox/oauth-demo.js"),
    import("../mcp/transports/http/oauth/index.js"),
  ]);
  let resource = "";
  const demo = await startDemoAuthorizationServer({ host: "127.0.0.1", resource: () => resource });
  open.add(() => demo.close());
  logger.warn("OAUTH DEMO: a demo authorization server signs users in; never use it for real data", {
    issuer: demo.issuer,
    user: DEMO_USER,
  });
  process.stderr.write(
    `demo authorization server at ${demo.issuer}: sign in as "${DEMO_USER}" (any password)\n`,
  );
  return (url) => {
    resource = url;
    return oauthAuthentication({
      config: { issuer: demo.issuer, publicUrl: url, tenantClaim: undefined, introspection: undefined },
    });
  };
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
