/**
 * Entries by key until their own time, bounded (past `max` entries the oldest goes), and the key
 * the token caches use: the SHA-256 of a token, never the token.
 */
import { createHash } from "node:crypto";

export const digest = (token: string) => createHash("sha256").update(token).digest("base64url");

export class TimedCache<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}
  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.until) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
  set(key: string, value: T, until: number): void {
    if (until <= this.now()) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, until });
  }
}
