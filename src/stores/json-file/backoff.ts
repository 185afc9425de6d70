/** The wait after the first failure, and the longest wait. */
const FIRST_MS = 1_000;
const LONGEST_MS = 5 * 60_000;

/**
 * When to try a failing background task again: not before a wait that doubles with each failure in
 * a row (1 s, 2 s, … up to 5 minutes), at once again after a success. A task that fails for want of
 * disk space would otherwise be tried on every write, each try writing (and removing) megabytes.
 */
export class Backoff {
  #failures = 0;
  #until = 0;

  /** Whether the wait since the last failure is over. */
  due(now = Date.now()): boolean {
    return now >= this.#until;
  }

  failed(now = Date.now()): void {
    this.#failures++;
    this.#until = now + Math.min(LONGEST_MS, FIRST_MS * 2 ** (this.#failures - 1));
  }

  succeeded(): void {
    this.#failures = 0;
    this.#until = 0;
  }

  /** The wait left, for a log line: `in 4 s at the earliest`. */
  describe(now = Date.now()): string {
    return `in ${Math.max(0, Math.ceil((this.#until - now) / 1000))} s at the earliest`;
  }
}
