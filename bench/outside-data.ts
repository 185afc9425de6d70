/**
 * Data some benchmarks read from outside the repository, by path, never copied in (their licences,
 * or their size, keep them out): the developer chats (bench:search, bench:attacks, the known-item
 * search) and DialogSum (bench:quality --file). A clone alone has neither. A benchmark that needs
 * one checks for it first and, when it is absent, skips what needs it with one line saying which
 * file it looked for and what to provide, instead of failing with ENOENT.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository's folder: the data sits beside it, in `../shared/data`, where the project keeps it. */
const REPOSITORY = path.resolve(import.meta.dirname, '..');

/** A data file a benchmark reads from outside the repository. */
export interface OutsideData {
  /** What it is, for the line that says it is missing. */
  readonly what: string;
  /** The file the benchmark reads. */
  readonly file: string;
  /** How to name another file. */
  readonly override: string;
  /** Where it comes from, and its format. */
  readonly source: string;
}

/**
 * The developer chats: `$SEARCH_DEVCHATS`, else `../shared/data/devchats/dev.jsonl` beside the
 * repository (relative paths from the current folder).
 */
export function devChats(env: NodeJS.ProcessEnv = process.env): OutsideData {
  return {
    what: 'developer chats',
    file: env.SEARCH_DEVCHATS ? path.resolve(env.SEARCH_DEVCHATS) : path.resolve(REPOSITORY, '../shared/data/devchats/dev.jsonl'),
    override: 'SEARCH_DEVCHATS=<file> (JSONL, in the format bench/quality/devchats.ts reads)',
    source:
      "the project's developer chats (111 chats with coding assistants, from public MIT and CC0 repositories), kept beside the repository in ../shared/data/devchats/dev.jsonl",
  };
}

/** DialogSum's dialogues, at `file` (bench:quality --file). */
export function dialogSum(file: string): OutsideData {
  return {
    what: 'DialogSum dialogues',
    file: path.resolve(file),
    override: '--file <dialogues.jsonl>',
    source:
      'DialogSum_Data/dialogsum.dev.jsonl of github.com/cylnlp/dialogsum (CC BY-NC-SA 4.0), which the project keeps beside the repository in ../shared/data/dialogsum/dev.jsonl',
  };
}

/**
 * One line saying that `part` (when named) is skipped because `data` is absent, which file was
 * looked for, and what to provide; undefined when the file is there.
 */
export function skippedForData(part: string | undefined, data: OutsideData): string | undefined {
  if (existsSync(data.file)) return undefined;
  const line = `skipped, no ${data.what} at ${data.file}. Provide ${data.source}; or name another file with ${data.override}.`;
  return part ? `${part}: ${line}` : line;
}
