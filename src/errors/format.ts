/**
 * Any thrown value → one line an agent can act on, plus JSON details (STYLE.md rule 9).
 * `ApiError` and `UserInputError` keep every `{index, error}` item (never truncated) and get a
 * short hint per code; anything else becomes a generic line without stack or secret.
 * IMPORTANT: everything returned here passes through redact/scrubText, with the secrets of the
 * caller's scope (a tenant's answers are scrubbed with that tenant's secrets only).
 */
import { ApiError, ConfigError, type ErrorCode, type IndexedError, UserInputError } from "./api-error.js";
import { isTlsToPlainHttp, PLAIN_HTTP_TO_TLS } from "./failure-codes.js";
import { redact, scrubText } from "./redact.js";
import { PROCESS_SECRETS, type SecretScope } from "./secret.js";

export interface FormattedError {
  /** One line: what happened, the upstream's own words, and what to do. */
  text: string;
  /** Structured detail for the JSON block of the result. */
  details: unknown;
}

const HEADLINE: Record<ErrorCode, string> = {
  VALIDATION: "Upstream rejected the request",
  NOT_FOUND: "Not found upstream",
  FORBIDDEN: "Permission denied upstream",
  AUTH: "Upstream authentication failed",
  CONFLICT: "Upstream reports a conflict",
  RATE_LIMITED: "Upstream rate limit reached",
  UPSTREAM: "Upstream error",
  BAD_RESPONSE: "Unexpected upstream response",
  TIMEOUT: "Upstream timed out",
  NETWORK: "Upstream unreachable",
  SECURITY: "Upstream response rejected",
  CANCELLED: "Cancelled",
  IDEMPOTENCY: "Write refused by the idempotency check",
};

function retryAfterSeconds(details: unknown): number | undefined {
  const v = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof v === "number" ? v : undefined;
}

function outcomeUnknown(details: unknown): boolean {
  return (details as { outcome?: unknown } | undefined)?.outcome === "unknown";
}

/** The request went to the ETL hub (`{hub_url}/hub/api/v1/dags`). */
const isHubPath = (path: string) => /\/hub\/api\/v\d+\//.test(`${path}/`);

/**
 * Where a 404 points at the configuration rather than the identifiers: the main API lives
 * under `/api` in deployments of this API family, so a path without that segment means
 * MMS_BASE_URL probably lacks it; a 404 from the hub means MMS_HUB_URL is wrong.
 */
function urlHint(error: ApiError): string | undefined {
  const path = error.request?.path.split("?")[0];
  if (path === undefined) return undefined;
  if (isHubPath(path))
    return "check MMS_HUB_URL (default MMS_AUTH_URL): the DAG list is {MMS_HUB_URL}/hub/api/v1/dags";
  if (!/(^|\/)api(\/|$)/.test(path))
    return "MMS_BASE_URL usually ends in /api: check it, then the identifiers";
  return undefined;
}

/**
 * What a 404 of this request asks the agent to check, naming a tool only where one here lists the
 * records (interface.md §8b "Hints the agent can follow"): no tool lists task plans, tasks,
 * warehouses or items, so those are checked in the platform.
 */
function notFoundHint(error: ApiError): string {
  const path = error.request?.path.split("?")[0] ?? "";
  if (/\/group_tasks\/[^/]+\/tasks\//.test(path))
    return "check id_group_task and id_task in the platform: the task must exist in that task plan (no tool here lists plans or tasks)";
  if (/\/warehouse_entries_orders\//.test(path))
    return "check warehouse_code in the platform (no tool here lists warehouses)";
  if (/\/wo_budget\//.test(path))
    return "check the folio: query_budgets without id lists budgets (by status, wo_folio or window)";
  if (/\/warehouses_groups_1/.test(path)) return "list_warehouse_groups_1 lists the classifications";
  return "check the identifiers sent";
}

/** The variable that holds the URL a request went to: the token endpoint, the hub, or the main API. */
function urlVariable(error: ApiError): string {
  const path = error.request?.path.split("?")[0] ?? "";
  if (
    (error.details as { endpoint?: unknown } | undefined)?.endpoint === "token" ||
    /\/oauth\/token$/.test(path)
  )
    return "MMS_AUTH_URL";
  return isHubPath(path) ? "MMS_HUB_URL" : "MMS_BASE_URL";
}

/** A transport failure that is the configuration's, not the network's: the fix in words. */
function configurationHint(error: ApiError): string | undefined {
  const cause = (error.details as { cause?: unknown } | undefined)?.cause;
  if (typeof cause !== "string") return undefined;
  const variable = urlVariable(error);
  if (cause === "ECONNREFUSED")
    return `check ${variable} (host and port) and that the server there is up; a configuration problem, retrying will not help`;
  if (isTlsToPlainHttp(cause))
    return `use http:// instead of https:// in ${variable} (or enable TLS on that server)`;
  if (cause === PLAIN_HTTP_TO_TLS) return `use https:// instead of http:// in ${variable}`;
  // interface.md §9: a DNS failure names the variable whose host does not resolve.
  if (cause === "ENOTFOUND")
    return `check the host name in ${variable} (and a VPN or proxy needed to reach it); retrying will not help`;
  if (cause === "EAI_AGAIN")
    return `the DNS server did not answer for the host of ${variable}: retry later, and check the name and the network`;
  return undefined;
}

function hint(error: ApiError): string | undefined {
  if (outcomeUnknown(error.details))
    return "the write may have been applied: check upstream before repeating it (use an idempotency key)";
  const configuration = configurationHint(error);
  if (configuration !== undefined) return configuration;
  switch (error.code) {
    case "AUTH":
      // The token endpoint's own message may already name the variable to fix (a wrong MMS_AUTH_URL).
      if (/check MMS_/.test(error.message)) return undefined;
      return "check MMS_CLIENT_ID/MMS_CLIENT_SECRET (OAuth) or MMS_HAWK_ID/MMS_HAWK_KEY (Hawk)";
    case "FORBIDDEN":
      return "the credential lacks the permission, or the company lacks the advanced-APIs add-on: ask an administrator; retrying will not help";
    case "RATE_LIMITED": {
      const wait = retryAfterSeconds(error.details);
      return wait === undefined ? "wait about a minute, then retry" : `wait ${wait} s, then retry`;
    }
    case "TIMEOUT":
    case "NETWORK":
      return error.retryable ? "upstream unreachable or slow: retry later" : "check the configured URL";
    case "CONFLICT":
      return "the item already exists: do not repeat the request";
    case "SECURITY":
      return "the response failed Hawk verification and its data was discarded: check MMS_HAWK_KEY and the network path";
    case "NOT_FOUND":
      return urlHint(error) ?? notFoundHint(error);
    case "VALIDATION":
      return "fix the listed inputs and send again";
    case "UPSTREAM":
      return error.retryable ? "temporary upstream failure: retry later" : undefined;
    case "BAD_RESPONSE":
      return error.retryable
        ? "a proxy or gateway answered: retry later"
        : (urlHint(error) ?? "check MMS_BASE_URL / MMS_HUB_URL (a proxy or wrong URL answered)");
    default:
      return undefined;
  }
}

/**
 * Line and paragraph separators (VT, FF, NEL, U+2028, U+2029), the other controls and the format
 * characters (bidi overrides): a Unicode line splitter would start a line at the first ones, and the
 * rest hide or reorder text (interface.md §9b). Shown as `\u2028`, as success results show them (§6d).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
const escapeHidden = (text: string) =>
  text.replace(HIDDEN, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join(
      "",
    ),
  );

/** One line: scrubbed first (a secret wrapped across lines is still whole), CR/LF runs as a space, the rest escaped. */
const oneLine = (text: string, scope: SecretScope) =>
  escapeHidden(
    scrubText(text, scope)
      .replace(/\s*[\r\n]+\s*/g, " ")
      .replace(/\t/g, " ")
      .trim(),
  );

const isIndexedList = (v: unknown): v is IndexedError[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((e) => typeof e === "object" && e !== null && typeof (e as IndexedError).index === "number");

/** Format any thrown value for an MCP error result, scrubbed with the secrets of `scope`. */
export function formatError(error: unknown, scope: SecretScope = PROCESS_SECRETS): FormattedError {
  if (error instanceof ApiError) {
    const status = error.status === undefined ? "" : `${error.status} `;
    // A message that already ends in the advice (e.g. "(check the configured URL)") gets no second copy.
    const advice = hint(error);
    const h = advice !== undefined && !error.message.includes(advice) ? advice : undefined;
    const text = `${HEADLINE[error.code] ?? "Upstream error"} (${status}${error.code}): ${error.message}${h ? ` (hint: ${h})` : ""}`;
    // The line already carries the message: details hold only what it does not.
    const { status: httpStatus, code, retryable, details, request, retryAt } = error;
    // When to try again, as a moment an agent can compare with its clock (interface.md §9b).
    const at =
      retryAt === undefined || !Number.isFinite(retryAt) ? {} : { retryAt: new Date(retryAt).toISOString() };
    return {
      text: oneLine(text, scope),
      details: redact({ code, status: httpStatus, retryable, details, request, ...at }, scope),
    };
  }
  if (error instanceof UserInputError) {
    const list = isIndexedList(error.details)
      ? error.details.map((e) => `[${e.index}] ${e.error}`).join("; ")
      : undefined;
    const text = `Invalid input: ${error.message}${list && !error.message.includes(list) ? `: ${list}` : ""}`;
    return {
      text: oneLine(text, scope),
      details: redact({ code: error.code, details: error.details }, scope),
    };
  }
  if (error instanceof ConfigError) {
    return {
      text: oneLine(error.message, scope),
      details: redact({ name: error.name, problems: error.problems }, scope),
    };
  }
  const name = error instanceof Error ? error.name : typeof error;
  return {
    text: `Internal error while handling the call (${oneLine(name, scope)}); see the server log`,
    details: { name: scrubText(name, scope) },
  };
}
