import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The ids of the running processes whose parent is `pid` (Linux: the parent field of `/proc/<id>/stat`). */
export function childProcessIds(pid: number = process.pid): number[] {
  const ids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) === pid && state !== 'Z') ids.push(Number(entry));
    } catch {
      // Gone while the list was read.
    }
  }
  return ids;
}

/** Whether this system has /proc, where these functions read processes. */
export const hasProc = existsSync('/proc/self/status');

/** A process's resident memory (VmRSS) in MiB, from /proc; undefined once it is gone. */
export function rssMiBOf(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * Whether process `pid` is running: not gone, and not a zombie. (This machine's init does not reap
 * orphans, so a process whose parent is gone stays a zombie after it exits, and `kill(pid, 0)`
 * still succeeds on it.)
 */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** A process's command line (its arguments joined by spaces), from /proc; '' once it is gone. */
export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
