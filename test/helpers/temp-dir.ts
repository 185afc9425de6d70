import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * A fresh folder under the system's temp folder, removed after the test that made it (called
 * inside a test) or after the test file (called at its top level or in a hook).
 */
export async function tempDir(prefix = 'cms-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const remove = () => rm(dir, { recursive: true, force: true });
  // An `afterAll` registered while a test runs is never called: inside a test, clean up after it.
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
  return dir;
}
