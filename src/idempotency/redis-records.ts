/**
 * The Redis layout of idempotency records, without a Redis client: the keys, the record format and
 * the Lua scripts that claim, complete and release a record atomically (redis.ts runs them).
 * Key: `mcp:idem2:` + the record id (a JSON array of tenant, tool and key: one-to-one, types.ts).
 * Value: `<claim id> <JSON>`, the JSON checked with zod: anything else is corrupt, never a guess.
 * IMPORTANT: records of the first layout (`mcp:idem:<tenant>:<tool>:<key>`, where `:` and NUL in
 * a key met) are read, never written, and only for ids whose parts hold neither `:` nor NUL: for
 * those the old key names exactly one id, so an upgrade keeps their protection and misreads none.
 */
import { z } from "zod";
import { recordParts, StoreError } from "./types.js";

const PREFIX = "mcp:idem2:";
const LEGACY_PREFIX = "mcp:idem:";

/** The Redis key of a record id. The prefix differs from the first layout's (`mcp:idem:`) by design. */
export function redisKey(id: string): string {
  return `${PREFIX}${id}`;
}

/**
 * The first layout's key of an id, when it names this id alone: every part free of `:` and NUL (the
 * old key joined the parts with `:` and turned NUL into `:`). Undefined otherwise.
 */
export function legacyRedisKey(id: string): string | undefined {
  const parts = recordParts(id);
  if (parts.some((p) => p.includes(":") || p.includes("\u0000"))) return undefined;
  return `${LEGACY_PREFIX}${parts.join(":")}`;
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

const Outcome = z.object({
  ok: z.boolean(),
  json: z.string().refine((j) => j === "" || isJson(j)),
  summary: z.string().optional(),
});
const Hash = z.string().regex(/^[0-9a-f]{64}$/);
/** `t`: when the call started, in ms by Redis's clock (estimated by the claiming replica). */
const Running = z.object({ s: z.literal("running"), h: Hash, t: z.number() });
const Done = z.object({ s: z.literal("done"), h: Hash, o: Outcome });
const Stored = z.discriminatedUnion("s", [Running, Done]);
export type StoredRecord = z.infer<typeof Stored>;

/** The value a record is stored as. */
export function recordValue(claim: string, record: StoredRecord): string {
  return `${claim} ${JSON.stringify(record)}`;
}

/** A stored value, checked: a StoreError("corrupt") for anything this module did not write. */
export function parseRecord(value: string): { claim: string; record: StoredRecord } {
  const space = value.indexOf(" ");
  let json: unknown;
  try {
    json = JSON.parse(value.slice(space + 1));
  } catch {
    json = undefined;
  }
  const parsed = Stored.safeParse(json);
  if (space < 1 || !parsed.success)
    throw new StoreError("corrupt", "the record is not one this server wrote");
  return { claim: value.slice(0, space), record: parsed.data };
}

// Redis's own clock, in ms, inside a script (TIME is allowed: scripts replicate their effects).
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS[1] the key, KEYS[2] the first layout's key (optional); ARGV: value, TTL (ms), deadline (ms,
 * Redis's clock). IMPORTANT: a claim that reaches Redis after its deadline (held in a paused Redis or
 * a partition while the caller gave up) changes nothing: it answers {'late'}. Otherwise
 * {'claimed', now} or {'found', now, value, pttl}.
 */
export const CLAIM = `${NOW}
if now > tonumber(ARGV[3]) then return {'late', now} end
for i = 1, #KEYS do
  local cur = redis.call('GET', KEYS[i])
  if cur then return {'found', now, cur, redis.call('PTTL', KEYS[i])} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {'claimed', now}`;

// Replace or delete the record only while it is still the one this claim wrote (compare-and-set).
const HELD = `local cur = redis.call('GET', KEYS[1])
if not cur or string.sub(cur, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ' ' then return 0 end`;

/** ARGV: claim id, value, TTL (ms). 1 when recorded. */
export const COMPLETE = `${HELD}
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** ARGV: claim id. Deletes the record only while it is this claim's and still running. */
export const RELEASE = `${HELD}
if string.find(cur, '"s":"running"', 1, true) == nil then return 0 end
redis.call('DEL', KEYS[1])
return 1`;

/** KEYS as for CLAIM. {now, value, pttl} of the first key that exists, or {now}. */
export const LOOKUP = `${NOW}
for i = 1, #KEYS do
  local cur = redis.call('GET', KEYS[i])
  if cur then return {now, cur, redis.call('PTTL', KEYS[i])} end
end
return {now}`;
