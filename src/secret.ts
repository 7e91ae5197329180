/**
 * A secret value that cannot leak by accident: it prints, serialises and inspects as
 * "[redacted]". Only `reveal()` gives the value, and only auth code calls it.
 */
import { inspect } from "node:util";

const REDACTED = "[redacted]";

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Secret.#known.add(value);
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

  static readonly #known = new Set<string>();

  /** Every secret value created in this process (tokens included), for last-line scrubbing of text. */
  static knownValues(): Iterable<string> {
    return Secret.#known;
  }

  /** Forget a value that is no longer in use (an expired access token). */
  static forget(value: string): void {
    Secret.#known.delete(value);
  }
}

export const REDACTED_TEXT = REDACTED;
