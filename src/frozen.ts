/**
 * Stored records are deep-frozen, so a reader can keep one without copying and nobody can change
 * what is stored. A frozen object is taken to be deep-frozen: only this module freezes records,
 * and it freezes the insides first.
 */

/** Freezes a value and everything inside it, in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}

/**
 * A deep-frozen copy of a record, sharing the parts that are frozen already. A changed record is
 * mostly the old one (`{ ...conversation, name }`), so storing it copies only the new parts: the
 * cost of a write follows what changed, not the size of the record. A record handed to a
 * Repository directly must not be shallow-frozen with mutable insides: such parts are kept as given.
 */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = frozenCopy(value[i]);
    return Object.freeze(copy) as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const nested = frozenCopy((value as Record<string, unknown>)[key]);
    // A plain assignment to `__proto__` would set the prototype, not a field.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: nested, enumerable: true, writable: true, configurable: true });
    else copy[key] = nested;
  }
  return Object.freeze(copy) as T;
}
