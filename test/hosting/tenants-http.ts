/**
 * An in-process `--http` server with a tenants file of two tenants on one sandbox, wired as the
 * binary wires it (loadTenants → createServerSet → startHttp with a tenant resolver): north is the
 * demo client of company 1, south the read-only client of the same company.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { idempotencyBackends } from "../../src/hosting/idempotency.js";
import { createServerSet } from "../../src/hosting/servers.js";
import { loadTenants, resolveTenant, tokenSha256 } from "../../src/hosting/tenants.js";
import { createStateSigner } from "../../src/mcp/sdk.js";
import { selectTools } from "../../src/mcp/server.js";
import { type HttpOptions, startHttp } from "../../src/mcp/transports/http.js";
import { DEMO_CREDENTIALS, type SandboxHandle } from "../../src/sandbox/index.js";
import { createLogger, type Logger } from "../../src/telemetry/logger.js";

export const TENANT_TOKENS = {
  north: "north-bearer-token-0123456789abcdef",
  south: "south-bearer-token-0123456789abcdef",
} as const;

/** The tenants' upstream client secrets (what the other tenant must not be able to probe for). */
export const TENANT_SECRETS = {
  north: DEMO_CREDENTIALS.oauth.demo.clientSecret,
  south: DEMO_CREDENTIALS.oauth.readonly.clientSecret,
} as const;

export interface TenantsServer {
  url: string;
  http: Awaited<ReturnType<typeof startHttp>>;
  close(): Promise<void>;
}

export async function startTenantsServer(
  sb: SandboxHandle,
  options: { confirmWrites?: boolean; logger?: Logger; http?: Partial<HttpOptions> } = {},
): Promise<TenantsServer> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tenants-http-"));
  const upstream = (client: "demo" | "readonly", secretVar: string) => ({
    MMS_BASE_URL: sb.baseUrl,
    MMS_AUTH_URL: sb.authUrl,
    MMS_CLIENT_ID: DEMO_CREDENTIALS.oauth[client].clientId,
    MMS_CLIENT_SECRET: { env: secretVar },
    MMS_MAX_RETRIES: 0,
  });
  const file = join(dir, "tenants.json");
  writeFileSync(
    file,
    JSON.stringify({
      tenants: [
        {
          name: "north",
          token_sha256: tokenSha256(TENANT_TOKENS.north),
          upstream: upstream("demo", "N_SECRET"),
        },
        {
          name: "south",
          token_sha256: tokenSha256(TENANT_TOKENS.south),
          upstream: upstream("readonly", "S_SECRET"),
        },
      ],
    }),
  );
  const tenants = loadTenants(file, { N_SECRET: TENANT_SECRETS.north, S_SECRET: TENANT_SECRETS.south });
  const logger = options.logger ?? createLogger({ level: "error", sink: () => {} });
  const stopping = new AbortController();
  const backends = await idempotencyBackends({
    redisUrl: undefined,
    ttlMs: 60_000,
    redisTimeoutMs: 1_000,
    tenants: tenants.map((t) => t.name),
    logger,
  });
  const serverSet = createServerSet({
    config: tenants[0]!.config,
    tenants,
    tools: selectTools({ readOnly: false, hubAvailable: true }).tools,
    sandbox: false,
    confirmWrites: options.confirmWrites ?? false,
    logger,
    backends,
    signer: createStateSigner(),
    stopping: stopping.signal,
  });
  const http = await startHttp(serverSet.makeServer, {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    tenantOf: (token) => resolveTenant(tenants, token)?.name,
    logger,
    version: "test",
    abandon: () => stopping.abort(),
    ...options.http,
  });
  return {
    url: http.url,
    http,
    async close() {
      await http.close();
      await serverSet.clients.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
