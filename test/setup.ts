/**
 * Runs before each test file (`setupFiles`). The file gets a temp folder of its own inside the
 * run's (test/global-setup.ts): `$TMPDIR` points there for the file and every process it starts.
 * When the file ends, after its own `afterAll` hooks, the folders tempDir() made outside a test go,
 * then the file's temp folder, if nothing is left in it; if something is, the run fails at its
 * end, naming this file.
 */
import { existsSync, mkdtempSync, rmdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { RUN_FOLDER, SYSTEM_TMPDIR } from './global-setup.js';
import { removeFileTempDirs } from './helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = process.env[RUN_FOLDER];
const testFile = expect.getState().testPath;

if (run && testFile) {
  const folder = mkdtempSync(path.join(run, `${path.relative(ROOT, testFile).replaceAll(path.sep, '~')}-`));
  const saved = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  process.env.TMPDIR = process.env.TMP = process.env.TEMP = folder;
  // tsx keeps its compile cache in $TMPDIR/tsx-<euid>: the processes started here share the
  // system's, as they would outside the tests (and start as fast), rather than fill a new one.
  // Without one there, tsx makes its cache here; a cache is no leftover, it goes with the file.
  const tsxCache = path.join(folder, `tsx-${process.geteuid?.() ?? 0}`);
  const systemCache = path.join(process.env[SYSTEM_TMPDIR] ?? '', path.basename(tsxCache));
  if (process.env[SYSTEM_TMPDIR] && existsSync(systemCache)) symlinkSync(systemCache, tsxCache);
  afterAll(async () => {
    await removeFileTempDirs();
    // The link, or the cache tsx made; never what a link points to.
    rmSync(tsxCache, { recursive: true, force: true });
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    try {
      rmdirSync(folder);
    } catch {
      // Something is left: test/global-setup.ts names it when the run ends.
    }
  });
} else {
  afterAll(removeFileTempDirs);
}
