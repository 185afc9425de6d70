import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { compiledScript } from './compiled-sources.js';
import { rssMiBOf } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The CLI's `serve` running in a process of its own. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The node process that runs the server (and leads its process group). */
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Kills its whole process group (the server and any GGUF runner it started); safe to call twice. */
  kill(): void;
}

/**
 * Starts `adapters/cli/main.ts serve --port 0 --data-dir <dataDir>` (the run's compiled sources,
 * test/helpers/compiled-sources.ts) with `env` added to this process's environment; resolves once
 * it prints the address it listens on (at most 20 s). The CLI runs in one node process, whose pid
 * is the server's, whose memory can be read. It runs `detached`, in a process group of its own,
 * killed whole by `kill()`.
 */
export function startServeProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [compiledScript('adapters/cli/main.ts'), 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const kill = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has exited already.
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`not listening within 20 s:\n${out}`));
    }, 20_000);
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url && child.pid !== undefined) {
        clearTimeout(timer);
        resolve({ url, pid: child.pid, child, output: () => out, kill });
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${out}`));
    });
  });
}

/** What {@link watchServer} saw while the work ran. */
export interface Watched<T> {
  readonly result: T;
  /** The highest RSS read, in MiB. */
  readonly peakRssMiB: number;
  /** Each health request's status (0 when it failed) and time in milliseconds, in order. */
  readonly health: readonly { status: number; ms: number }[];
}

/**
 * Runs `work` while reading the server's RSS every 5 ms and asking it `GET /.well-known/health`,
 * one request after the other (at most 10,000, each given 10 s): what another client of the
 * server sees meanwhile.
 */
export async function watchServer<T>(server: ServeProcess, work: () => Promise<T>): Promise<Watched<T>> {
  let peakRssMiB = rssMiBOf(server.pid) ?? 0;
  const sample = () => (peakRssMiB = Math.max(peakRssMiB, rssMiBOf(server.pid) ?? 0));
  const sampler = setInterval(sample, 5);
  const health: { status: number; ms: number }[] = [];
  let running = true;
  const polling = (async () => {
    while (running && health.length < 10_000) {
      const started = performance.now();
      const status = await fetch(`${server.url}/.well-known/health`, { signal: AbortSignal.timeout(10_000) })
        .then(async (response) => {
          await response.text();
          return response.status;
        })
        .catch(() => 0);
      health.push({ status, ms: performance.now() - started });
    }
  })();
  try {
    const result = await work();
    return { result, peakRssMiB: sample(), health };
  } finally {
    running = false;
    clearInterval(sampler);
    await polling;
  }
}
