/**
 * What bench:store's parent and children share: the env knobs (documented in bench/store.ts), the
 * two subjects' checkouts, running a child with a time limit, and small figures helpers.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const list = (value: string) => value.split(',').filter(Boolean).map(Number);
const env = process.env;

export const OPTIONS = {
  sizes: list(env.BENCH_STORE_SIZES ?? '10000,50000'),
  rounds: Number(env.BENCH_STORE_ROUNDS ?? 3),
  loadRounds: Number(env.BENCH_STORE_LOAD_ROUNDS ?? 1),
  messageChars: Number(env.BENCH_STORE_MESSAGE_CHARS ?? 300),
  openTimeoutMs: Number(env.BENCH_STORE_OPEN_TIMEOUT_SECONDS ?? 300) * 1000,
  minFreeBytes: Number(env.BENCH_STORE_MIN_FREE_GB ?? 3) * 1e9,
  checkpoints: list(env.BENCH_STORE_MESSAGES ?? '100,1000,10000,20000').sort((a, b) => a - b),
  appendMs: Number(env.BENCH_STORE_APPEND_SECONDS ?? 180) * 1000,
  appendRepeats: Number(env.BENCH_STORE_APPEND_REPEATS ?? 3),
  /** Conversations of the store the reads and the concurrent writes use: the smallest of the sizes. */
  workSize: Number(env.BENCH_STORE_WORK_SIZE ?? (list(env.BENCH_STORE_SIZES ?? '10000,50000').sort((a, b) => a - b)[0] || 10000)),
  readMs: Number(env.BENCH_STORE_READ_SECONDS ?? 3) * 1000,
  writeMs: Number(env.BENCH_STORE_WRITE_SECONDS ?? 5) * 1000,
  writers: Number(env.BENCH_STORE_WRITERS ?? 50),
  /** Parts to skip, comma-separated: open, append, read, write. */
  skip: new Set((env.BENCH_STORE_SKIP ?? '').split(',').filter(Boolean)),
  baselineRef: env.BENCH_STORE_BASELINE_REF ?? '5f9d7fd',
  baselineRoot: env.BENCH_STORE_BASELINE_ROOT,
  subjectRoot: env.BENCH_STORE_SUBJECT_ROOT,
};
/** Upper bound of any loop's count, whatever its time limit. */
export const MAX_OPS = 1_000_000;
/** Appends measured before each checkpoint. */
export const WINDOW = 100;

/** This checkout. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHILD = path.join(REPO_ROOT, 'bench/store-child.ts');

// ---------------------------------------------------------------------------------------------
// The subjects: format 4 from a checkout of the release before, the new format from this one.

export interface Subject {
  readonly key: 'old' | 'new';
  readonly label: string;
  /** The checkout whose `src/index.ts` the children import. */
  readonly root: string;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function describe(root: string): string {
  try {
    const dirty = git(root, 'status', '--porcelain', '--', 'src') !== '';
    return `${git(root, 'rev-parse', '--short', 'HEAD')}${dirty ? ' + changes to src/' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

/**
 * The two subjects. The baseline is BENCH_STORE_BASELINE_ROOT as it is, else a git worktree of
 * BENCH_STORE_BASELINE_REF in the temp folder, reused when one of that commit is there already;
 * `cleanup` removes a worktree made by this run. The new subject is this checkout, or
 * BENCH_STORE_SUBJECT_ROOT (point it at the baseline to try the script while src/ does not build).
 */
export async function prepareSubjects(): Promise<{ subjects: [Subject, Subject]; cleanup: () => void }> {
  let baseline = OPTIONS.baselineRoot && path.resolve(OPTIONS.baselineRoot);
  let made: string | undefined;
  if (!baseline) {
    const commit = git(REPO_ROOT, 'rev-parse', '--verify', `${OPTIONS.baselineRef}^{commit}`);
    baseline = path.join(tmpdir(), `cms-bench-baseline-${commit.slice(0, 12)}`);
    const reusable = existsSync(path.join(baseline, 'src/index.ts')) && git(baseline, 'rev-parse', 'HEAD') === commit;
    if (!reusable) {
      git(REPO_ROOT, 'worktree', 'add', '--detach', baseline, commit);
      made = baseline;
    }
    if (!existsSync(path.join(baseline, 'node_modules')))
      await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(baseline, 'node_modules'), 'dir');
  }
  const subjectRoot = path.resolve(OPTIONS.subjectRoot ?? REPO_ROOT);
  const subjects: [Subject, Subject] = [
    { key: 'old', label: 'format 4', root: baseline },
    { key: 'new', label: 'new', root: subjectRoot },
  ];
  for (const subject of subjects) console.log(`- ${subject.label}: ${subject.root} (${describe(subject.root)})`);
  if (subjectRoot === baseline)
    console.log('  (BENCH_STORE_SUBJECT_ROOT is the baseline: both columns measure format 4, to try the script.)');
  return {
    subjects,
    cleanup: () => {
      if (!made) return;
      try {
        git(REPO_ROOT, 'worktree', 'remove', '--force', made);
      } catch (error) {
        console.error(`Could not remove the worktree ${made}: ${(error as Error).message}`);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Children: bench/store-child.ts in a fresh process (its own process group, so that a kill at the
// time limit takes esbuild's service with it), answering JSON lines on stdout.

const live = new Set<ChildProcess>();
const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};
/** Kills every child still running (on Ctrl-C, say). */
export const killChildren = () => {
  for (const child of live) killGroup(child);
};

export type Line = Record<string, unknown>;
export interface ChildResult {
  readonly lines: Line[];
  readonly timedOut: boolean;
  readonly code: number | null;
}

/**
 * Runs a child mode of `options.script` (default bench/store-child.ts); answers its JSON lines (each
 * passed to `onLine` as it comes, with the child, for a server to be stopped once it has answered),
 * killing it after `timeoutMs`.
 */
export function runChild(
  args: string[],
  timeoutMs: number,
  options: { env?: NodeJS.ProcessEnv; onLine?: (line: Line, child: ChildProcess) => void; script?: string } = {},
): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', options.script ?? CHILD, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
    detached: true,
  });
  live.add(child);
  const lines: Line[] = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      const parsed = JSON.parse(line) as Line;
      lines.push(parsed);
      options.onLine?.(parsed, child);
    }
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ lines, timedOut, code });
    });
  });
}

/** The child's line with `key`, or a sentence saying why there is none. */
export function answer(result: ChildResult, key: string, timeoutMs: number): Line | string {
  const line = result.lines.find((l) => key in l);
  if (line) return line;
  const error = result.lines.find((l) => 'error' in l);
  if (error) return `failed: ${String(error.error)}`;
  return result.timedOut ? `no answer in ${fixed(timeoutMs / 1000)} s` : `exited with ${result.code}`;
}

// ---------------------------------------------------------------------------------------------
// Figures.

export const MB = 2 ** 20;
export const median = (values: number[]): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
export const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
export const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `×${(a / b).toFixed(2)}` : '—');
export const gb = (bytes: number) => `${fixed(bytes / 1e9, 1)} GB`;

/** Bytes free where `folder` lives, as `df` reports them. */
export function freeBytes(folder: string): number {
  const output = execFileSync('df', ['-Pk', folder], { encoding: 'utf8', timeout: 10_000 });
  const fields = output.trim().split('\n').at(-1)!.trim().split(/\s+/);
  return Number(fields[3]) * 1024;
}

/** Bytes of every file under `folder`. */
export async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
