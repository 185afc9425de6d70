import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Who writes a file of a folder that several processes share (instances of the service on one
 * database, sharing a `DATA_DIR`): a file of one process's own is named with this host and the
 * process's id, so that another process can tell a live writer's file from one a dead writer left.
 */

/** This host, in a writer's file name: 8 hex digits of its name's hash (names may hold anything). */
export const WRITER_HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** Whether process `pid` of this host runs (a zombie counts as running: it is then left to a time bound). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
