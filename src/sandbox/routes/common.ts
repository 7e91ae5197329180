/**
 * Helpers shared by the route modules: the route context type, JSON body parsing, and the
 * lenient number parsing real deployments need (numbers often arrive as text).
 */
import type { Principal } from "../auth.js";
import { errorItem, type Reply } from "../responses.js";
import type { RouteContext } from "../router.js";
import type { SandboxState } from "../state.js";

/** Everything a route handler needs besides the request. */
export interface Env {
  state: () => SandboxState;
  /** Server time in epoch ms (injectable clock + fault skew). */
  now: () => number;
  /** Called after a write. A hint only: with a state file, the store journals every change made through `state()`. */
  changed: () => void;
}

export type Ctx = RouteContext<Principal>;

/**
 * Parse the JSON body. An empty body is `{}`; anything that is not JSON gets the sandbox's
 * choice for "not shown": HTTP 400 with the envelope (docs/sandbox.md).
 */
export function parseBody(ctx: Ctx): { ok: true; value: unknown } | { ok: false; reply: Reply } {
  if (ctx.rawBody.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(ctx.rawBody) };
  } catch {
    return { ok: false, reply: errorItem(400, "Request body is not valid JSON") };
  }
}

/** A positive integer from a number or decimal text; undefined otherwise. */
export function positiveInt(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  }
  return undefined;
}

/** A finite number from a number or numeric text ("1", "2.5"); undefined otherwise. */
export function numeric(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

/** A non-negative integer query parameter with a default; undefined when malformed. */
export function queryInt(query: URLSearchParams, name: string, fallback: number): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
