/**
 * Reusable input fragments and output pieces of the tools, each described once: units,
 * enums, and which tool yields the value.
 */
import { z } from "zod";
import type { Page, PreparedRequest } from "../src/client/types.js";
import { collectPages, DEFAULT_MAX_RECORDS, MAX_PAGE_SIZE } from "../src/domain/paging.js";
import { decimalProblem } from "../src/domain/plain-decimal.js";
import type { WriteChecks } from "../src/domain/write-checks.js";
import { keyReusedError } from "../src/idempotency/store.js";
import type { ToolContext } from "./define.js";

/** Half of a UTF-16 pair without its other half: not encodable in a URL or in UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A non-empty string of at most `max` characters. Both checks stay out of the JSON Schema: they
 * cost every session context, and the validator answers a breach with its own clear message.
 */
export const text = (max: number, what?: string) => {
  const schema = z
    .string()
    .refine((v) => v.trim() !== "", { error: "must not be empty" })
    .refine((v) => v.length <= max, { error: `must be at most ${max} characters` })
    .refine((v) => !LONE_SURROGATE.test(v), {
      error: "contains an invalid Unicode character (a lone surrogate)",
    });
  return what ? schema.describe(what) : schema;
};

export const positiveId = (what?: string) => {
  const id = z.number().int().positive();
  return what ? id.describe(what) : id;
};

export const start = z.number().int().min(0).max(1_000_000).optional();

export const limit = (fallback: number) =>
  z.number().int().min(1).max(MAX_PAGE_SIZE).optional().describe(`Page size (default ${fallback}).`);

export const all = z.boolean().optional().describe("Fetch all pages.");

export const maxRecords = z
  .number()
  .int()
  .min(1)
  .max(10_000)
  .optional()
  .describe(`Cap for all=true (default ${DEFAULT_MAX_RECORDS}).`);

export const isoDate = (what: string) => text(40, what).optional();

/** Pagination facts every list result states. */
export const pageInfo = {
  total: z.number(),
  returned: z.number(),
  start: z.number(),
  next_start: z.number().nullable(),
  omitted: z.number(),
};

export interface PagingInput {
  start?: number | undefined;
  limit?: number | undefined;
  all?: boolean | undefined;
  max_records?: number | undefined;
}

/**
 * One page, or every page with progress, per the paging arguments; returns the records and
 * the page facts every list result states.
 */
export async function fetchPaged<T>(
  input: PagingInput,
  options: { defaultLimit: number; noun: string; ctx: ToolContext },
  fetchPage: (start: number, limit: number) => Promise<Page<T>>,
) {
  const { ctx, noun } = options;
  const result = await collectPages(fetchPage, {
    start: input.start ?? 0,
    limit: input.limit ?? options.defaultLimit,
    all: input.all ?? false,
    maxRecords: input.max_records ?? DEFAULT_MAX_RECORDS,
    onProgress: (fetched, target) =>
      ctx.progress({ progress: fetched, total: target, message: `Fetched ${fetched} of ${target} ${noun}` }),
  });
  return {
    items: result.items,
    page: {
      total: result.total,
      returned: result.items.length,
      start: result.start,
      next_start: result.nextStart,
      omitted: result.omitted,
    },
  };
}

/** A quantity or cost the API can hold (below 10^12, at most 6 decimals), sent as a plain decimal. */
export const decimal = (schema: z.ZodNumber) =>
  schema.superRefine((value, ctx) => {
    const problem = decimalProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  });

/** Shared by the writers: same words, same semantics (src/idempotency/store.ts). */
export const dryRun = z.boolean().optional().describe("Local checks and key lookup only; sends nothing.");
export const idempotencyKey = text(200, "A retry with it returns the first result (24 h).").optional();

/**
 * What `idempotency_key` would meet now (IdempotencyStore.peek), as a dry run reports it. `state`
 * is typed here but a plain string in tools/list: the text spells each one out, and the listing is
 * read in every session.
 */
const KeyFact = z.object({ key: z.string(), state: z.string(), detail: z.string().optional() });
type KeyFact = {
  key: string;
  state: "unused" | "replay" | "in_progress" | "outcome_unknown" | "unavailable";
  /** One line: the first call's result (replay) or failure (outcome_unknown), or why the store refuses (unavailable). */
  detail?: string | undefined;
};

/** The fields a writer's dry run adds to its output. */
export const dryRunOutput = {
  request: z.looseObject({}).optional(),
  /** What the real call would do, in one line. */
  plan: z.string().optional(),
  checked: z.array(z.string()).optional(),
  not_checked: z.array(z.string()).optional(),
  idempotency: KeyFact.optional(),
};

/**
 * What the key would meet, read without claiming it (a dry run never consumes a key). A key used
 * for another request fails the dry run as it would fail the real call; the other states are facts.
 */
export async function checkKey<T>(
  ctx: ToolContext,
  scope: string,
  key: string | undefined,
  request: PreparedRequest,
  name: (first: T) => string,
): Promise<KeyFact | undefined> {
  if (key === undefined) return undefined;
  const found = await ctx.idempotency.peek(scope, key, request);
  switch (found.state) {
    case "mismatch":
      throw keyReusedError(key);
    case "done":
      return {
        key,
        state: "replay",
        detail: found.value === undefined ? (found.summary ?? "written") : name(found.value as T),
      };
    case "failed":
      return { key, state: "outcome_unknown", detail: found.message };
    case "unavailable":
      return { key, state: "unavailable", detail: found.reason };
    default:
      return { key, state: found.state };
  }
}

function keyLine(fact: z.output<typeof KeyFact> | undefined): string {
  if (fact === undefined) {
    return "No idempotency_key: if the real call fails unclearly, a retry could write twice; send one.";
  }
  const k = `idempotency_key ${JSON.stringify(fact.key)}`;
  switch (fact.state) {
    case "unused":
      return `${k}: not used yet; the real call writes once, and a retry with it returns that result.`;
    case "replay":
      return `${k}: already used for this same request (${fact.detail}); the real call writes nothing new and answers with that result.`;
    case "in_progress":
      return `${k}: its first call has not reported an outcome yet; the real call sends nothing and says whether it is still running (retry in a few seconds) or, past its time budget, that its outcome is unknown.`;
    case "outcome_unknown":
      return `${k}: its first call ended without a confirmed outcome (${fact.detail}); the real call sends nothing: check upstream whether the record exists, then write with a new key.`;
    default:
      return `${k}: the store could not be read; the real call would be answered now: "${fact.detail}".`;
  }
}

/** A dry run's output: the exact request, what it would do, what was and was not checked, the key's state. */
export function dryRunResult(
  request: PreparedRequest,
  plan: string,
  checks: WriteChecks,
  idempotency: KeyFact | undefined,
) {
  return {
    dry_run: true,
    request: { ...request },
    plan,
    checked: checks.checked,
    not_checked: checks.not_checked,
    ...(idempotency === undefined ? {} : { idempotency }),
  };
}

/** The text of a dry run: nothing sent, the plan, checked, not checked, the key, the request. */
export function dryRunText(out: {
  request?: Record<string, unknown> | undefined;
  plan?: string | undefined;
  checked?: string[] | undefined;
  not_checked?: string[] | undefined;
  idempotency?: z.output<typeof KeyFact> | undefined;
}): string {
  const request = out.request as unknown as PreparedRequest;
  return [
    `Dry run: nothing sent, nothing written. The real call would ${out.plan}.`,
    `Checked here, passed: ${(out.checked ?? []).join("; ")}.`,
    `Not checked (the API has no endpoint to ask; only the real call can tell): ${(out.not_checked ?? []).join("; ")}.`,
    keyLine(out.idempotency),
    `Would send ${request.method} ${request.path} ${JSON.stringify(request.body)}`,
  ].join("\n");
}
