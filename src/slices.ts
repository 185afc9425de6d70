import type { z } from 'zod';
import { inputError } from './validate.js';

// Work on one very long conversation (building, storing, rendering and serializing 20,000
// messages) takes a good part of a second. Done in one piece, every other client waits that long.
// Such work is done here a slice at a time: it checks between two small steps whether its slice
// has used its time, and if so gives the event loop a turn (the I/O and timers waiting run) before
// it goes on. Slices are measured in time rather than in items, so they stay short whatever one
// item costs and however busy the machine is.

/** How long one slice of long work may hold the event loop, in milliseconds. */
export const SLICE_MS = 8;

/**
 * Resolves on a later turn of the event loop, once the I/O and timers waiting now have been served.
 * Two immediates: work that runs in an I/O callback (a request's, at first) and waits for one
 * goes on in the same round of the loop, right after the I/O callbacks and before new I/O is polled.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * The clock of a piece of work done in slices: between two small steps, `if (slices.due) await
 * slices.next()`. A slice starts when the clock is made and after each `next()`.
 */
export class Slices {
  #started = performance.now();

  /** Whether the current slice has used its time. */
  get due(): boolean {
    return performance.now() - this.#started >= SLICE_MS;
  }

  /** Gives the event loop a turn, then starts the next slice. */
  async next(): Promise<void> {
    await nextTurn();
    this.#started = performance.now();
  }
}

/**
 * Runs `steps` to its end, a slice at a time: every value the generator yields is a point where it
 * may pause. Its answer is the generator's return value.
 */
export async function runInSlices<T>(steps: Iterator<unknown, T>, slices = new Slices()): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slices.due) await slices.next();
  }
}

/** Runs `steps`, written for {@link runInSlices}, to its end at once. */
export function runAtOnce<T>(steps: Iterator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The pieces joined into one string, taken a slice at a time (the iterable does the work). */
export async function joinInSlices(pieces: Iterable<string>, slices = new Slices()): Promise<string> {
  const taken: string[] = [];
  for (const piece of pieces) {
    taken.push(piece);
    if (slices.due) await slices.next();
  }
  return taken.join('');
}

/**
 * Parses and builds a long list of inputs a slice at a time, so that a create of many messages does
 * not stall every other client. Throws the first few problems (INVALID_INPUT, or
 * PAYLOAD_TOO_LARGE) with paths under `path`. `slices` is the caller's clock when the work before
 * this belongs to the same slice.
 */
export async function parseInSlices<S extends z.ZodType, R>(
  schema: S,
  items: readonly unknown[],
  what: string,
  path: readonly (string | number)[],
  build: (item: z.output<S>, index: number) => R,
  slices = new Slices(),
): Promise<R[]> {
  const built: R[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    if (slices.due) await slices.next();
    const result = schema.safeParse(items[i]);
    if (!result.success) throw inputError(result.error.issues, what, [...path, i]);
    built[i] = build(result.data, i);
  }
  return built;
}
