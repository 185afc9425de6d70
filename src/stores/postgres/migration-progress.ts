import type { PostgresClient } from './pool.js';

/** How often the instance running a long step says how far it got. */
export const PROGRESS_EVERY_MS = 10_000;

/**
 * What the instance running a migration step that fills rows (migration 3 indexes every record
 * held) says while it goes, so that a long step is seen, not guessed at: a line when it starts
 * (how many records), one every {@link PROGRESS_EVERY_MS} (how many done, records/s, the time left),
 * and one at the end. Its connection's `application_name` says the same meanwhile (`SET LOCAL`:
 * back to what it was at commit), so that `pg_stat_activity`, and the instances that wait for it
 * (see migration-wait.ts), show it too.
 */
export class MigrationProgress {
  #total = 0;
  #done = 0;
  #startedAt = 0;
  #saidAt = 0;

  constructor(
    private readonly client: PostgresClient,
    private readonly schema: string,
    private readonly step: { readonly version: number; readonly name: string },
    private readonly log: (message: string) => void,
    private readonly everyMs = PROGRESS_EVERY_MS,
  ) {}

  /** The step has `total` records to go through. Nothing is said of a store that holds none. */
  async start(total: number): Promise<void> {
    this.#total = total;
    this.#startedAt = this.#saidAt = Date.now();
    if (total === 0) return;
    this.log(
      `PostgreSQL schema "${this.schema}": migration ${this.step.version} (${this.step.name}) goes through the ${count(total)} records stored, ` +
        'in one transaction; instances starting meanwhile wait for it.',
    );
    await this.#show();
  }

  /** `records` more are done. */
  async advance(records: number): Promise<void> {
    this.#done += records;
    const now = Date.now();
    if (now - this.#saidAt < this.everyMs || this.#done >= this.#total) return;
    this.#saidAt = now;
    const rate = this.#rate(now);
    const left = rate > 0 ? Math.ceil((this.#total - this.#done) / rate) : undefined;
    this.log(
      `PostgreSQL schema "${this.schema}": migration ${this.step.version}: ${count(this.#done)} of ${count(this.#total)} records ` +
        `(${count(Math.round(rate))} records/s${left === undefined ? '' : `, about ${left} s to go`}).`,
    );
    await this.#show();
  }

  /** The step's rows are written (its transaction commits next). */
  finish(): void {
    if (this.#total === 0) return;
    const now = Date.now();
    this.log(
      `PostgreSQL schema "${this.schema}": migration ${this.step.version} went through ${count(this.#done)} records in ` +
        `${((now - this.#startedAt) / 1000).toFixed(1)} s (${count(Math.round(this.#rate(now)))} records/s).`,
    );
  }

  #rate(now: number): number {
    return this.#done / Math.max(0.001, (now - this.#startedAt) / 1000);
  }

  /** The step and how far it got, as the connection's application_name (at most 63 bytes are kept). */
  async #show(): Promise<void> {
    await this.client.query({
      text: `SELECT set_config('application_name', $1, true)`,
      values: [`${MIGRATING} ${this.step.version}: ${this.#done}/${this.#total} records`],
    });
  }
}

/** How a migrating connection's application_name starts. */
export const MIGRATING = 'conversation-model-service migration';

const count = (n: number) => n.toLocaleString('en-US');
