/**
 * Keeps compactions and backups of one store apart. A compaction rotates the journal, writes a new
 * snapshot, hint and message file, and deletes the files the snapshot before it needed; a backup
 * copies those files as they were at one instant. So while a backup holds the gate no compaction
 * starts (one asked for waits, and runs once the last hold is released), and a hold is granted
 * only once a running compaction has finished. Writes go on meanwhile: only the folding of the
 * journal waits, so the journal grows past its usual size for the length of the copy.
 */
export class CompactionGate {
  #running: Promise<void> | undefined;
  #holds = 0;
  /** Settles when the last hold is released: what waiting compactions (and close) wait for. */
  #released: Promise<void> | undefined;
  #release: (() => void) | undefined;

  /** Runs `fold` once no hold is on (at once when none is); settles when it has run. */
  async run(fold: () => Promise<void>): Promise<void> {
    while (this.#holds > 0) await this.#released;
    // Checked and set in one turn: a hold asked for from now on waits for this compaction.
    const running = fold();
    this.#running = running;
    try {
      await running;
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * Waits for a running compaction to finish, then holds off any other until the answered
   * function is called (once; a second call does nothing).
   */
  async hold(): Promise<() => void> {
    while (this.#running) await this.#running.catch(() => undefined);
    if (this.#holds++ === 0) this.#released = new Promise((resolve) => (this.#release = resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds === 0) this.#release!();
    };
  }

  /** Settles once no hold is on: a store closing waits for the backups under way. */
  async idle(): Promise<void> {
    while (this.#holds > 0) await this.#released;
  }
}
