import type { z } from 'zod';
import { type InputIssue, ServiceError } from './errors.js';
import { LIMITS } from './limits.js';
import { UNKNOWN_FIELD } from './schemas/common.js';

/**
 * Parses `value` with `schema`, or throws INVALID_INPUT naming the fields at fault (the first
 * few: an answer stays small however bad the input). A key the input object does not have is
 * named by its own path, `unknown field`. A list or text over its limit throws PAYLOAD_TOO_LARGE
 * instead. `what` names the input in the message ("SeededModel", "conversation id").
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw inputError(result.error.issues, what);
}

/** The error for these zod issues of the input `what`; `prefix` is prepended to every path. */
export function inputError(zodIssues: readonly z.core.$ZodIssue[], what: string, prefix: readonly (string | number)[] = []): ServiceError {
  const tooLarge = zodIssues.find((issue) => issue.code === 'too_big' && (issue.origin === 'array' || issue.origin === 'string'));
  const all = (tooLarge ? [tooLarge] : zodIssues).flatMap(describe);
  const issues: InputIssue[] = all
    .slice(0, tooLarge ? 1 : LIMITS.reportedIssues)
    .map(({ path, message }) => ({ path: [...prefix, ...path], message }));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at "${first.path.join('.')}"` : '';
  const more = all.length > issues.length && !tooLarge ? ` (and ${all.length - issues.length} more problems)` : '';
  const message = `Invalid ${what}${where}: ${first?.message ?? 'invalid value'}${more}.`;
  if (tooLarge?.code === 'too_big') {
    return new ServiceError('PAYLOAD_TOO_LARGE', message, { issues, limit: Number(tooLarge.maximum) });
  }
  return new ServiceError('INVALID_INPUT', message, { issues });
}

/** A zod issue as the issues the service reports: one per unknown key, each named by its own path. */
function describe(issue: z.core.$ZodIssue): InputIssue[] {
  const path = issue.path.map(pathKey);
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key], message: UNKNOWN_FIELD }));
  return [{ path, message: issue.message }];
}

const pathKey = (key: PropertyKey): string | number => (typeof key === 'symbol' ? String(key) : key);
