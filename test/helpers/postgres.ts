/**
 * A throw-away PostgreSQL server for a test file (test/helpers/postgres-server.ts), started before
 * its tests and stopped and removed when the file ends (also when its tests fail, and at the
 * process's exit if the file's hooks never ran). Each test takes a schema of its own
 * (`freshSchema`), which is cheap.
 *
 * Without PostgreSQL's binaries (`.ci/run` installs Debian's `postgresql` when missing) the tests
 * that need it are skipped, and the reason is printed.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { findPostgres, type PostgresServer, type RunningServer, startPostgres } from './postgres-server.js';
import { needs } from './requirements.js';

export type { PostgresServer } from './postgres-server.js';

/**
 * Registers a `describe` block whose tests run against one server started for the file (in
 * `beforeAll`) and stopped after it; `server()` answers it inside the tests. Without PostgreSQL the
 * block is skipped, and why is printed.
 */
export function describeWithPostgres(name: string, body: (server: () => PostgresServer) => void): void {
  const found = findPostgres();
  if ('missing' in found) {
    // Skipped with its reason, which the end of the run lists (test/skip-reasons-reporter.ts).
    describe(name, needs(`${found.missing} (.ci/run installs Debian's postgresql)`), () => body(() => notStarted()));
    return;
  }
  describe(name, () => {
    let running: RunningServer | undefined;
    beforeAll(async () => {
      running = await startPostgres(found.bin);
    }, 60_000);
    afterAll(() => running?.stop());
    body(() => running?.server ?? notStarted());
  });
}

const notStarted = (): never => {
  throw new Error('The PostgreSQL server of this file did not start (see beforeAll).');
};

let schemas = 0;

/** A schema name no other test of this process has used: each test's tables start empty. */
export function freshSchema(prefix = 'test'): string {
  return `${prefix}_${process.pid}_${++schemas}`;
}
