/**
 * The servers one process runs: one for the configured upstream, or one per tenant of
 * MCP_TENANTS_FILE (its own clients, token cache, idempotency namespace and tool set), over the
 * idempotency backends of ./idempotency.ts (Redis shared by all, or a memory share per tenant). The
 * transports pick a server by the request's tenant; an unknown tenant is a bug, never another
 * tenant's server. Each tenant also has its own MCP task store, so a task is found only by its tenant,
 * and within it only by who made it (the static token, or one OAuth subject and client).
 * Each server answers with its own configuration's secrets scrubbed (never another tenant's). With
 * tenants, a tenant's clients warm up (HTTP client loaded, token fetched) on its first request, not
 * all at start: many tenants must not mean a burst of token requests when a replica starts.
 */

import type { AnyTool } from "../../tools/define.js";
import { createClients } from "../client/index.js";
import type { BudgetUse } from "../client/rate-budget.js";
import { DEFAULT_RETRY, longestWriteMs } from "../client/retry.js";
import type { Clients } from "../client/types.js";
import type { Config } from "../config/config.js";
import { VERSION } from "../config/version.js";
import type { ProcessLedger } from "../domain/ledger/ledger.js";
import { createReviewServices, type ProcessReviews } from "../domain/review/services.js";
import { UserInputError } from "../errors/api-error.js";
import { IdempotencyStore } from "../idempotency/store.js";
import { type Caller, mayCall, READ_SCOPE, WRITE_SCOPE } from "../mcp/caller.js";
import type { ProtocolServer, StateSigner } from "../mcp/sdk.js";
import { createServer, type ServerDeps, type ServerOptions } from "../mcp/server.js";
import { ownerOf, TaskStore } from "../mcp/tasks.js";
import type { Logger } from "../telemetry/logger.js";
import type { IdempotencyBackends } from "./idempotency.js";
import type { RateBudgets } from "./rate-budgets.js";
import type { Tenant } from "./tenants.js";

export interface ServerSetOptions {
  config: Config;
  tenants: readonly Tenant[] | undefined;
  tools: AnyTool[];
  sandbox: boolean;
  confirmWrites: boolean;
  logger: Logger;
  backends: IdempotencyBackends;
  /** Where each company's request budget is counted (Redis, or each process); default: each process. */
  rateBudgets?: RateBudgets | undefined;
  signer: StateSigner;
  /** Aborted when shutdown outlives the drain: running calls answer "outcome unknown" at once. */
  stopping: AbortSignal;
  /** Where reviews are remembered (interface.md §6e); none when undefined. */
  history?: ProcessLedger | undefined;
  /** tools/list depends on the caller (OAuth scopes): every list is announced private (interface.md §9b). */
  callerDependentLists?: boolean;
}

/**
 * Whose review history a server keeps: its tenant and its upstream company (URL and client id, never
 * a secret), so a sandbox's demo data never meets a real company's, nor one company another's. The
 * embedded sandbox is one company whatever port it drew: its history survives a restart.
 */
export function historyOwner(name: string | undefined, config: Config, sandbox = false): string {
  const client = config.oauth?.clientId ?? config.hawk?.id ?? "";
  return JSON.stringify([name ?? "default", sandbox ? "embedded sandbox" : config.baseUrl, client]);
}

export interface ServerSet {
  /**
   * The server for one request's caller (stdio: none, the one upstream). An OAuth caller's server
   * lists and runs only the tools its scopes allow, and its audit log and spans name its `sub` and
   * `client_id`.
   */
  makeServer(caller?: Caller): ProtocolServer;
  /**
   * The upstream clients: `warm()` warms the single upstream's (a no-op with tenants: each warms on its
   * first request); `close()` closes every server's.
   */
  clients: { warm(): void; close(): Promise<void> };
  /** Each company's request budget at work, by tenant ("default" without a tenants file), for /healthz. */
  budgetUses(): Record<string, BudgetUse | undefined>;
}

export function createServerSet(options: ServerSetOptions): ServerSet {
  const { logger } = options;
  // One set per process: the snapshots' memory and the bytes in flight are capped for all tenants together.
  const reviews = createReviewServices(options.config.reviews, options.history);
  const servers = new Map<string | undefined, TenantServer>();
  if (options.tenants === undefined) {
    servers.set(undefined, tenantServer(undefined, options.config, options.tools, options, reviews));
  } else {
    for (const tenant of options.tenants) {
      const tools = tenantTools(tenant, options.tools);
      servers.set(tenant.name, tenantServer(tenant.name, tenant.config, tools, options, reviews));
    }
    logger.info("tenants loaded", {
      tenants: options.tenants.map((t) => t.name),
      read_only: options.tenants.filter((t) => t.readOnly).map((t) => t.name),
    });
  }

  const all = [...servers.values()].map((s) => s.clients);
  const taskStores = [...servers.values()].map((s) => s.tasks);
  const perTenant = options.tenants !== undefined;
  return {
    makeServer: (caller) => {
      const entry = servers.get(caller?.tenant);
      // The transport admits only known tenants; anything else is a bug, never another tenant's server.
      if (entry === undefined) throw new Error("no server for this request's tenant");
      // First request of this tenant: warm its clients after this request (a no-op once started).
      if (perTenant) entry.clients.warm(0);
      return entry.make(caller);
    },
    budgetUses: () =>
      Object.fromEntries([...servers].map(([name, s]) => [name ?? "default", s.clients.budgetUse?.()])),
    clients: {
      warm: () => {
        if (!perTenant) for (const c of all) c.warm();
      },
      close: async () => {
        // Running tasks stop first: their upstream requests end with the clients.
        for (const t of taskStores) t.close();
        await Promise.all(all.map((c) => c.close()));
      },
    },
  };
}

/** One tenant's server (name undefined: the single upstream's): its clients, its task store, a server per caller. */
export interface TenantServer {
  clients: Clients;
  tasks: TaskStore;
  make(caller: Caller | undefined): ProtocolServer;
}

/** The tools a tenant is offered: read_only offers only the readers; the hub's tools need the tenant's OAuth. */
export function tenantTools(
  tenant: Pick<Tenant, "readOnly" | "config">,
  tools: readonly AnyTool[],
): AnyTool[] {
  const hub = tenant.config.oauth !== undefined && tenant.config.hubUrl !== undefined;
  return tools.filter(
    (t) => (!tenant.readOnly || t.annotations.readOnlyHint) && (t.requires !== "hub" || hub),
  );
}

/** One tenant's server, apart from the set: its own clients, task store, idempotency namespace and tools. */
export function tenantServer(
  name: string | undefined,
  config: Config,
  tools: AnyTool[],
  options: ServerSetOptions,
  reviews: ProcessReviews,
): TenantServer {
  const log = name === undefined ? options.logger : options.logger.child({ tenant: name });
  const deps = tenantDeps(name, config, log, options, reviews);
  const serverOptions = {
    tools,
    confirmWrites: options.confirmWrites,
    // A tenant's tool list is its own, and with OAuth each token's: shared caches must not serve
    // one caller's list to another.
    ...(name === undefined && !options.callerDependentLists ? {} : { privateLists: true }),
  };
  return {
    clients: deps.clients,
    tasks: deps.tasks,
    make: (caller) => serverForCaller(caller, deps, serverOptions),
  };
}

/** What every server of one tenant shares: its clients, idempotency store, task store and review services. */
function tenantDeps(
  name: string | undefined,
  config: Config,
  log: Logger,
  options: ServerSetOptions,
  reviews: ProcessReviews,
) {
  // One store per tenant, outside any one server: a task outlives the request (or connection) that made it.
  const tasks = new TaskStore({ ttlMs: (options.config.taskTtlSeconds ?? 900) * 1000 });
  const rateStore = options.rateBudgets?.storeFor(config);
  const clients: Clients = createClients(config, {
    logger: log.child({ component: "client" }),
    tenant: name,
    ...(rateStore === undefined ? {} : { rateStore }),
  });
  return {
    clients,
    logger: log,
    tenant: name,
    idempotency: new IdempotencyStore({
      backend: options.backends.forTenant(name),
      namespace: name ?? "default",
      // A record still "in progress" after this tenant's longest write has lost its call.
      callBudgetMs: longestWriteMs(config.timeoutMs, { ...DEFAULT_RETRY, maxRetries: config.maxRetries }),
      tenantShare: options.backends.tenantShares,
      logger: log,
      ...(config.secrets ? { secrets: config.secrets } : {}),
    }),
    secrets: config.secrets,
    sandbox: options.sandbox,
    version: VERSION,
    signer: options.signer,
    stopping: options.stopping,
    warmOnList: true,
    budgetDiscount: config.budgetDiscount,
    tasks,
    budgetLookbackDays: config.budgetLookbackDays,
    reviews: reviews.forTenant(name, historyOwner(name, config, options.sandbox === true)),
  };
}

/**
 * A tool as an OAuth caller sees it: one its token's scopes do not allow is still listed, its
 * description saying which scope it needs (interface.md §9c), so a host calls it, gets the 403
 * insufficient_scope of the HTTP edge (which runs nothing) and signs the user in again with it.
 */
function withScopeNote(tool: AnyTool, caller: Caller): AnyTool {
  const write = !tool.annotations.readOnlyHint;
  if (mayCall(caller, write)) return tool;
  const cached = scopeNoted.get(tool);
  if (cached !== undefined) return cached;
  const scope = write ? WRITE_SCOPE : READ_SCOPE;
  const noted: AnyTool = {
    ...tool,
    description: `${tool.description}\nNeeds the OAuth scope ${scope}, which your access token lacks: a call is refused (403 insufficient_scope) and your host asks you to sign in again granting ${scope}.`,
    // IMPORTANT: the HTTP edge refuses the call first; this only keeps a way round it from running.
    handler: () => {
      throw new UserInputError(`this access token lacks the OAuth scope ${scope}: sign in again granting it`);
    },
  };
  scopeNoted.set(tool, noted);
  return noted;
}

/** Each tool's noted form, made once (the server prepares a tool's listing once per object). */
const scopeNoted = new WeakMap<AnyTool, AnyTool>();

/**
 * The tenant's server for one caller: an OAuth caller lists every tool, those its scopes do not
 * allow saying so, and runs only those they allow (the HTTP edge refuses the others); its audit log
 * and spans name its `sub` and `client_id`.
 */
export function serverForCaller(
  caller: Caller | undefined,
  deps: ServerDeps,
  serverOptions: ServerOptions,
): ProtocolServer {
  if (caller?.scopes === undefined && caller?.subject === undefined && caller?.clientId === undefined)
    return createServer(deps, serverOptions);
  const principal = { subject: caller.subject, clientId: caller.clientId, tokenRef: caller.tokenRef };
  const writers = new Set(serverOptions.tools.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name));
  return createServer(
    {
      ...deps,
      // Who did it: the token's names (never the token) in the audit log and the spans.
      logger: deps.logger.child({ sub: principal.subject, client_id: principal.clientId }),
      principal,
      // Its own tasks only, read with the scope their tool needs (interface.md §9b).
      tasks:
        deps.tasks instanceof TaskStore
          ? deps.tasks.for(ownerOf(caller), (tool) => (writers.has(tool) ? WRITE_SCOPE : READ_SCOPE))
          : deps.tasks,
    },
    {
      ...serverOptions,
      tools: serverOptions.tools.map((t) => withScopeNote(t, caller)),
      // The list depends on the token's scopes.
      privateLists: true,
    },
  );
}
