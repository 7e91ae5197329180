/**
 * A tiny method + path router. Patterns use `:name` segments; each matched segment is
 * percent-decoded once (a malformed escape makes the route not match rather than throw).
 */
import type { IncomingMessage } from "node:http";
import type { Reply } from "./responses.js";

/** What a route handler gets: the request, its decoded path params, query and raw body. */
export interface RouteContext<A = unknown> {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  rawBody: string;
  auth: A;
}

export type Handler<A> = (ctx: RouteContext<A>) => Reply | Promise<Reply>;

interface Route<A> {
  method: string;
  segments: string[];
  handler: Handler<A>;
}

export type Match<A> =
  | { kind: "found"; handler: Handler<A>; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: string[] }
  | { kind: "not-found" };

export class Router<A> {
  readonly #routes: Route<A>[] = [];

  add(method: string, pattern: string, handler: Handler<A>): this {
    this.#routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  match(method: string, path: string): Match<A> {
    const parts = split(path);
    const allow: string[] = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: "found", handler: route.handler, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { kind: "method-not-allowed", allow } : { kind: "not-found" };
  }
}

function split(path: string): string[] {
  // A trailing slash is tolerated: `/api/wo_budget/` is `/api/wo_budget`.
  return path.split("/").filter((s, i, all) => i > 0 && !(s === "" && i === all.length - 1));
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return undefined;
      }
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}
