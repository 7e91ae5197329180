/**
 * The import rules of docs/architecture.md, checked by `npm run lint` (dependency-cruiser). Each
 * rule names a layer and what it must not know; a broken rule fails lint, and so CI.
 * Layers, lowest first: errors → config → telemetry → auth → client → domain, idempotency → tools →
 * mcp → hosting → main. The sandbox stands apart (an independent oracle of the upstream), and so does
 * the browser view in src/ui/ (it runs in the host's iframe and reaches the server only through the host).
 */

/** `from` matches files of these folders of src/. */
const inSrc = (...folders) => `^src/(${folders.join("|")})/`;
/** `to` matches files of these folders of src/, or the top-level tools/. */
const layer = (...folders) => `^(src/(${folders.join("|")})/|${folders.includes("tools") ? "tools/" : "$^"})`;

/** A file directly in src/, and the one that may be: the binary's entry. */
const LOOSE = "^src/[^/]+$";
const ENTRY = "^src/bin\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle between files: a cycle hides which of the two is the lower layer.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    // src/ holds folders, one per layer, and the binary's entry (src/bin.ts): a new file goes into the
    // folder of its layer. Three rules, since a loose file may import, be imported, or neither.
    {
      name: "no-loose-files-in-src",
      comment:
        "A file directly in src/ (but src/bin.ts) that imports something: move it into its layer's folder.",
      severity: "error",
      from: { path: LOOSE, pathNot: ENTRY },
      to: {},
    },
    {
      name: "no-loose-files-in-src-imported",
      comment:
        "An import of a file directly in src/ (but src/bin.ts): move that file into its layer's folder.",
      severity: "error",
      from: {},
      to: { path: LOOSE, pathNot: ENTRY },
    },
    {
      name: "no-loose-files-in-src-orphan",
      comment:
        "A file directly in src/ (but src/bin.ts) that nothing imports: move it into its layer's folder.",
      severity: "error",
      from: { orphan: true, path: LOOSE, pathNot: ENTRY },
      to: {},
    },
    {
      name: "errors-are-the-bottom",
      comment: "errors/ (the one error type, redaction, Secret) depends on no other layer.",
      severity: "error",
      from: { path: inSrc("errors") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors") },
    },
    {
      name: "config-knows-only-errors",
      comment: "config/ turns the environment into typed settings: it knows errors/ and nothing above.",
      severity: "error",
      from: { path: inSrc("config") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config") },
    },
    {
      name: "telemetry-knows-no-request-path",
      comment: "telemetry/ (logger, traces) is called by every layer, so it imports none of them.",
      severity: "error",
      from: { path: inSrc("telemetry") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "telemetry") },
    },
    {
      name: "auth-knows-only-its-schemes",
      comment:
        "The auth schemes (OAuth, Hawk) sign requests for the client: they know no client, MCP, tools or domain.",
      severity: "error",
      from: { path: inSrc("auth") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "telemetry", "auth") },
    },
    {
      name: "client-knows-no-mcp",
      comment: "The HTTP client speaks HTTP only: no MCP, tools, domain, idempotency, hosting or entry code.",
      severity: "error",
      from: { path: inSrc("client") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "telemetry", "auth", "client") },
    },
    {
      name: "domain-knows-no-protocol",
      comment:
        "domain/ (budget review, money, paging, dates, labels, entry mapping) takes narrow dependencies: no MCP, transports, tools, hosting or idempotency.",
      severity: "error",
      from: { path: inSrc("domain") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "client", "domain") },
    },
    {
      name: "idempotency-stores-plain-facts",
      comment:
        "The idempotency store keeps what the upstream answered: it knows no MCP, tools, domain or hosting.",
      severity: "error",
      from: { path: inSrc("idempotency") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "telemetry", "idempotency") },
    },
    {
      name: "tools-speak-domain",
      comment:
        "A tool validates, calls the client or the domain, and returns a plain object: no MCP, transports, hosting or entry code.",
      severity: "error",
      from: { path: "^tools/" },
      to: { path: layer("mcp", "hosting", "main", "sandbox", "ui", "auth") },
    },
    {
      name: "mcp-knows-no-hosting",
      comment:
        "mcp/ (the SDK module, the call wrapper, transports, prompts) is built by hosting/ and main/, never the reverse.",
      severity: "error",
      from: { path: inSrc("mcp") },
      to: { path: layer("hosting", "main", "sandbox", "ui") },
    },
    {
      name: "hosting-knows-no-entry",
      comment: "hosting/ builds per-tenant servers; only main/ starts it.",
      severity: "error",
      from: { path: inSrc("hosting") },
      to: { path: layer("main", "sandbox", "ui") },
    },
    {
      name: "sandbox-is-independent",
      comment:
        "The sandbox is a second implementation of api-spec.md, a test oracle: sharing the client's schemas or the tools would hide the bugs it should catch.",
      severity: "error",
      from: { path: inSrc("sandbox") },
      to: { path: "^(src/|tools/)", pathNot: inSrc("errors", "config", "telemetry", "sandbox") },
    },
    {
      name: "nothing-imports-the-entry",
      comment: "main/ and src/bin.ts are the top: nothing imports them.",
      severity: "error",
      from: { path: "^(src/|tools/)", pathNot: "^src/(main/|bin\\.ts$)" },
      to: { path: "^src/(main/|bin\\.ts$)" },
    },
    {
      name: "ui-is-its-own-world",
      comment:
        "The browser view (src/ui/) runs in the host's iframe: it imports no server code, and no server code imports it (the server serves its built HTML).",
      severity: "error",
      from: { path: "^src/ui/" },
      to: { path: "^(src/|tools/)", pathNot: "^src/ui/" },
    },
    {
      name: "ui-uses-only-the-extension",
      comment:
        "The view's one package is the MCP Apps extension (its App class): anything else would ship inside the 1 MB view, or reach for Node.",
      severity: "error",
      from: { path: "^src/ui/" },
      to: { dependencyTypesNot: ["local"], pathNot: "node_modules/@modelcontextprotocol/ext-apps/" },
    },
    {
      name: "server-does-not-import-ui",
      comment: "The server reads the view's built HTML file; it never imports browser code.",
      severity: "error",
      from: { path: "^(src/|tools/)", pathNot: "^src/ui/" },
      to: { path: "^src/ui/" },
    },
    {
      name: "one-sdk-module",
      comment: "Only src/mcp/sdk.ts imports the MCP SDK: a protocol change is contained in one file.",
      severity: "error",
      from: { path: "^(src/|tools/)", pathNot: "^src/(mcp/sdk\\.ts|ui/)" },
      to: { path: "@modelcontextprotocol/" },
    },
    {
      name: "one-undici-module",
      comment: "Only src/client/transport.ts imports undici.",
      severity: "error",
      from: { path: "^(src/|tools/)", pathNot: "^src/client/transport\\.ts$" },
      to: { path: "node_modules/undici/" },
    },
    {
      name: "the-shared-budget-loads-from-hosting",
      comment:
        "The Redis request budget (src/client/rate-budget-redis.ts) is loaded only by src/hosting/rate-budgets.ts, and only with REDIS_URL: a start without Redis never loads the Redis client.",
      severity: "error",
      from: { path: "^(src/|tools/)", pathNot: "^src/hosting/rate-budgets\\.ts$" },
      to: { path: "^src/client/rate-budget-redis\\.ts$" },
    },
    {
      name: "hosting-packages-stay-in-their-modules",
      comment:
        "Redis and OpenTelemetry load only when configured: only src/idempotency/redis.ts, src/client/rate-budget-redis.ts (the shared request budget), src/hosting/history-redis.ts (review history, imported dynamically) and src/telemetry/ import them.",
      severity: "error",
      from: {
        path: "^(src/|tools/)",
        pathNot:
          "^src/(idempotency/redis\\.ts$|client/rate-budget-redis\\.ts$|hosting/history-redis\\.ts$|telemetry/)",
      },
      to: { path: "node_modules/(@redis|@opentelemetry)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count: a type names its layer as surely as a value does.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
