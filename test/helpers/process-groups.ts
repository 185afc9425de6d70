import type { ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';

/**
 * The processes a test file starts, each in a process group of its own (`detached`), killed whole
 * after each test: tsx runs a script in a node process of its own, which a SIGKILL to tsx alone
 * would leave running. Push every child started with `detached: true` into the answered list.
 */
export function killedAfterEach(): ChildProcess[] {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group has exited already.
      }
    }
  });
  return children;
}
