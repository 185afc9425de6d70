/** How often the background purge looks for expired trash unless told otherwise: hourly (trash is kept for days). */
export const DEFAULT_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs the purge of expired trash in the background: once soon after start, then every
 * `intervalMs`. Its timers are unref'd (they never keep a process alive), and one run at a time:
 * the next is scheduled when a run ends. A run that fails is reported to `logger` and tried again
 * at the next interval. The purge itself works in small transactions and yields between them, so
 * it never pauses the service's requests for long.
 */
export class TrashPurger {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  /** `purge` removes expired entries, checking `stop` between transactions. */
  constructor(
    private readonly purge: (stop: () => boolean) => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly logger: { warn(message: string): void },
  ) {}

  /** Starts the first run, on the next turn of the event loop. */
  start(): void {
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => this.#run(), ms);
    this.#timer.unref();
  }

  #run(): void {
    this.#timer = undefined;
    this.#running = this.purge(() => this.#closed)
      .then(
        () => undefined,
        (error: unknown) => {
          // Closing may end the store under a run: not worth a warning.
          if (!this.#closed) this.logger.warn(`The purge of expired trash failed (tried again later): ${(error as Error).message}`);
        },
      )
      .finally(() => {
        this.#running = undefined;
        this.#schedule(this.intervalMs);
      });
  }

  /** Stops the purge: no run starts after this, and the one under way ends after its transaction in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
