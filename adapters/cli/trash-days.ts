import { MAX_TRASH_DAYS } from '../../src/operations/trash-record.js';
import { UsageError } from './failures.js';

/**
 * `--trash-days` (or TRASH_DAYS), checked as the command reads it: days from 0 to a century, a
 * fraction allowed (`0.5` is twelve hours). `source` names where it came from, for the message.
 */
export function parseTrashDays(text: string, source: string): { keepDays: number } {
  const days = /^\d{1,6}(\.\d{1,6})?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(days >= 0 && days <= MAX_TRASH_DAYS)) {
    throw new UsageError(`${source} must be a number of days from 0 to ${MAX_TRASH_DAYS}, not "${text}"`);
  }
  return { keepDays: days };
}
