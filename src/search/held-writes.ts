import type { RecordChange } from '../ports.js';

/**
 * Committed writes on their way to an index that cannot always take them at once (it is still
 * being read, or a search that has paused is reading it): applied at once while nothing holds
 * them, else kept, in commit order, and applied when the last hold is released.
 */
export class HeldWrites {
  #held: (readonly RecordChange[])[] = [];
  #holds = 0;
  /** A held write that failed to apply: thrown by the next {@link apply}, to the writer that can say so. */
  #failure: { error: unknown } | undefined;

  constructor(private readonly applyNow: (changes: readonly RecordChange[]) => void) {}

  /**
   * Applies `changes` now, or keeps them until every hold is released. Throws what a held write
   * failed with since the last call, if one did (once these changes are applied or kept).
   */
  apply(changes: readonly RecordChange[]): void {
    if (this.#holds > 0) this.#held.push(changes);
    else this.applyNow(changes);
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure) throw failure.error;
  }

  /** Holds writes until the answered function is called (once); then, if no other hold is left, applies those held, in order. */
  hold(): () => void {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds > 0) return;
      const held = this.#held;
      this.#held = [];
      // Released where no writer waits (a search's end): a failure is the next writer's to report.
      for (const changes of held) {
        try {
          this.applyNow(changes);
        } catch (error) {
          this.#failure ??= { error };
        }
      }
    };
  }
}
