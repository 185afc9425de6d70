import { type CollectionName, KINDS } from '../kinds/index.js';
import { FIELD } from '../kinds/kind.js';

/**
 * What is wrong with a stored record of `collection`, or undefined when it has every field the
 * service relies on (its kind's `required`, src/kinds/). Checked when a store opens, so a damaged
 * file stops the start with a clear error instead of failing later reads.
 */
export function recordProblem(collection: CollectionName, record: unknown): string | undefined {
  if (!FIELD.object[0](record)) return `a ${collection} record must be an object`;
  for (const [field, [check, what]] of Object.entries(KINDS[collection].required)) {
    if (!check((record as Record<string, unknown>)[field])) {
      const id = (record as { id?: unknown }).id;
      return `the ${collection} record ${typeof id === 'string' ? `"${id}"` : '(without an id)'} lacks "${field}" (${what})`;
    }
  }
  return undefined;
}
