/**
 * What bench/postgres.ts and its children (bench/postgres-child.ts) share: the env knobs (documented
 * in bench/postgres.ts) and how a child is told which store to open.
 */
import { findPostgres } from '../test/helpers/postgres-server.js';

const list = (value: string) => value.split(',').filter(Boolean).map(Number);
const env = process.env;

export const OPTIONS = {
  conversations: Number(env.BENCH_PG_CONVERSATIONS ?? 10_000),
  /** Each timed load: the concurrent writes, and each throughput run. */
  loadMs: Number(env.BENCH_PG_SECONDS ?? 5) * 1000,
  writers: Number(env.BENCH_PG_WRITERS ?? 50),
  /** GET /conversation/{id} per store, one at a time (at most; and for at most twice BENCH_PG_SECONDS). */
  gets: Number(env.BENCH_PG_GETS ?? 1000),
  /** Search queries per store, each sent to both search routes. */
  queries: Number(env.BENCH_PG_QUERIES ?? 150),
  checkpoints: list(env.BENCH_PG_MESSAGES ?? '100,20000').sort((a, b) => a - b),
  appendRepeats: Number(env.BENCH_PG_APPEND_REPEATS ?? 2),
  instances: list(env.BENCH_PG_INSTANCES ?? '1,2,4'),
  /** Connections of the throughput load, in all, spread over the instances. */
  connections: Number(env.BENCH_PG_CONNECTIONS ?? 32),
  skip: new Set((env.BENCH_PG_SKIP ?? '').split(',').filter(Boolean)),
  /** The folder of PostgreSQL's binaries; default the newest of /usr/lib/postgresql/<version>/bin. */
  bin: env.BENCH_PG_BIN,
};

/** Appends timed before each checkpoint. */
export const WINDOW = 100;
/** Upper bound of any loop's count, whatever its time limit. */
export const MAX_OPS = 1_000_000;

/** Where a child's store is: a JSON-file store's folder, or a schema of a PostgreSQL database. */
export type StoreArgs = { readonly dir: string } | { readonly url: string; readonly schema: string };

/** The command-line arguments that name `store` to a child. */
export const storeArgs = (store: StoreArgs): string[] =>
  'dir' in store ? ['--dir', store.dir] : ['--url', store.url, '--schema', store.schema];

/** The store's name in the tables. */
export const storeLabel = (store: StoreArgs): string => ('dir' in store ? 'JSON file' : 'PostgreSQL');

/**
 * Each part's duration at the defaults on the project's 2-core machine, in seconds: the estimates
 * bench/postgres.ts prints in its plan, and with its start, `npm run bench`'s estimate of it. From
 * a run on 2026-11-28 while other work kept the load average at 6–9 (4 min 35 s; 3 min 18 s at
 * 2–6, the run docs/benchmarks.md quotes).
 */
export const PART_SECONDS = { stores: 82, reads: 81, writes: 25, append: 33, instances: 40, recall: 14 } as const;
export const POSTGRES_SECONDS = Object.values(PART_SECONDS).reduce((sum, seconds) => sum + seconds, 5);
/** The environment variables that change its duration. */
export const POSTGRES_KNOBS = [
  'BENCH_PG_CONVERSATIONS',
  'BENCH_PG_SECONDS',
  'BENCH_PG_GETS',
  'BENCH_PG_QUERIES',
  'BENCH_PG_WRITERS',
  'BENCH_PG_MESSAGES',
  'BENCH_PG_APPEND_REPEATS',
  'BENCH_PG_INSTANCES',
  'BENCH_PG_SKIP',
];

/** One line saying why the PostgreSQL benchmark cannot run here and what to provide, or undefined when it can. */
export function postgresMissing(): string | undefined {
  const found = findPostgres(OPTIONS.bin);
  return 'missing' in found
    ? `skipped, ${found.missing}. Install PostgreSQL (apt-get install postgresql), or name its binaries' folder with BENCH_PG_BIN=<folder>.`
    : undefined;
}
