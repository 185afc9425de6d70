import type { StoreHealth } from '../../ports.js';
import { Slices } from '../../slices.js';
import type { MessageStore } from './message-store.js';

/** Messages checked between two looks at the clock. */
const BATCH = 256;

/**
 * The check that runs after the store opens: every message's bytes read and held to their
 * checksum, in the background a slice at a time (see {@link Slices}), so the store answers
 * meanwhile. What it finds goes to the store's damage log, which logs one line per damaged file
 * once the check is done; reads meanwhile meet the same damage and answer DATA_DAMAGED.
 * Messages are taken in keydir order, which is the order of the files they were loaded from.
 */
export class StoreCheck {
  #state: StoreHealth['check']['state'] = 'running';
  #checked = 0;
  readonly #total: number;
  #stopping = false;
  readonly #done: Promise<void>;

  constructor(
    private readonly messages: MessageStore,
    private readonly logger: { warn(message: string): void },
  ) {
    this.#total = messages.index.size;
    this.#done = this.#run();
  }

  /** How far it got: the `check` of the store's health. */
  get progress(): StoreHealth['check'] {
    return { state: this.#state, checked: Math.min(this.#checked, this.#total), total: this.#total };
  }

  /** Stops it (the store is closing) and settles once it no longer reads. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#done;
  }

  async #run(): Promise<void> {
    const slices = new Slices();
    try {
      let slot = 0;
      do {
        // A turn for the others between slices (and first of all: the open answers before it starts).
        await slices.next();
        do {
          if (this.#stopping) {
            this.#state = 'stopped';
            return;
          }
          const { checked, next } = this.messages.checkSlice(slot, BATCH);
          this.#checked += checked;
          slot = next;
        } while (slot !== 0 && !slices.due);
      } while (slot !== 0);
      this.#state = 'done';
      this.messages.damage.report();
    } catch (error) {
      this.#state = 'stopped';
      this.logger.warn(`The check of the stored messages stopped: ${(error as Error).message}`);
    }
  }
}
