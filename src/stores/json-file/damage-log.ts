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
  /** Damaged records by id: where (a file's name, shared) and at which byte. */
  readonly #records = new Map<string, { readonly file: string; readonly offset: number }>();
  readonly #lines: { readonly file: string; readonly offset: number }[] = [];
  readonly #logged = new Set<string>();
  #reported = false;
  /** {@link files} as last computed, until something changes (health is asked often, damage changes rarely). */
  #summary: DamagedFile[] | undefined;

  constructor(
    /** The store's folder, to name files in full in the log. */
    private readonly folder: string,
    private readonly logger: { warn(message: string): void },
  ) {}

  /** A damaged record (again or for the first time). */
  record(damage: DamagedRecord): void {
    const known = this.#records.get(damage.id);
    if (known?.file === damage.file && known.offset === damage.offset) return;
    this.#records.set(damage.id, { file: this.#name(damage.file), offset: damage.offset });
    this.#changed(damage.file);
  }

  /** One string per file name, however many damaged records name it. */
  readonly #names = new Map<string, string>();
  #name(file: string): string {
    let name = this.#names.get(file);
    if (name === undefined) this.#names.set(file, (name = file));
    return name;
  }

  /** A line of a file read at open that is damaged. */
  line(file: string, offset: number): void {
    this.#lines.push({ file: this.#name(file), offset });
    this.#changed(file);
  }

  /** The record was written again or deleted: its damage is gone from what the store holds. */
  forget(id: string): void {
    if (this.#records.delete(id)) this.#summary = undefined;
  }

  /** Logs a line per damaged file found so far; from now on, a file is logged when first found damaged. */
  report(): void {
    this.#reported = true;
    for (const { file } of this.files()) if (!this.#logged.has(file)) this.#log(file);
  }

  /** The damaged files, by name. */
  files(): DamagedFile[] {
    if (this.#summary) return this.#summary;
    const byFile = new Map<string, { offsets: Set<number>; first: number; ids: string[]; records: number }>();
    const add = (file: string, offset: number) => {
      let entry = byFile.get(file);
      if (!entry) byFile.set(file, (entry = { offsets: new Set(), first: offset, ids: [], records: 0 }));
      entry.offsets.add(offset);
      if (offset < entry.first) entry.first = offset;
      return entry;
    };
    for (const line of this.#lines) add(line.file, line.offset);
    for (const [id, { file, offset }] of this.#records) {
      const entry = add(file, offset);
      entry.records++;
      if (entry.ids.length < NAMED_IDS) entry.ids.push(id);
    }
    this.#summary = [...byFile]
      .map(([file, entry]) => ({ file, places: entry.offsets.size, firstOffset: entry.first, records: entry.records, ids: entry.ids }))
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return this.#summary;
  }

  #changed(file: string): void {
    this.#summary = undefined;
    if (this.#reported && !this.#logged.has(file)) this.#log(file);
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
