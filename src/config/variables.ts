/**
 * Every environment variable the server reads, in one table: `--help` lists it, the start-up check
 * of variable names (config.ts, checkEnvironment) knows it, the tests compare it with the source.
 * A safety variable is one whose absence leaves the server less safe than asked: a misspelt name
 * of one (`MMS_READONLY`, `MCP_HTTP_TOKNE`) is a configuration problem, not a warning: no tool runs
 * (over stdio every call answers with it, src/main/unconfigured.ts; with --http the start stops).
 * IMPORTANT: a variable the server starts to read goes here first (test/unit/variables.test.ts
 * fails on one that does not).
 */

export type VariableGroup = "upstream" | "switches" | "http" | "tracing" | "logging";

export interface Variable {
  name: string;
  group: VariableGroup;
  /** One line for --help. */
  summary: string;
  /** What happens when the name is misspelt (a safety variable): the server would be less safe than asked. */
  ifMissed?: string;
  /** Its value is a credential: never printed, scrubbed from every text. */
  secret?: boolean;
  /**
   * A setting of the process, not of an upstream: kept from the environment with a tenants file
   * (interface.md §9b), where every other MMS_* comes from each tenant's "upstream".
   */
  processWide?: true;
}

export const VARIABLES: readonly Variable[] = [
  { name: "MMS_BASE_URL", group: "upstream", summary: "base URL of the main API, e.g. https://host/api" },
  {
    name: "MMS_AUTH_URL",
    group: "upstream",
    summary: "OAuth origin; the token endpoint is {it}/oauth/token",
  },
  { name: "MMS_HUB_URL", group: "upstream", summary: "ETL hub origin (default MMS_AUTH_URL)" },
  { name: "MMS_CLIENT_ID", group: "upstream", summary: "OAuth 2.0 client ID" },
  { name: "MMS_CLIENT_SECRET", group: "upstream", summary: "OAuth 2.0 client secret", secret: true },
  { name: "MMS_HAWK_ID", group: "upstream", summary: "Hawk credential ID" },
  { name: "MMS_HAWK_KEY", group: "upstream", summary: "Hawk key", secret: true },
  { name: "MMS_HAWK_APP", group: "upstream", summary: "optional Hawk app" },
  { name: "MMS_HAWK_DLG", group: "upstream", summary: "optional Hawk dlg (needs MMS_HAWK_APP)" },
  { name: "MMS_HAWK_PAYLOAD_HASH", group: "upstream", summary: "true (default) or false: Hawk payload hash" },
  { name: "MMS_AUTH", group: "upstream", summary: "oauth or hawk: the main API's scheme" },
  { name: "MMS_TIMEOUT_MS", group: "upstream", summary: "per-request timeout in ms (default 30000)" },
  { name: "MMS_MAX_RETRIES", group: "upstream", summary: "retries of retryable failures (default 3)" },
  {
    name: "MMS_RATE_LIMIT",
    group: "upstream",
    summary: "the company's requests per minute (default: learnt from the upstream; 0 = no budget)",
  },
  {
    name: "MMS_RATE_SHARE",
    group: "upstream",
    summary: "share of that limit this server uses, 0-1 (default 0.5; the rest for other integrations)",
  },
  {
    name: "MMS_RATE_WINDOW_MS",
    group: "upstream",
    summary: "length of the limit's window in ms (default 60000; a simulator's faster minute)",
  },
  {
    name: "MMS_BUDGET_DISCOUNT",
    group: "upstream",
    summary: "percent or amount: what a budget's discount is (adds net_total)",
  },
  {
    name: "MMS_BUDGET_LOOKBACK_DAYS",
    group: "upstream",
    summary: "type_date budget_created: days of work orders read before since (default 365)",
  },
  {
    name: "MMS_REVIEW_DEADLINE_MS",
    group: "upstream",
    processWide: true,
    summary: "a review call returns by then, resumable (45000)",
  },
  {
    name: "MMS_REVIEW_CACHE_SECONDS",
    group: "upstream",
    processWide: true,
    summary: "how long a review's snapshot is kept (300)",
  },
  {
    name: "MMS_REVIEW_CACHE_MB",
    group: "upstream",
    processWide: true,
    summary: "memory for review snapshots, per process (64)",
  },
  {
    name: "MMS_INFLIGHT_MB",
    group: "upstream",
    processWide: true,
    summary: "upstream page bytes in flight, per process (64)",
  },
  {
    name: "MMS_RESUME_KEY",
    group: "http",
    summary: "key replicas share to seal review resume tokens (32+ chars)",
    secret: true,
    processWide: true,
  },
  {
    name: "MMS_REVIEW_HISTORY_DAYS",
    group: "upstream",
    summary: "days reviews are kept for compare_to (35; 0 = off)",
    processWide: true,
  },
  {
    name: "MMS_REVIEW_HISTORY_MB",
    group: "upstream",
    summary: "review history per tenant, in MB (64)",
    processWide: true,
  },
  {
    name: "MMS_STATE_DIR",
    group: "upstream",
    summary: "where review history is kept without REDIS_URL (the user's state directory)",
    processWide: true,
  },
  {
    name: "MMS_SANDBOX",
    group: "switches",
    summary: "true: --sandbox (the embedded simulator, demo data)",
    ifMissed: "the server would use the real upstream instead of the simulator",
  },
  {
    name: "MMS_READ_ONLY",
    group: "switches",
    summary: "true: --read-only (no tool that writes)",
    ifMissed: "the tools that write upstream would be offered",
  },
  {
    name: "MMS_CONFIRM_WRITES",
    group: "switches",
    summary: "true: --confirm-writes (ask the user before each write)",
    ifMissed: "writes would be sent without asking the user",
  },
  {
    name: "MCP_HTTP_TOKEN",
    group: "http",
    summary: "bearer token HTTP clients must send (needed off loopback)",
    ifMissed: "the HTTP server would serve without a token",
    secret: true,
  },
  {
    name: "MCP_TENANTS_FILE",
    group: "http",
    summary: "JSON file of tenants, each with its token and upstream",
    ifMissed: "the tenants file, and with it every tenant's token, would be ignored",
  },
  {
    name: "MCP_STATE_SECRET",
    group: "http",
    summary: "key shared by replicas for confirmation state (32+ bytes)",
    secret: true,
  },
  {
    name: "MCP_OAUTH_ISSUER",
    group: "http",
    summary: "OAuth 2.1 authorization server whose access tokens are accepted",
  },
  {
    name: "MCP_PUBLIC_URL",
    group: "http",
    summary: "the /mcp URL as users type it: resource and token audience",
  },
  {
    name: "MCP_OAUTH_TENANT_CLAIM",
    group: "http",
    summary: "with tenants: the token claim whose value names the tenant",
  },
  {
    name: "MCP_OAUTH_INTROSPECTION_CLIENT_ID",
    group: "http",
    summary: "client for token introspection (opaque tokens)",
  },
  {
    name: "MCP_OAUTH_INTROSPECTION_CLIENT_SECRET",
    group: "http",
    summary: "its secret",
    secret: true,
  },
  { name: "MCP_TENANT_MAX_IN_FLIGHT", group: "http", summary: "requests in flight per tenant (default 16)" },
  { name: "MCP_HTTP_BODY_TIMEOUT_MS", group: "http", summary: "time to send a request body (default 10000)" },
  { name: "MCP_IDEMPOTENCY_TTL_SECONDS", group: "http", summary: "how long a key's outcome is kept (86400)" },
  {
    name: "MMS_TASK_TTL_SECONDS",
    group: "http",
    processWide: true,
    summary: "how long a finished MCP task is kept (900)",
  },
  { name: "REDIS_URL", group: "http", summary: "redis:// URL: idempotency records shared by replicas" },
  { name: "MCP_REDIS_TIMEOUT_MS", group: "http", summary: "deadline of each Redis command (default 1000)" },
  { name: "OTEL_EXPORTER_OTLP_ENDPOINT", group: "tracing", summary: "OTLP/HTTP collector: turns tracing on" },
  {
    name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    group: "tracing",
    summary: "traces URL (overrides the above)",
  },
  { name: "OTEL_EXPORTER_OTLP_PROTOCOL", group: "tracing", summary: "http/protobuf (default) or http/json" },
  { name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", group: "tracing", summary: "the same, for traces only" },
  {
    name: "OTEL_EXPORTER_OTLP_HEADERS",
    group: "tracing",
    summary: "k=v,... headers sent to the collector",
    secret: true,
  },
  {
    name: "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    group: "tracing",
    summary: "the same, for traces only",
    secret: true,
  },
  { name: "OTEL_SERVICE_NAME", group: "tracing", summary: "service.name (default maintenance-mcp)" },
  { name: "OTEL_RESOURCE_ATTRIBUTES", group: "tracing", summary: "k=v,... resource attributes" },
  { name: "OTEL_TRACES_SAMPLER", group: "tracing", summary: "e.g. traceidratio: share of traces started" },
  { name: "OTEL_TRACES_SAMPLER_ARG", group: "tracing", summary: "the ratio, 0 to 1 (writes always traced)" },
  {
    name: "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    group: "tracing",
    summary: "longest attribute value exported (default 256)",
  },
  { name: "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", group: "tracing", summary: "the same, for spans only" },
  { name: "OTEL_SDK_DISABLED", group: "tracing", summary: "true: tracing off" },
  { name: "OTEL_TRACES_EXPORTER", group: "tracing", summary: "none: tracing off" },
  {
    name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    group: "tracing",
    summary: "metrics URL (default {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/metrics)",
  },
  {
    name: "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    group: "tracing",
    summary: "the protocol, for metrics only",
  },
  {
    name: "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
    group: "tracing",
    summary: "the headers, for metrics only",
    secret: true,
  },
  { name: "OTEL_METRICS_EXPORTER", group: "tracing", summary: "none: metrics off (traces go on)" },
  {
    name: "OTEL_METRIC_EXPORT_INTERVAL",
    group: "tracing",
    summary: "ms between metric exports (default 60000)",
  },
  { name: "LOG_LEVEL", group: "logging", summary: "error, warn, info (default) or debug; logs go to stderr" },
];

/** The names of VARIABLES. */
export const VARIABLE_NAMES: readonly string[] = VARIABLES.map((v) => v.name);

/** The safety variables: a near-miss of one of these names is a configuration error. */
export const SAFETY_VARIABLES: readonly Variable[] = VARIABLES.filter((v) => v.ifMissed !== undefined);

/** The MMS_* settings of the process, kept from the environment with a tenants file (mark one `processWide`). */
export const PROCESS_WIDE_VARIABLES: readonly string[] = VARIABLES.filter((v) => v.processWide).map(
  (v) => v.name,
);

/** The variables whose value is a credential. */
export const SECRET_VARIABLES: readonly string[] = VARIABLES.filter((v) => v.secret).map((v) => v.name);
