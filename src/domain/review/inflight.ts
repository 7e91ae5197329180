/**
 * Upstream bytes in flight, capped per process (interface.md §6c, MMS_INFLIGHT_MB): a page holds
 * its share from before it is requested until its records are taken, so large pages lower the
 * pages in flight across every review of the process. A grant is sized by an estimate (the largest
 * page the walk has seen) and resized to the page's real weight when it arrives. One page is
 * always admitted when nothing is in flight, so a page larger than the cap still goes through.
 */

export interface Grant {
  /** The page's measured weight replaces the estimate. */
  resize(bytes: number): void;
  release(): void;
}

export class InflightBytes {
  #used = 0;
  #peak = 0;
  readonly #waiters: { bytes: number; wake: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Bytes held now, and the most ever held (for tests and the bench). */
  get used(): number {
    return this.#used;
  }
  get peak(): number {
    return this.#peak;
  }

  /** Wait until `bytes` fit (or nothing is in flight); rejects when `signal` aborts. */
  async acquire(bytes: number, signal: AbortSignal): Promise<Grant> {
    while (this.#used > 0 && this.#used + bytes > this.limit) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const waiter = { bytes, wake: () => done(resolve) };
        const onAbort = () => done(() => reject(signal.reason));
        const done = (then: () => void) => {
          signal.removeEventListener("abort", onAbort);
          const i = this.#waiters.indexOf(waiter);
          if (i !== -1) this.#waiters.splice(i, 1);
          then();
        };
        this.#waiters.push(waiter);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    }
    signal.throwIfAborted();
    return this.#grant(bytes);
  }

  #grant(bytes: number): Grant {
    let held = bytes;
    this.#add(held);
    let released = false;
    return {
      resize: (measured) => {
        if (released) return;
        this.#add(measured - held);
        held = measured;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#add(-held);
        // Wake every waiter: each checks again whether it fits now.
        for (const w of [...this.#waiters]) w.wake();
      },
    };
  }

  #add(bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
  }
}
