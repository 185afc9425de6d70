import { spawn } from 'node:child_process';
import path from 'node:path';
import { compiledScript } from '../helpers/compiled-sources.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How a run of the command ended. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The variables that say where a server is, or what token it takes: cleared for each run, so a
 * developer's own (a shell that exported PORT) cannot change what a test sees.
 */
const CLEARED = { PORT: '', HOST: '', API_TOKEN: '', DATA_DIR: '', DATABASE_URL: '', DATABASE_SCHEMA: '', TRASH_DAYS: '' };

/**
 * Runs `conversation-model-service <args>` from the run's compiled sources (one node process; see
 * test/helpers/compiled-sources.ts),
 * stdout and stderr piped, with `env` added; resolves when it exits, at most 30 s later (then its
 * process group is killed and the promise rejects). It runs `detached`, in a group of its own.
 */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [compiledScript('adapters/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...CLEARED, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
      reject(new Error(`${args.join(' ')} did not end within 30 s:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
