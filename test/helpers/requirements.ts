/**
 * What the tests need from the machine beyond Node 20 and this clone's `npm ci`. The start of the
 * run says what it found (test/global-setup.ts). A test that needs what is missing is skipped,
 * never silently: it is declared with {@link needs}, and the end of the run lists every skipped
 * test with its reason (test/skip-reasons-reporter.ts). test/suite-layout.test.ts rejects any
 * other way of skipping a test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestOptions } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test does not run here: set by {@link needs}, printed by test/skip-reasons-reporter.ts. */
    skipReason?: string;
  }
}

/**
 * Options for a `describe` (or a test) that needs something this machine may lack: nothing when
 * `missing` is undefined; else skipped, with `missing` as the reason the end of the run prints.
 *
 *     describe('the docs page in Chromium', needs(unmet(CHROMIUM)), () => { … });
 */
export function needs(missing: string | undefined): TestOptions {
  return missing === undefined ? {} : { skip: true, meta: { skipReason: missing } };
}

/** Why `requirement` is not met here and how to meet it, or undefined when it is (or only its tests can tell). */
export function unmet(requirement: Requirement): string | undefined {
  const missing = requirement.missing();
  return missing === undefined ? undefined : `${missing}: ${requirement.provide}`;
}

/** One thing some tests need that a machine may lack. */
export interface Requirement {
  /** What it is, where the tests look for it. */
  readonly what: string;
  /** The tests that need it, and for what. */
  readonly usedBy: string;
  /** How to get it. */
  readonly provide: string;
  /**
   * Why it is missing here (the tests that need it are skipped, saying so), or undefined when it
   * is present, or when only those tests can tell (they check when they start; see `checkedBy`).
   */
  missing(): string | undefined;
  /** How the tests that need it check, when the check is left to them: only trying tells, or it is slow. */
  readonly checkedBy?: string;
}

/** Where the browser tests look for Chromium (Debian's package); playwright-core drives it. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM: Requirement = {
  what: `Chromium at ${CHROMIUM_PATH}`,
  usedBy: 'test/docs/docs-page.test.ts and test/security/browser.test.ts (headless, through playwright-core)',
  provide: 'apt-get install chromium (.ci/run installs it)',
  missing: () => (existsSync(CHROMIUM_PATH) ? undefined : `${CHROMIUM_PATH} is missing`),
};

export const PROC: Requirement = {
  what: 'Linux /proc',
  usedBy:
    'test/start.test.ts, test/runtimes/openai-bounds-process.test.ts, test/storage/lock-identity.test.ts, test/storage/durability.test.ts (a process’s children, memory, state, open files)',
  provide: 'run the tests on Linux',
  missing: () => (existsSync('/proc/self/status') ? undefined : 'this system has no /proc (Linux) to read processes from'),
};

export const TMPFS: Requirement = {
  what: 'mounting a small tmpfs (root)',
  usedBy: 'test/storage/full-disk.test.ts and test/models/downloads-full-disk.test.ts (a disk that fills up)',
  provide: 'run the tests as root, as CI does',
  missing: () => (process.geteuid?.() === 0 ? undefined : 'not root, so no tmpfs can be mounted'),
  checkedBy: 'by mounting one',
};

/**
 * Mounts a tmpfs of `size` (`768k`, `64m`) at `mountPoint`: undefined when it did, else why not and
 * how to make it work, the reason for {@link needs}.
 */
export function mountTmpfs(mountPoint: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `a tmpfs cannot be mounted here (${String((error as Error).message).split('\n')[0]}): ${TMPFS.provide}`;
  }
}

export const LLAMA_CPP: Requirement = {
  what: 'node-llama-cpp’s prebuilt CPU binary for this platform',
  usedBy: 'test/runtimes/llama-cpp.test.ts, llama-failures.test.ts, llama-failures-process.test.ts (a tiny GGUF model)',
  provide: 'npm ci installs it (@node-llama-cpp/<platform>)',
  missing: () => undefined,
  checkedBy: 'by loading it (1–2 s)',
};

/** Why node-llama-cpp cannot run a model here (loading its binary failed), or undefined when it can. */
export async function llamaCppUnmet(): Promise<string | undefined> {
  try {
    const lib = await import('node-llama-cpp');
    const llama = await lib.getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: lib.LlamaLogLevel.error, maxThreads: 1 });
    await llama.dispose();
    return undefined;
  } catch (error) {
    return `node-llama-cpp cannot run here (${(error as Error).message}): ${LLAMA_CPP.provide}`;
  }
}

/** Everything the start of the run reports on. */
export const POSTGRESQL: Requirement = {
  what: 'PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin',
  usedBy:
    'the PostgreSQL store tests (test/contracts/postgres.test.ts, test/storage/postgres*.test.ts, test/cli/postgres-store.test.ts, test/conformance/postgres-instances.test.ts), each starting a throw-away server',
  provide: 'apt-get install postgresql (.ci/run installs it)',
  missing: () => (existsSync('/usr/lib/postgresql') ? undefined : '/usr/lib/postgresql is missing'),
};

export const REQUIREMENTS: readonly Requirement[] = [CHROMIUM, PROC, TMPFS, LLAMA_CPP, POSTGRESQL];
