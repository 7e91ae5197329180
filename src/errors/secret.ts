/**
 * A secret value that cannot leak by accident: it prints, serialises and inspects as
 * "[redacted]". Only `reveal()` gives the value, and only auth code calls it.
 * Every value ever wrapped is registered for last-line scrubbing of text (src/errors/redact.ts).
 * IMPORTANT: a value that is no longer used (a refreshed token) is retired, not dropped: answers
 * to calls made with it may still arrive, so it stays scrubbed until it expires, and at least
 * RETIRE_GRACE_MS after it was retired.
 */
import { inspect } from "node:util";

const REDACTED = "[redacted]";

/** Retired values stay scrubbed at least this long: longer than any call can last (its total budget is 50 s by default). */
export const RETIRE_GRACE_MS = 15 * 60 * 1000;
/** Most retired values kept; beyond it the one that expires first goes (a 401 storm cannot grow the scrub list). */
export const MAX_RETIRED = 64;

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    if (!Secret.#live.has(value)) {
      Secret.#live.add(value);
      Secret.#retired.delete(value);
      Secret.#version += 1;
    }
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }

  static readonly #live = new Set<string>();
  /** Retired value → wall-clock ms until which it is still scrubbed. */
  static readonly #retired = new Map<string, number>();
  static #version = 0;
  /** Wall clock (tests inject one). */
  static now: () => number = Date.now;

  /** Every secret value in use or retired and not yet expired (tokens included). */
  static knownValues(): string[] {
    Secret.#prune();
    return [...Secret.#live, ...Secret.#retired.keys()];
  }

  /** Changes whenever the set of known values changes (redact.ts caches its matcher on it). */
  static version(): number {
    Secret.#prune();
    return Secret.#version;
  }

  /**
   * Retire a value that is no longer used (a refreshed or rejected token). It stays scrubbed
   * until `expiresAtMs` (the end of its lifetime) and at least RETIRE_GRACE_MS from now.
   */
  static forget(value: string, expiresAtMs = 0): void {
    if (!Secret.#live.delete(value) && !Secret.#retired.has(value)) return;
    Secret.#retired.set(value, Math.max(expiresAtMs, Secret.now() + RETIRE_GRACE_MS));
    Secret.#version += 1;
    while (Secret.#retired.size > MAX_RETIRED) {
      let first: [string, number] | undefined;
      for (const entry of Secret.#retired) if (first === undefined || entry[1] < first[1]) first = entry;
      Secret.#retired.delete(first![0]);
    }
  }

  static #prune(): void {
    if (Secret.#retired.size === 0) return;
    const now = Secret.now();
    for (const [value, until] of Secret.#retired) {
      if (until <= now) {
        Secret.#retired.delete(value);
        Secret.#version += 1;
      }
    }
  }
}

export const REDACTED_TEXT = REDACTED;
