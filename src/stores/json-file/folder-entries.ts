import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describeEntry, notOwn, removeEntry, type Warn } from '../../files/own-files.js';

/** The store's data, beside the snapshot `db.json`: `''` (itself), `.bak`, and its journal, message and hint files. */
const DATA = /^(|\.bak|\.(journal|messages|hint)-\d+)$/;
/** Files the store derives from its data (the search index), made again when missing. */
const DERIVED = /^\.search$/;
/** Its lock, which the folder lock checks in its own way. */
const LOCK = /^\.lock(\.takeover)?$/;

/**
 * Looks at the entries of the data folder that are the store's (`<file>` and `<file>.*`) before it
 * opens, without following any: its data must be regular files, or the start is refused with an
 * error naming the entry (a link planted in the place of the journal would have the next write go
 * wherever it points); temporary files (`.tmp`, left by a write cut short, or planted) and derived
 * files that are not regular files are removed, one log line each. Files opened later are opened
 * without following links too (src/files/own-files.ts): this check makes the refusal early and whole.
 */
export async function checkFolderEntries(file: string, warn: Warn): Promise<void> {
  const folder = path.dirname(file);
  const base = path.basename(file);
  for (const name of await readdir(folder)) {
    if (name !== base && !name.startsWith(`${base}.`)) continue;
    const suffix = name.slice(base.length);
    const entry = path.join(folder, name);
    if (LOCK.test(suffix)) continue;
    if (suffix.endsWith('.tmp')) {
      await removeEntry(entry, warn);
      continue;
    }
    const stats = await lstat(entry).catch(() => undefined);
    if (!stats || stats.isFile()) continue;
    if (DATA.test(suffix)) throw notOwn(entry, await describeEntry(entry));
    // A folder is left as it is: the index is then kept in memory alone, and its save says why.
    if (DERIVED.test(suffix) && !stats.isDirectory()) await removeEntry(entry, warn);
  }
}
