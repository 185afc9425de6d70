import type { Repository, StoreHealth } from './ports.js';

/** What `service.health()` answers. */
export interface ServiceHealth {
  /**
   * `ok` while nothing stored is known to be damaged; `damaged` once a record or a line of a file
   * was found damaged (the service still answers: reads of the damaged records answer
   * DATA_DAMAGED, lists and searches leave them out and name them).
   */
  readonly status: 'ok' | 'damaged';
  /** The store's own check of what it holds, when it keeps one (the JSON-file store does). */
  readonly store?: StoreHealth;
}

/** The health of a service over `store`, from what the store knows now (no I/O). */
export function healthOf(store: Repository): ServiceHealth {
  const health = store.health?.();
  if (!health) return { status: 'ok' };
  return { status: health.damaged.length > 0 ? 'damaged' : 'ok', store: health };
}
