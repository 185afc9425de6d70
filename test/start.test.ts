/**
 * `npm start` as a user and a process manager run it, in a copy of this clone (its sources and
 * scripts, this clone's node_modules linked in) so the builds it makes are its own: the first
 * start builds `dist/`, later ones do not (until a source changes), and SIGTERM or SIGINT to the
 * npm process (or to its whole process group, as a terminal's Ctrl-C does) stops the server
 * gracefully: npm exits 0, the port is closed, the data folder's lock is gone, and no process of
 * the tree is left.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childProcessIds, commandLineOf, isRunning } from './helpers/processes.js';
import { needs, PROC, unmet } from './helpers/requirements.js';
import { tempDir } from './helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** What `npm start` needs of a clone; node_modules is linked, not copied. */
const COPIED = ['package.json', 'tsconfig.json', 'tsup.config.ts', 'src', 'adapters', 'scripts'];
const LOCK = 'db.json.lock';

let clone: string;
const started: { npm: ChildProcess; tree: number[] }[] = [];

beforeAll(async () => {
  clone = await tempDir('cms-start-clone-');
  for (const name of COPIED) await cp(path.join(ROOT, name), path.join(clone, name), { recursive: true });
  await symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
});

// Whatever a failed test left: each npm runs in a process group of its own (`detached`), killed whole,
// and each process seen in its tree is killed by its id.
afterEach(() => {
  for (const { npm, tree } of started.splice(0)) {
    for (const pid of [-(npm.pid ?? 0), ...tree]) {
      try {
        if (pid !== 0 && (pid < 0 || isRunning(pid))) process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }
});

/** The ids of `pid`'s running descendants, depth first. */
const descendants = (pid: number): number[] => childProcessIds(pid).flatMap((child) => [child, ...descendants(child)]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `GET /.well-known/health` on a connection of its own (closed after it): the status, or 0 on failure. */
const health = (url: string) =>
  new Promise<number>((resolve) => {
    const request = http.get(`${url}/.well-known/health`, { agent: false, timeout: 2_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
  });

/** Whether something accepts connections on 127.0.0.1:`port` (given 2 s). */
const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

interface Started {
  readonly npm: ChildProcess;
  readonly url: string;
  /** From spawning `npm start` to the first health answer. */
  readonly readyMs: number;
  /** npm's descendants once the server answers. */
  readonly tree: number[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** Runs `npm start` in the clone on a free port and `dataDir`; resolves once the server answers its health check (bounded). */
async function npmStart(dataDir: string): Promise<Started> {
  const begun = performance.now();
  const npm = spawn('npm', ['start'], {
    cwd: clone,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const entry = { npm, tree: [] as number[] };
  started.push(entry);
  let out = '';
  npm.stdout!.on('data', (chunk) => (out += chunk));
  npm.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  // At most 60 s (a first start builds), 600 looks.
  let url: string | undefined;
  for (let look = 0; look < 600 && !url && !gone; look++) {
    url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    if (!url) await sleep(100);
  }
  if (!url) throw new Error(`npm start did not listen within 60 s:\n${out}`);
  let status = 0;
  for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
    status = await health(url);
    if (status !== 200) await sleep(100);
  }
  if (status !== 200) throw new Error(`${url} did not answer its health check:\n${out}`);
  const readyMs = performance.now() - begun;
  entry.tree = descendants(npm.pid!);
  return { npm, url, readyMs, tree: entry.tree, exited, output: () => out };
}

/** Waits (at most 20 s) for npm to exit after `signal` went to it (`'process'`) or to its whole group. */
async function stop(run: Started, signal: 'SIGTERM' | 'SIGINT', to: 'process' | 'group') {
  process.kill(to === 'group' ? -run.npm.pid! : run.npm.pid!, signal);
  const exit = await Promise.race([run.exited, sleep(20_000).then(() => undefined)]);
  if (!exit) throw new Error(`npm did not exit within 20 s of ${signal}:\n${run.output()}`);
  return exit;
}

/** The checks after a stop: the port is closed, the lock gone, no process of the tree runs. */
async function expectStoppedCleanly(run: Started, dataDir: string) {
  expect(await portOpen(Number(new URL(run.url).port))).toBe(false);
  expect(existsSync(path.join(dataDir, LOCK))).toBe(false);
  expect(run.tree.filter(isRunning)).toEqual([]);
  expect(childProcessIds(run.npm.pid!)).toEqual([]);
}

describe('npm start', needs(unmet(PROC)), () => {
  it('builds dist/ (JavaScript only) on the first start, not on later ones, and again once a source changes', async () => {
    const check = () => spawnSync(process.execPath, ['scripts/build-if-stale.mjs', '--check'], { cwd: clone, timeout: 20_000 }).status;
    expect(check()).toBe(1);

    const dataDir = await tempDir();
    const first = await npmStart(dataDir);
    expect(first.output()).toMatch(/Building dist\/ \(dist\/\S+ is missing\)/);
    expect(existsSync(path.join(clone, 'dist/cli.js'))).toBe(true);
    expect(existsSync(path.join(clone, 'dist/index.d.ts'))).toBe(false);
    expect(check()).toBe(0);
    expect(await stop(first, 'SIGTERM', 'process')).toEqual({ code: 0, signal: null });

    const second = await npmStart(dataDir);
    expect(second.output()).not.toMatch(/Building dist/);
    console.log(
      `npm start: first health answer ${Math.round(first.readyMs)} ms after a fresh clone's first start (building), ${Math.round(second.readyMs)} ms on a built one`,
    );
    expect(await stop(second, 'SIGTERM', 'process')).toEqual({ code: 0, signal: null });

    // An edit makes dist/ stale (here a build a minute old, and a source written since); the next start rebuilds it.
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(path.join(clone, 'dist/cli.js'), minuteAgo, minuteAgo);
    const edited = path.join(clone, 'adapters/cli/main.ts');
    await writeFile(edited, await readFile(edited));
    expect(check()).toBe(1);
    const third = await npmStart(dataDir);
    expect(third.output()).toMatch(/Building dist\/ \(adapters\/cli\/main\.ts changed since the last build\)/);
    expect(await stop(third, 'SIGTERM', 'process')).toEqual({ code: 0, signal: null });
    expect(check()).toBe(0);
  }, 120_000);

  it.each([
    ['SIGTERM', 'process'],
    ['SIGINT', 'process'],
    ['SIGINT', 'group'],
    ['SIGTERM', 'group'],
  ] as const)(
    '%s to the npm %s stops the server gracefully and leaves nothing running',
    async (signal, to) => {
      const dataDir = await tempDir();
      const run = await npmStart(dataDir);
      // npm's one child is the server itself: the start script's shell gave way to it (`exec`).
      expect(run.tree).toHaveLength(1);
      expect(commandLineOf(run.tree[0]!)).toBe('node dist/cli.js serve');
      expect(existsSync(path.join(dataDir, LOCK))).toBe(true);

      expect(await stop(run, signal, to)).toEqual({ code: 0, signal: null });
      // Once: the copy npm passes on of a signal the server got too is not a second request.
      expect(run.output()).toMatch(new RegExp(`${signal}: finishing the requests under way`));
      expect(run.output()).not.toMatch(/again: stopping now/);
      await expectStoppedCleanly(run, dataDir);
      // The folder opens again.
      const again = await npmStart(dataDir);
      expect(await stop(again, 'SIGTERM', 'process')).toEqual({ code: 0, signal: null });
      await expectStoppedCleanly(again, dataDir);
    },
    60_000,
  );
});
