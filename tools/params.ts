/**
 * Reusable input fragments and output pieces of the tools, each described once: units,
 * enums, and which tool yields the value.
 */
import { z } from "zod";
import type { Page } from "../src/client/types.js";
import { collectPages, DEFAULT_MAX_RECORDS, MAX_PAGE_SIZE } from "../src/domain/paging.js";
import { decimalProblem } from "../src/domain/plain-decimal.js";
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

/** Where a page starts; its bound, like text()'s, is checked but kept out of the JSON Schema. */
export const start = z
  .number()
  .int()
  .min(0)
  .refine((v) => v <= 1_000_000, { error: "must be at most 1000000" })
  .optional();

/** A free-text note (empty allowed); its bound is checked but kept out of the JSON Schema, like text()'s. */
export const note = z
  .string()
  .refine((v) => v.length <= 2000, { error: "must be at most 2000 characters" })
  .optional();

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
export const dryRun = z.boolean().optional().describe("Local checks only (no API look-ups); sends nothing.");
export const idempotencyKey = text(200, "A retry returns the first result (24 h).").optional();
