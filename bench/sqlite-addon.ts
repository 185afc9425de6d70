/**
 * better-sqlite3 for the benchmarks' SQLite peer (bench/sqlite-peer.ts). It is a dev dependency
 * whose native addon `npm ci` does not build (package.json's allowScripts keeps CI's install
 * fast), so the benchmark builds it on demand, once: npm's own node-gyp (the one npm uses for
 * install scripts), `rebuild --release` in the package's folder, against the headers of the Node
 * that runs it (`--nodedir`, so nothing is downloaded). A few minutes on a 2-core machine; the
 * build stays in node_modules for the next run. When it cannot be built, `sqliteMissing()` says
 * why in one line and the SQLite columns are skipped.
 *
 * `npx tsx bench/sqlite-addon.ts` builds it alone.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** A prepared statement of better-sqlite3, as far as the peer uses it (the package ships no types). */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  pluck(toggle?: boolean): SqliteStatement;
}

/** A better-sqlite3 database, as far as the peer uses it. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}

/** better-sqlite3's constructor. */
export type SqliteConstructor = new (file: string, options?: { readonly?: boolean }) => SqliteDatabase;

/** Loads better-sqlite3 and opens an in-memory database (which loads the addon); the error's message when it cannot. */
export function loadSqlite(): { Database: SqliteConstructor } | { error: string } {
  try {
    const Database = require('better-sqlite3') as SqliteConstructor;
    new Database(':memory:').close();
    return { Database };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0]! };
  }
}

/** npm's bundled node-gyp, next to the npm that came with this Node. */
function nodeGyp(): string | undefined {
  const candidates = [
    path.resolve(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
    '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
    '/usr/local/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  ];
  return candidates.find((file) => existsSync(file));
}

/** The folder of Node's headers (`include/node/node.h` under it): this Node's own, so node-gyp needs no download. */
function nodeDir(): string | undefined {
  const candidates = [path.resolve(path.dirname(process.execPath), '..'), '/usr', '/usr/local'];
  return candidates.find((dir) => existsSync(path.join(dir, 'include/node/node.h')));
}

let built: Promise<string | undefined> | undefined;

/**
 * Builds the addon when it does not load (once per process; the build is kept in node_modules),
 * saying so on stderr. Answers undefined when better-sqlite3 loads, else one line saying why the
 * SQLite peer is skipped and what to provide.
 */
export function sqliteMissing(): Promise<string | undefined> {
  built ??= (async () => {
    const first = loadSqlite();
    if (!('error' in first)) return undefined;
    let packageDir: string;
    try {
      packageDir = path.dirname(require.resolve('better-sqlite3/package.json'));
    } catch {
      return 'skipped, better-sqlite3 is not installed (npm install: it is a dev dependency).';
    }
    const gyp = nodeGyp();
    const headers = nodeDir();
    if (!gyp || !headers)
      return `skipped, better-sqlite3's addon is not built (${first.error}) and ${gyp ? "Node's headers (include/node/node.h)" : "npm's node-gyp"} were not found to build it: run \`npm rebuild better-sqlite3\`.`;
    console.error(
      `building better-sqlite3's native addon (once, kept in ${packageDir}/build; a few minutes on 2 cores): node-gyp rebuild --release --nodedir=${headers}`,
    );
    const t0 = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [gyp, 'rebuild', '--release', `--nodedir=${headers}`, `--jobs=2`], {
        cwd: packageDir,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let tail = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (tail = (tail + chunk).slice(-2000)));
      child.on('error', () => resolve(-1));
      child.on('close', (exit) => {
        if (exit !== 0) console.error(tail);
        resolve(exit);
      });
    });
    if (code !== 0)
      return `skipped, better-sqlite3's addon did not build (node-gyp exited with ${code}; its last lines above): run \`npm rebuild better-sqlite3\`.`;
    // A fresh process loads it: this one's require cache holds the package whose addon failed.
    console.error(`better-sqlite3 built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    return undefined;
  })();
  return built;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const why = await sqliteMissing();
  if (why) {
    console.error(why);
    process.exitCode = 1;
  } else console.error('better-sqlite3 loads');
}
