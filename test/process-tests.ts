/**
 * The test files of the `process` project (vitest.config.ts): those that start another process —
 * a child process (the command, a GGUF runner, npm, tsc, mount, a PostgreSQL server, or one only
 * for its pid) or a browser. Every other test file is a `unit` test: it runs in its vitest worker alone (loopback
 * servers it starts in that process included), so `npm run test:unit` needs no npm, no Chromium,
 * no root, and gives its answer in well under a minute.
 *
 * test/suite-layout.test.ts fails when a test file that imports node:child_process, Playwright, the
 * serve-process helper or the llama-cpp runtime is missing from this list, or a name here matches
 * no file.
 */
export const PROCESS_TESTS = [
  'test/package.test.ts', // npm pack, npm install, tsc, node in a fresh project
  'test/cli.test.ts', // the command
  'test/cli/usage.test.ts', // the command, run with --help and wrong command lines
  'test/cli/models-commands.test.ts', // the command's serve, and its model commands against it
  'test/cli/search-command.test.ts', // the command's serve, and its search against it
  'test/cli/transfer-command.test.ts', // the command's export and import
  'test/cli/backup-command.test.ts', // the command's serve, and its backup against it
  'test/cli/serve-command.test.ts', // the command's serve, from a folder of its own
  'test/start.test.ts', // npm start
  'test/entry-points.test.ts', // a node process per import traced
  'test/examples.test.ts', // the examples through tsx
  'test/conformance/official-client.test.ts', // the example server, through the official client
  'test/docs/docs-page.test.ts', // Chromium
  'test/docs/snippets.test.ts', // tsup, tsc, tsx and vitest over the snippets of the README and docs/
  'test/security/browser.test.ts', // Chromium
  'test/models/downloads-clients.test.ts', // the command's `models pull`
  'test/models/downloads-full-disk.test.ts', // mount a tmpfs
  'test/storage/full-disk.test.ts', // mount a tmpfs
  'test/storage/crash.test.ts', // kill -9 a writer process, 20 times
  'test/storage/durability.test.ts', // a process that died, for its pid
  'test/storage/lock-identity.test.ts', // processes whose pids a lock names
  'test/storage/lock-race.test.ts', // a process that died, for its pid
  'test/storage/planted-entries.test.ts', // mkfifo
  'test/runtimes/llama-cpp.test.ts', // GGUF runner processes
  'test/runtimes/llama-failures.test.ts', // GGUF runner processes that abort or are killed
  'test/runtimes/llama-failures-process.test.ts', // the command's serve, with a GGUF runner
  'test/runtimes/openai-bounds-process.test.ts', // the command's serve
  'test/bench/without-outside-data.test.ts', // npm run bench, bench:attacks, bench:quality, bench:postgres
  'test/contracts/postgres.test.ts', // a PostgreSQL server (test/helpers/postgres.ts)
  'test/storage/postgres.test.ts', // a PostgreSQL server
  'test/storage/postgres-round-trips.test.ts', // a PostgreSQL server
  'test/storage/postgres-links.test.ts', // a PostgreSQL server
  'test/storage/postgres-feed.test.ts', // a PostgreSQL server, two stores on it
  'test/storage/postgres-backfill.test.ts', // a PostgreSQL server, two stores migrating one schema at once
  'test/storage/postgres-message-updates.test.ts', // a PostgreSQL server, two stores on it
  'test/cli/postgres-store.test.ts', // the command's serve and store copy, on a PostgreSQL server
  'test/conformance/postgres-instances.test.ts', // two of the command's serve on a PostgreSQL server, one killed
  'test/search/postgres-search.test.ts', // a PostgreSQL server, the store's own search against the embedded index
  'test/search/postgres-search-long-lists.test.ts', // a PostgreSQL server, long lists against the embedded index
  'test/streams/postgres-streams.test.ts', // a PostgreSQL server, two services on it
];
