import type { ServiceHealth } from '../../src/index.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The text `GET /.well-known/health` answers (200, text/plain, as the official client's
 * WellKnownApi reads it): `ok` while nothing stored is known to be damaged. Once something is, the
 * service still answers, so the text still starts with `ok`, then says so and gives one line per
 * damaged file: its name, how many places are damaged and where the first is, and how many
 * records cannot be read. Record ids are left to `service.health()`.
 */
export function healthText(health: ServiceHealth): string {
  const damaged = health.store?.damaged ?? [];
  if (damaged.length === 0) return 'ok';
  const lines = damaged.map(
    (file) =>
      `${file.file}: ${plural(file.places, 'damaged place')}, the first at byte ${file.firstOffset}` +
      (file.records > 0 ? `; ${plural(file.records, 'record')} cannot be read` : ''),
  );
  return [
    'ok, but stored data is damaged: reading a damaged record answers DATA_DAMAGED (503); lists and searches leave it out and name it in `skipped`. See the README on recovery.',
    ...lines,
  ].join('\n');
}
