/**
 * Reusable input fragments and output pieces of the tools, each described once: units,
 * enums, and which tool yields the value.
 */
import { z } from "zod";
import { MAX_PAGE_SIZE } from "../src/paging.js";

export const positiveId = (what: string) => z.number().int().positive().describe(what);

export const start = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe("Offset of the first record (0-based, default 0). Use `next_start` from the previous result.");

export const limit = (fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .optional()
    .describe(`Records per page, 1..${MAX_PAGE_SIZE} (default ${fallback}).`);

export const all = z
  .boolean()
  .optional()
  .describe("true: walk every page from `start` (up to `max_records`), reporting progress. Default false.");

export const DEFAULT_MAX_RECORDS = 1000;
export const maxRecords = z
  .number()
  .int()
  .min(1)
  .max(10_000)
  .optional()
  .describe(
    `With all=true: stop after this many records (default ${DEFAULT_MAX_RECORDS}); the result says how many were left out.`,
  );

export const isoDate = (what: string) =>
  z
    .string()
    .min(1)
    .max(40)
    .optional()
    .describe(
      `${what}: ISO 8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T08:00:00-03:00 (a plain date or no offset is UTC).`,
    );

/** Pagination facts every list result states. */
export const pageInfo = {
  total: z.number().int().describe("Number of matching records upstream."),
  returned: z.number().int().describe("Number of records in this result."),
  start: z.number().int(),
  next_start: z
    .number()
    .int()
    .nullable()
    .describe("Pass as `start` for the next page; null when there is none."),
  omitted: z
    .number()
    .int()
    .describe("Matching records not returned (0 unless max_records stopped an all=true walk)."),
};

/** One line telling the agent where the rest is, or nothing when the list is complete. */
export function pagingHint(info: {
  total: number;
  returned: number;
  next_start: number | null;
  omitted: number;
}): string {
  if (info.omitted > 0) {
    return `${info.omitted} more match but were left out (max_records); narrow the filters or continue with start=${info.next_start}.`;
  }
  if (info.next_start !== null)
    return `More available: call again with start=${info.next_start} (or all=true).`;
  return "";
}
