import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { RUN_FOLDER } from '../global-setup.js';

/** The folders made outside a test (at a file's top level, in a hook): removed when the file ends. */
const forTheFile = new Set<string>();

/**
 * A fresh folder under the temp folder, removed after the test that made it (called inside a
 * test) or after the test file (called at its top level or in a hook such as `beforeAll`).
 *
 * The temp folder is the test file's own, inside the run's (see test/global-setup.ts): whatever is
 * still there when the run ends fails it.
 */
export async function tempDir(prefix = 'cms-test-'): Promise<string> {
  return removedAfterwards(await mkdtemp(path.join(tmpdir(), prefix)));
}

/**
 * A fresh folder (mode 0700, as mkdtemp makes it) in the run's folder itself rather than the test
 * file's, for a path that must stay short: a unix socket's (at most 107 bytes; see
 * test/helpers/run-folder.ts), such as the one Chromium makes in its temp folder. Removed as
 * {@link tempDir}'s are; one still there when the run ends fails it.
 */
export async function shortTempDir(prefix: string): Promise<string> {
  return removedAfterwards(await mkdtemp(path.join(process.env[RUN_FOLDER] ?? tmpdir(), prefix)));
}

function removedAfterwards(dir: string): string {
  try {
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
  } catch {
    // Not inside a test. (An `afterAll` registered from a running hook is never called: that is
    // how the `beforeAll` folders of the package test used to stay behind.) test/setup.ts
    // removes these once the file's own `afterAll` hooks have run.
    forTheFile.add(dir);
  }
  return dir;
}

/** Removes the folders {@link tempDir} made outside a test; test/setup.ts calls it at the end of each file. */
export async function removeFileTempDirs(): Promise<void> {
  const dirs = [...forTheFile];
  forTheFile.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 })));
}
