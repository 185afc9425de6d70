import type { DamagedRecord } from '../../errors.js';
import type { DamagedFile } from '../../ports.js';

/** Ids a {@link DamagedFile} names at most (its `records` says how many there are). */
const NAMED_IDS = 20;

/**
 * The damage the store has found in its files: damaged records by id (found by a read, by the
 * check that runs after the start, or at open where a hint line lost them) and damaged lines of
 * the files read at open. A record written again or deleted is no longer damaged: its entry goes.
 * Logs one line per damaged file: at {@link report} for what was found until then (the end of the
 * start-up check), then as soon as a file is first found damaged.
 */
export class DamageLog {
  readonly #records = new Map<string, DamagedRecord>();
  readonly #lines: { readonly file: string; readonly offset: number; readonly message: string }[] = [];
  readonly #logged = new Set<string>();
  #reported = false;

  constructor(
    /** The store's folder, to name files in full in the log. */
    private readonly folder: string,
    private readonly logger: { warn(message: string): void },
  ) {}

  /** A damaged record (again or for the first time). */
  record(damage: DamagedRecord): void {
    this.#records.set(damage.id, damage);
    if (this.#reported && !this.#logged.has(damage.file)) this.#log(damage.file);
  }

  /** A line of a file read at open that is damaged. */
  line(file: string, offset: number, message: string): void {
    this.#lines.push({ file, offset, message });
    if (this.#reported && !this.#logged.has(file)) this.#log(file);
  }

  /** The record was written again or deleted: its damage is gone from what the store holds. */
  forget(id: string): void {
    this.#records.delete(id);
  }

  /** Whether the record is known to be damaged. */
  has(id: string): boolean {
    return this.#records.has(id);
  }

  /** Logs a line per damaged file found so far; from now on, a file is logged when first found damaged. */
  report(): void {
    this.#reported = true;
    for (const { file } of this.files()) if (!this.#logged.has(file)) this.#log(file);
  }

  /** The damaged files, by name. */
  files(): DamagedFile[] {
    const byFile = new Map<string, { offsets: Set<number>; ids: string[]; records: number; lines: number }>();
    const of = (file: string) => {
      let entry = byFile.get(file);
      if (!entry) byFile.set(file, (entry = { offsets: new Set(), ids: [], records: 0, lines: 0 }));
      return entry;
    };
    for (const line of this.#lines) {
      const entry = of(line.file);
      entry.offsets.add(line.offset);
      entry.lines++;
    }
    for (const damage of this.#records.values()) {
      const entry = of(damage.file);
      entry.offsets.add(damage.offset);
      entry.records++;
      if (entry.ids.length < NAMED_IDS) entry.ids.push(damage.id);
    }
    return [...byFile]
      .map(([file, entry]) => ({
        file,
        places: entry.offsets.size,
        firstOffset: Math.min(...entry.offsets),
        records: entry.records,
        ids: entry.ids,
      }))
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }

  #log(file: string): void {
    this.#logged.add(file);
    const found = this.files().find((entry) => entry.file === file);
    if (!found) return;
    const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
    const records =
      found.records > 0
        ? `; ${plural(found.records, 'record')} cannot be read (${found.ids.join(', ')}${found.records > found.ids.length ? ', …' : ''})`
        : '';
    this.logger.warn(
      `Damaged data in ${this.folder}/${file}: ${plural(found.places, 'damaged place')}, the first at byte ${found.firstOffset}${records}. ` +
        'Reads of a damaged record answer DATA_DAMAGED; lists and searches leave it out and name it in `skipped`. See the README on recovery.',
    );
  }
}
