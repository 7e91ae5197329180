/**
 * A secret value that cannot leak by accident: it prints, serialises and inspects as
 * "[redacted]". Only `reveal()` gives the value, and only auth code calls it.
 * Every value is registered in scopes for last-line scrubbing of text (src/errors/redact.ts): the
 * process scope (all secrets: what logs scrub) and, when given, the scope of the configuration it
 * belongs to (one per tenant: what that tenant's answers are scrubbed with, so that no answer depends
 * on another tenant's secrets).
 * IMPORTANT: a value that is no longer used (a refreshed token) is retired, not dropped: answers
 * to calls made with it may still arrive, so it stays scrubbed until it expires, and at least
 * RETIRE_GRACE_MS after it was retired.
 */
import { inspect } from "node:util";

const REDACTED = "[redacted]";

/** Retired values stay scrubbed at least this long: longer than any call can last (its total budget is 50 s by default). */
export const RETIRE_GRACE_MS = 15 * 60 * 1000;
/** Most retired values kept per scope; beyond it the one that expires first goes (a 401 storm cannot grow the scrub list). */
export const MAX_RETIRED = 64;

/** A set of secret values in use or recently retired; `version()` changes whenever it does. */
export class SecretScope {
  readonly #live = new Set<string>();
  /** Retired value → wall-clock ms until which it is still scrubbed. */
  readonly #retired = new Map<string, number>();
  #version = 0;

  add(value: string): void {
    if (this.#live.has(value)) return;
    this.#live.add(value);
    this.#retired.delete(value);
    this.#version += 1;
  }

  /** Every value in use or retired and not yet expired. */
  knownValues(): string[] {
    this.#prune();
    return [...this.#live, ...this.#retired.keys()];
  }

  /** Changes whenever the set of known values changes (redact.ts caches its matchers on it). */
  version(): number {
    this.#prune();
    return this.#version;
  }

  /** Retire `value`: scrubbed until `expiresAtMs`, and at least RETIRE_GRACE_MS from now. */
  retire(value: string, expiresAtMs = 0): void {
    if (!this.#live.delete(value) && !this.#retired.has(value)) return;
    this.#retired.set(value, Math.max(expiresAtMs, Secret.now() + RETIRE_GRACE_MS));
    this.#version += 1;
    while (this.#retired.size > MAX_RETIRED) {
      let first: [string, number] | undefined;
      for (const entry of this.#retired) if (first === undefined || entry[1] < first[1]) first = entry;
      this.#retired.delete(first![0]);
    }
  }

  /** No JSON, no inspection: a Config that holds its scope prints without its values. */
  toJSON(): string {
    return "[secret scope]";
  }

  [inspect.custom](): string {
    return "[secret scope]";
  }

  #prune(): void {
    if (this.#retired.size === 0) return;
    const now = Secret.now();
    for (const [value, until] of this.#retired) {
      if (until <= now) {
        this.#retired.delete(value);
        this.#version += 1;
      }
    }
  }
}

/** Every secret of the process, whatever scope it also belongs to: what the logger scrubs. */
export const PROCESS_SECRETS = new SecretScope();

export class Secret {
  readonly #value: string;
  readonly #scope: SecretScope | undefined;

  /** `scope`: the configuration (tenant) the value belongs to; it is always in PROCESS_SECRETS too. */
  constructor(value: string, scope?: SecretScope) {
    this.#value = value;
    this.#scope = scope;
    PROCESS_SECRETS.add(value);
    scope?.add(value);
  }

  reveal(): string {
    return this.#value;
  }

  /** The scope of the configuration this value belongs to (undefined: the process's only). */
  get scope(): SecretScope | undefined {
    return this.#scope;
  }

  /** A secret derived from this one (a token, a header value): registered in the same scope. */
  derive(value: string): Secret {
    return new Secret(value, this.#scope);
  }

  /** Retire this value everywhere it is registered (see SecretScope.retire). */
  retire(expiresAtMs = 0): void {
    PROCESS_SECRETS.retire(this.#value, expiresAtMs);
    this.#scope?.retire(this.#value, expiresAtMs);
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

  /** Wall clock (tests inject one). */
  static now: () => number = Date.now;

  /** Every secret value of the process in use or retired and not yet expired (tokens included). */
  static knownValues(): string[] {
    return PROCESS_SECRETS.knownValues();
  }

  /** Changes whenever the process's set of known values changes. */
  static version(): number {
    return PROCESS_SECRETS.version();
  }

  /** Retire a value from the process scope (a tenant's scope retires it through `secret.retire`). */
  static forget(value: string, expiresAtMs = 0): void {
    PROCESS_SECRETS.retire(value, expiresAtMs);
  }
}

export const REDACTED_TEXT = REDACTED;
