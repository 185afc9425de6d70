import { ServiceError } from './errors.js';

/**
 * Stored records are deep-frozen, so a reader can keep one without copying and nobody can change
 * what is stored. A frozen object is taken to be deep-frozen: only this module freezes records,
 * and it freezes the insides first.
 */

/** Freezes a value and everything inside it, in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    // Loops rather than Object.values: records read from disk are frozen on every read, and an
    // array of values per object is garbage the collector then has to find.
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else for (const key in value) if (Object.hasOwn(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/**
 * A deep-frozen copy of a record, sharing the parts that are frozen already. A changed record is
 * mostly the old one (`{ ...conversation, name }`), so storing it copies only the new parts: the
 * cost of a write follows what changed, not the size of the record. A record handed to a
 * Repository directly must not be shallow-frozen with mutable insides: such parts are kept as given.
 *
 * Only JSON can be stored (a JSON file must hold the same as memory): a `BigInt`, a `Date`, a
 * function, `NaN`, a class instance or a cycle is refused with INVALID_INPUT, naming where it is.
 */
export function frozenCopy<T>(value: T): T {
  return copyFrozen(value, undefined, 0);
}

/**
 * Where a value is in the record, as a chain from the innermost key outward: made only into the
 * path of an error, so that copying a list of 20,000 ids does not build 20,000 paths.
 */
interface Where {
  readonly key: string | number;
  readonly parent: Where | undefined;
}

function copyFrozen<T>(value: T, where: Where | undefined, depth: number): T {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw notJson(where, `${value} is not a JSON number`);
    return value;
  }
  if (typeof value !== 'object') {
    // Left out of objects, as JSON does; anywhere else it is not a value.
    if (value === undefined) return value;
    throw notJson(where, `a ${typeof value} is not a JSON value`);
  }
  if (Object.isFrozen(value)) return value;
  if (depth > MAX_DEPTH) throw notJson(where, `nested deeper than ${MAX_DEPTH} levels (or circular)`);
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // A list of ids (20,000 of them in a long conversation) is copied without a step per id.
      copy[i] = typeof item === 'string' ? item : copyFrozen(item, { key: i, parent: where }, depth + 1);
    }
    return Object.freeze(copy) as T;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null)
    throw notJson(where, `a ${prototype?.constructor?.name ?? 'non-plain object'} is not a JSON value`);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const nested = copyFrozen((value as Record<string, unknown>)[key], { key, parent: where }, depth + 1);
    if (nested === undefined) continue;
    // A plain assignment to `__proto__` would set the prototype, not a field.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: nested, enumerable: true, writable: true, configurable: true });
    else copy[key] = nested;
  }
  return Object.freeze(copy) as T;
}

/** Records nest a few levels, and free-form JSON at most 32 more (LIMITS.jsonDepth). */
const MAX_DEPTH = 64;

const notJson = (where: Where | undefined, message: string) => {
  const path: (string | number)[] = [];
  for (let at = where; at; at = at.parent) path.unshift(at.key);
  return new ServiceError('INVALID_INPUT', `Only JSON values can be stored: at "${path.join('.')}", ${message}.`, {
    issues: [{ path, message }],
  });
};
