import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';

/**
 * Who a process is, beyond its pid: pids are reused (a container restarted is pid 1 again), and a
 * process killed while its parent is gone stays a zombie whose pid still answers `kill(pid, 0)`.
 * On Linux the start time (clock ticks since boot) and the boot id tell one process from another
 * that got the same pid; elsewhere they are absent and the pid alone is used.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly hostname: string;
  /** Field 22 of `/proc/<pid>/stat`: when the process started, in ticks since boot. */
  readonly startTime?: string;
  /** `/proc/sys/kernel/random/boot_id`: changes with every boot. */
  readonly bootId?: string;
}

/** This process. */
export async function currentProcess(): Promise<ProcessIdentity> {
  const stat = await procStat(process.pid);
  const bootId = await bootIdOfThisMachine();
  return { pid: process.pid, hostname: hostname(), ...(stat ? { startTime: stat.startTime } : {}), ...(bootId ? { bootId } : {}) };
}

/**
 * Whether the process `holder` names still runs. A holder on another host cannot be checked, so
 * it counts as running (the caller offers an override).
 */
export async function isRunning(holder: ProcessIdentity): Promise<boolean> {
  if (holder.hostname !== hostname()) return true;
  const bootId = await bootIdOfThisMachine();
  // The machine has booted since: nothing from before runs any more.
  if (holder.bootId && bootId && holder.bootId !== bootId) return false;
  const stat = await procStat(holder.pid);
  if (stat) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    // Another process got the pid.
    if (holder.startTime && stat.startTime !== holder.startTime) return false;
    return true;
  }
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** State and start time of a process from `/proc`, or undefined (no such process, or no `/proc`). */
async function procStat(pid: number): Promise<{ state: string; startTime: string } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime ? { state, startTime } : undefined;
}

async function bootIdOfThisMachine(): Promise<string | undefined> {
  return (await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined))?.trim() || undefined;
}
