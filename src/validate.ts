import type { z } from 'zod';
import { invalidInput } from './errors.js';

/**
 * Parses `value` with `schema`, or throws INVALID_INPUT naming every field at fault. `what` names
 * the input in the message ("SeededModel", "conversation id").
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.map(pathKey), message: issue.message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at "${first.path.join('.')}"` : '';
  throw invalidInput(`Invalid ${what}${where}: ${first?.message ?? 'invalid value'}.`, issues);
}

const pathKey = (key: PropertyKey): string | number => (typeof key === 'symbol' ? String(key) : key);
