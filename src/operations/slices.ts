import type { z } from 'zod';
import { inputError } from '../validate.js';

/** Items handled between two yields to the event loop: a few milliseconds of work. */
const SLICE = 500;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Parses and builds a long list of inputs a slice at a time, yielding to the event loop between
 * slices, so that a create of many messages does not stall every other client. Throws the first
 * few problems (INVALID_INPUT, or PAYLOAD_TOO_LARGE) with paths under `path`.
 */
export async function parseInSlices<S extends z.ZodType, R>(
  schema: S,
  items: readonly unknown[],
  what: string,
  path: readonly (string | number)[],
  build: (item: z.output<S>, index: number) => R,
): Promise<R[]> {
  const built: R[] = new Array(items.length);
  for (let start = 0; start < items.length; start += SLICE) {
    if (start > 0) await nextTurn();
    const end = Math.min(items.length, start + SLICE);
    for (let i = start; i < end; i++) {
      const result = schema.safeParse(items[i]);
      if (!result.success) throw inputError(result.error.issues, what, [...path, i]);
      built[i] = build(result.data, i);
    }
  }
  return built;
}
