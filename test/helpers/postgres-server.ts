/**
 * A throw-away PostgreSQL server: Debian's PostgreSQL (`/usr/lib/postgresql/<n>/bin`), `initdb` in a
 * fresh short folder under /tmp, listening on 127.0.0.1 on a free port, stopped and removed by
 * `stop()` (and at the process's exit if nothing called it). What the tests (test/helpers/postgres.ts)
 * and the PostgreSQL benchmark (bench/postgres.ts) share: no vitest here.
 *
 * The folder is not under the test run's `$TMPDIR`: that one is mode 0700 and owned by whoever runs
 * the tests, so the `postgres` user (the server refuses to run as root) could not enter it. As root,
 * the folder is given to `postgres` and every binary runs through `runuser -u postgres --`.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { unusedPort } from './unused-port.js';

/** A running server: where to reach it. */
export interface PostgresServer {
  readonly port: number;
  /** A connection string to its `postgres` database, as its superuser `postgres` (trust auth on loopback). */
  readonly url: string;
}

/** A server this process started, and how to stop it. */
export interface RunningServer {
  readonly server: PostgresServer;
  /** The folder of its data and log, removed by `stop`. */
  readonly folder: string;
  /** Stops the server at once and removes its folder (synchronous, so that an exit handler can call it). */
  stop(): void;
}

/**
 * The folder of PostgreSQL's binaries, or why there is none to use: `bin` when given (a folder
 * holding `initdb` and `pg_ctl`, say another install's), else the newest Debian install.
 */
export function findPostgres(bin?: string): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions =
    bin === undefined && existsSync(root)
      ? readdirSync(root)
          .filter((name) => /^\d+$/.test(name) && existsSync(path.join(root, name, 'bin', 'initdb')))
          .sort((a, b) => Number(b) - Number(a))
      : [];
  if (bin !== undefined && !existsSync(path.join(bin, 'initdb'))) {
    return { missing: `PostgreSQL's binaries are not in ${bin} (no initdb there)` };
  }
  if (bin === undefined && versions.length === 0) {
    return { missing: `PostgreSQL's binaries are not installed (no ${root}/<version>/bin/initdb; apt-get install postgresql)` };
  }
  if (isRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return { missing: 'running as root, and there is no `postgres` user to run the server as (PostgreSQL refuses root)' };
  }
  return { bin: bin ?? path.join(root, versions[0]!, 'bin') };
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Starts a server in a new folder; tries another port if the chosen one was taken meanwhile.
 * `settings` are more `-c name=value` options of the server (a benchmark's), after the defaults.
 */
export async function startPostgres(bin: string, settings: readonly string[] = []): Promise<RunningServer> {
  const folder = mkdtempSync('/tmp/cms-pg-');
  const data = path.join(folder, 'data');
  const log = path.join(folder, 'log');
  // Stops the server and removes its folder even when the caller never stops it (a crash).
  const cleanUp = () => {
    if (existsSync(path.join(data, 'postmaster.pid'))) run(bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
    rmSync(folder, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  const stop = () => {
    process.off('exit', cleanUp);
    cleanUp();
  };
  try {
    if (isRoot()) chownSync(folder, uidOf('postgres'), gidOf('postgres'));
    // --no-sync: a throw-away cluster need not reach the disk before it starts; the server itself runs with fsync on.
    check(
      run(bin, 'initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions']),
    );
    for (let attempt = 1; ; attempt++) {
      const port = await unusedPort();
      const options = [
        `-p ${port}`,
        '-c listen_addresses=127.0.0.1',
        "-c unix_socket_directories=''",
        '-c fsync=on',
        '-c max_connections=200',
        '-c shared_buffers=32MB',
        ...settings.map((setting) => `-c ${setting}`),
      ].join(' ');
      const started = run(bin, 'pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '30', '-o', options]);
      if (started.status === 0) return { server: { port, url: `postgres://postgres@127.0.0.1:${port}/postgres` }, folder, stop };
      const why = existsSync(log) ? readFileSync(log, 'utf8') : '';
      if (attempt >= 3 || !/could not bind|Address already in use/.test(why)) check(started, why);
    }
  } catch (error) {
    stop();
    throw error;
  }
}

/** Runs one of PostgreSQL's binaries, as `postgres` when this process is root. */
function run(bin: string, name: string, args: readonly string[]): SpawnSyncReturns<string> {
  const command = path.join(bin, name);
  // cwd /: the postgres user may not enter the directory the tests run in.
  return isRoot()
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', cwd: '/' })
    : spawnSync(command, args, { encoding: 'utf8', cwd: '/' });
}

function check(result: SpawnSyncReturns<string>, more = ''): void {
  if (result.status === 0) return;
  throw new Error(
    `PostgreSQL failed to start (exit ${result.status ?? result.signal}): ${result.error?.message ?? ''}\n${result.stdout}${result.stderr}${more}`,
  );
}

const uidOf = (user: string) => Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
const gidOf = (user: string) => Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
