import type { z } from 'zod';
import { type InputIssue, ServiceError } from './errors.js';
import { LIMITS } from './limits.js';

/**
 * Parses `value` with `schema`, or throws INVALID_INPUT naming the fields at fault (the first
 * few: an answer stays small however bad the input). A list or text over its limit throws
 * PAYLOAD_TOO_LARGE instead. `what` names the input in the message ("SeededModel", "conversation id").
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw inputError(result.error.issues, what);
}

/** The error for these zod issues of the input `what`; `prefix` is prepended to every path. */
export function inputError(zodIssues: readonly z.core.$ZodIssue[], what: string, prefix: readonly (string | number)[] = []): ServiceError {
  const tooLarge = zodIssues.find((issue) => issue.code === 'too_big' && (issue.origin === 'array' || issue.origin === 'string'));
  const chosen = tooLarge ? [tooLarge] : zodIssues.slice(0, LIMITS.reportedIssues);
  const issues: InputIssue[] = chosen.map((issue) => ({ path: [...prefix, ...issue.path.map(pathKey)], message: issue.message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at "${first.path.join('.')}"` : '';
  const more = zodIssues.length > issues.length && !tooLarge ? ` (and ${zodIssues.length - issues.length} more problems)` : '';
  const message = `Invalid ${what}${where}: ${first?.message ?? 'invalid value'}${more}.`;
  if (tooLarge?.code === 'too_big') {
    return new ServiceError('PAYLOAD_TOO_LARGE', message, { issues, limit: Number(tooLarge.maximum) });
  }
  return new ServiceError('INVALID_INPUT', message, { issues });
}

const pathKey = (key: PropertyKey): string | number => (typeof key === 'symbol' ? String(key) : key);
