import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A fresh folder under the system's temp folder, removed after the test file. */
export async function tempDir(prefix = 'cms-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
