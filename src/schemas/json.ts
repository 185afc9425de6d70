import { z } from 'zod';
import { LIMITS } from '../limits.js';

/** A JSON value: what free-form fields hold, and all that a JSON file can store. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A free-form object kept as given (`application`, `pipeline`, `metadata`, …), checked to be JSON
 * no deeper than {@link LIMITS.jsonDepth}: no `BigInt`, `Date`, function, `NaN`, class instance or
 * cycle, which would be stored in memory but not survive the JSON file. The output is a fresh
 * copy, so the caller's object is never stored.
 */
export const jsonObjectSchema = z.record(z.string(), z.unknown()).transform((value, ctx) => {
  const copy = copyJson(value, LIMITS.jsonDepth);
  if ('problem' in copy) {
    ctx.addIssue({ code: 'custom', message: copy.problem, path: copy.path, input: value });
    return z.NEVER;
  }
  return copy.value as Record<string, JsonValue>;
});

type Copied = { value: JsonValue } | { problem: string; path: (string | number)[] };

/**
 * Copies a JSON value without recursion (a deep value cannot overflow the stack), or says what in
 * it is not JSON, and where.
 */
function copyJson(root: unknown, maxDepth: number): Copied {
  const out: { value?: JsonValue } = {};
  // Each step: a value, the container and key to put its copy in, its depth and path.
  const stack: {
    value: unknown;
    into: Record<string, unknown> | unknown[];
    key: string | number;
    depth: number;
    path: (string | number)[];
  }[] = [{ value: root, into: out as Record<string, unknown>, key: 'value', depth: 0, path: [] }];
  while (stack.length > 0) {
    const { value, into, key, depth, path } = stack.pop()!;
    const put = (copy: unknown) => {
      if (key === '__proto__') Object.defineProperty(into, key, { value: copy, enumerable: true, writable: true, configurable: true });
      else (into as Record<string | number, unknown>)[key] = copy;
    };
    if (value === null || typeof value === 'string' || typeof value === 'boolean') {
      put(value);
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { problem: `${value} is not a JSON number`, path };
      put(value);
      continue;
    }
    if (typeof value !== 'object') return { problem: `a ${typeof value} is not a JSON value`, path };
    if (depth >= maxDepth) return { problem: `nested deeper than ${maxDepth} levels (or circular)`, path };
    if (Array.isArray(value)) {
      const copy: unknown[] = new Array(value.length);
      put(copy);
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], into: copy, key: i, depth: depth + 1, path: [...path, i] });
      continue;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      return { problem: `a ${prototype?.constructor?.name ?? 'non-plain object'} is not a JSON value`, path };
    }
    const copy: Record<string, unknown> = {};
    put(copy);
    for (const [k, nested] of Object.entries(value)) {
      // JSON has no undefined: such a field is left out, as JSON.stringify would.
      if (nested !== undefined) stack.push({ value: nested, into: copy, key: k, depth: depth + 1, path: [...path, k] });
    }
  }
  return { value: out.value as JsonValue };
}
