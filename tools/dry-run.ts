/**
 * What a writer's dry run reports (interface.md §9 "a dry run claims only what it checked"): the
 * exact request, the plan, the rules checked here, what only the API can judge, what the key would
 * meet in the idempotency store (its room and health included) and whether a confirmation would be
 * asked and could be. A real call that would be refused is said to be refused, never "writes once".
 * The first line (interface.md §6g) says what only the real call can check and whether repeating it is safe.
 */
import { z } from "zod";
import type { PreparedRequest } from "../src/client/types.js";
import type { WriteChecks } from "../src/domain/write-checks.js";
import { keyReusedError } from "../src/idempotency/store.js";
import type { ConfirmationCheck, ToolContext } from "./define.js";

/**
 * What `idempotency_key` would meet now (IdempotencyStore.peek), as a dry run reports it. `state`
 * is typed here but a plain string in tools/list: the text spells each one out, and the listing is
 * read in every session.
 */
const KeyFact = z.object({ key: z.string(), state: z.string(), detail: z.string().optional() });
type KeyFact = {
  key: string;
  state: "unused" | "replay" | "in_progress" | "outcome_unknown" | "unavailable";
  /**
   * One line: the first call's result (replay) or failure (outcome_unknown), why the store refuses
   * (unavailable), or, for an unused key, whether the store's room was checked.
   */
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
  /** "not_asked", "would_ask" or "refused: <why, and the fix>"; a plain string, like KeyFact.state. */
  confirmation: z.string().optional(),
};

const ROOM_CHECKED = "the store is healthy and has room for it";
const ROOM_NOT_CHECKED = "the store is healthy; its room was not checked (Redis did not say)";

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
    case "unused":
      return { key, state: "unused", detail: found.room === "checked" ? ROOM_CHECKED : ROOM_NOT_CHECKED };
    default:
      return { key, state: found.state };
  }
}

/** The checks the store and the confirmation add: what was checked, what was not. */
function storeAndConfirmationChecks(key: KeyFact | undefined, confirmation: ConfirmationCheck): WriteChecks {
  const checked: string[] = [];
  const notChecked: string[] = [];
  // The confirmation has its own line; only what it leaves open is listed.
  if (confirmation.state === "would_ask") notChecked.push("whether the user approves the write");
  if (key?.state === "unused" && key.detail === ROOM_CHECKED)
    checked.push("the idempotency store is healthy and has room for the key");
  if (key?.state === "unused" && key.detail === ROOM_NOT_CHECKED) {
    checked.push("the idempotency store is healthy");
    notChecked.push("whether the idempotency store has room for the key");
  }
  if (key?.state === "unavailable") checked.push("the idempotency store: it would refuse the key now");
  return { checked, not_checked: notChecked };
}

/** A dry run's output: the request, the plan, what was and was not checked, the key, the confirmation. */
export function dryRunResult(
  request: PreparedRequest,
  plan: string,
  checks: WriteChecks,
  idempotency: KeyFact | undefined,
  confirmation: ConfirmationCheck,
) {
  const extra = storeAndConfirmationChecks(idempotency, confirmation);
  return {
    dry_run: true,
    request: { ...request },
    plan,
    checked: [...checks.checked, ...extra.checked],
    not_checked: [...checks.not_checked, ...extra.not_checked],
    ...(idempotency === undefined ? {} : { idempotency }),
    confirmation: confirmation.state === "refused" ? `refused: ${confirmation.detail}` : confirmation.state,
  };
}

function keyLine(fact: z.output<typeof KeyFact> | undefined, refused: boolean): string {
  if (fact === undefined) {
    return "No idempotency_key: if the real call fails unclearly, a retry could write twice; send one.";
  }
  const k = `idempotency_key ${JSON.stringify(fact.key)}`;
  switch (fact.state) {
    case "unused":
      return refused
        ? `${k}: not used yet (${fact.detail}); the refused call would leave it unused.`
        : `${k}: not used yet (${fact.detail}); if the API accepts the call it writes once, and a retry with the key returns that result.`;
    case "replay":
      return `${k}: already used for this same request (${fact.detail}); the real call writes nothing new and answers with that result.`;
    case "in_progress":
      return `${k}: its first call has not reported an outcome yet; the real call sends nothing and says whether it is still running (retry in a few seconds) or, past its time budget, that its outcome is unknown.`;
    case "outcome_unknown":
      return `${k}: its first call ended without a confirmed outcome (${fact.detail}); the real call sends nothing: check upstream whether the record exists, then write with a new key.`;
    default:
      return `${k}: the idempotency store would refuse it now, so the real call would send nothing: "${fact.detail}".`;
  }
}

function confirmationLine(confirmation: string | undefined): string | undefined {
  if (confirmation === "not_asked")
    return "Confirmation: none is asked (the server runs without --confirm-writes).";
  if (confirmation === "would_ask")
    return "Confirmation: the real call first asks the user to approve it (--confirm-writes); if they decline, nothing is written.";
  return confirmation === undefined ? undefined : `Confirmation: ${confirmation}`;
}

/**
 * The first line's last sentence (interface.md §6g): whether repeating the real call is safe, by what
 * the key would meet. The details follow on keyLine's line.
 */
function repeatSentence(fact: z.output<typeof KeyFact> | undefined, refused: boolean): string {
  if (refused) return "The real call would be REFUSED before sending anything (see below).";
  if (fact === undefined) return "Send an idempotency_key: then a real call is safe to repeat.";
  const k = `idempotency_key ${JSON.stringify(fact.key)}`;
  switch (fact.state) {
    case "unused":
      return `A real call with ${k} writes once and is safe to repeat.`;
    case "replay":
      return `A real call with ${k} is safe to repeat: the key was already used for this request, so it writes nothing new.`;
    case "in_progress":
      return `A real call with ${k} is safe to repeat: it sends nothing while the key's first call is unsettled.`;
    default:
      return `A real call with ${k} sends nothing: the key's first call has no confirmed outcome (see below).`;
  }
}

/**
 * The text of a dry run. Its first line says what only the real call can check (the API has no
 * look-ups, so a dry run cannot check more) and whether the real call is safe to repeat; then the
 * verdict and plan, what was checked, confirmation, key, request.
 */
export function dryRunText(out: {
  request?: Record<string, unknown> | undefined;
  plan?: string | undefined;
  checked?: string[] | undefined;
  not_checked?: string[] | undefined;
  idempotency?: z.output<typeof KeyFact> | undefined;
  confirmation?: string | undefined;
}): string {
  const request = out.request as unknown as PreparedRequest;
  const refused = out.confirmation?.startsWith("refused") || out.idempotency?.state === "unavailable";
  const verdict = !refused
    ? `The real call would ${out.plan}.`
    : `Once the refusal below is fixed, the real call would ${out.plan}.`;
  return [
    `Dry run: nothing sent. Only the real call can check (the API has no look-ups): ${(out.not_checked ?? []).join("; ")}. ${repeatSentence(out.idempotency, refused)}`,
    verdict,
    `Checked here, passed: ${(out.checked ?? []).join("; ")}.`,
    confirmationLine(out.confirmation),
    keyLine(out.idempotency, refused),
    `Would send ${request.method} ${request.path} ${JSON.stringify(request.body)}`,
  ]
    .filter((line) => line !== undefined)
    .join("\n");
}
